package engine

import (
	"github.com/google/go-cmp/cmp"

	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// modelScript is a host model for the tests: it records every request it received and
// answers with the model's name, failing the first fail calls.
type modelScript struct {
	mu   sync.Mutex
	got  []hookspec.LLMRequest
	fail int
}

// modelCfg is how a modelScript behaves: the first fail calls fail.
type modelCfg struct{ fail int }

func (m *modelScript) call(_ context.Context, req hookspec.LLMRequest) (hookspec.LLMResponse, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.got = append(m.got, req)
	if len(m.got) <= m.fail {
		return hookspec.LLMResponse{}, errors.New("overloaded")
	}
	return hookspec.LLMResponse{Model: req.Model, Content: "answer from " + req.Model}, nil
}

// A request to the model through pre_api_request and wrap_llm_call: the request as the
// model receives it after every rewrite (the hooks after a rewrite see it), a synthetic
// answer that keeps the model from being called, a fallback model, and the mistakes that
// are reported rather than dropped.
func TestRunLLM(t *testing.T) {
	trim := pluginFiles("trim", "priority: 10\n", one("pre_api_request", `
    local msgs = kw.request.messages
    return {action="modify", request={messages={msgs[#msgs]}, model="small"}}`))
	seesTrimmed := pluginFiles("sees", "", one("pre_api_request", `
    if #kw.request.messages == 1 and kw.model == "small" then
      return {action="modify", request={system="short: " .. kw.request.system}}
    end`))
	offline := pluginFiles("offline", "", one("pre_api_request", `return {action="respond", response="offline"}`))
	fallback := pluginFiles("fallback", "", wrapHandler("wrap_llm_call", `
    local ok, res = pcall(next, kw.request)
    if ok then return res end
    kw.request.model = "backup"
    return next(kw.request)`))
	narrow := pluginFiles("narrow", "", wrapHandler("wrap_llm_call", `
    local keep = {}
    for _, t in ipairs(kw.request.tools) do if t.name ~= "terminal" then keep[#keep+1] = t end end
    kw.request.tools = keep
    return next(kw.request)`))
	req := hookspec.LLMRequest{SessionID: "s1", Model: "big", System: "be brief",
		Messages: []hookspec.Message{{Role: "user", Content: "one"}, {Role: "user", Content: "two"}},
		Tools:    []map[string]any{{"name": "terminal"}, {"name": "web"}}}
	tests := []struct {
		name      string
		home      map[string]string
		model     modelCfg
		content   string   // the response's content
		calls     []string // the model of every request the model received
		system    string   // the system prompt the model last received
		messages  int      // how many messages it last received
		tools     int      // how many tools it last received
		synthetic bool
		hook      string
		err       string
	}{
		{name: "no hooks", home: map[string]string{}, content: "answer from big", calls: []string{"big"}, system: "be brief", messages: 2, tools: 2},
		{name: "rewrites chain: the next hook sees the trimmed request", home: files(trim, seesTrimmed),
			content: "answer from small", calls: []string{"small"}, system: "short: be brief", messages: 1, tools: 2, hook: "sees"},
		{name: "respond: the model is not called", home: files(trim, offline),
			content: "offline", synthetic: true, hook: "offline"},
		{name: "a wrap hook falls back to another model", home: fallback, model: modelCfg{fail: 1},
			content: "answer from backup", calls: []string{"big", "backup"}, system: "be brief", messages: 2, tools: 2},
		{name: "a wrap hook narrows the tools", home: narrow,
			content: "answer from big", calls: []string{"big"}, system: "be brief", messages: 2, tools: 1},
		{name: "a wrap hook answers without the model", home: pluginFiles("canned", "", wrapHandler("wrap_llm_call", `return {content = "canned", model = "none"}`)),
			content: "canned", synthetic: true},
		{name: "the model's error raised through next", home: pluginFiles("w", "", wrapHandler("wrap_llm_call", `return next()`)), model: modelCfg{fail: 9},
			calls: []string{"big"}, system: "be brief", messages: 2, tools: 2, err: "overloaded"},
		{name: "a malformed respond is reported and the model called", home: pluginFiles("bad", "", one("pre_api_request", `return {action="respond", response={text="x"}}`)),
			content: "answer from big", calls: []string{"big"}, system: "be brief", messages: 2, tools: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, _ := newEngine(t, testutil.Home(t, tt.home))
			m := &modelScript{fail: tt.model.fail}
			run := e.RunLLM(context.Background(), req, m.call)
			if run.Response.Content != tt.content || run.Synthetic != tt.synthetic || run.Hook != tt.hook {
				t.Errorf("content %q, synthetic %v, hook %q; want %q, %v, %q", run.Response.Content, run.Synthetic, run.Hook, tt.content, tt.synthetic, tt.hook)
			}
			var models []string
			for _, r := range m.got {
				models = append(models, r.Model)
			}
			if strings.Join(models, ",") != strings.Join(tt.calls, ",") || run.Calls != len(tt.calls) {
				t.Errorf("the model got %v (Calls %d), want %v", models, run.Calls, tt.calls)
			}
			if (run.Err != nil) != (tt.err != "") || run.Err != nil && !strings.Contains(run.Err.Error(), tt.err) {
				t.Errorf("err %v, want %q", run.Err, tt.err)
			}
			if len(m.got) == 0 {
				return
			}
			sent := m.got[len(m.got)-1]
			if sent.System != tt.system || len(sent.Messages) != tt.messages || len(sent.Tools) != tt.tools {
				t.Errorf("the model last got system %q, %d messages, %d tools; want %q, %d, %d", sent.System, len(sent.Messages), len(sent.Tools), tt.system, tt.messages, tt.tools)
			}
			if run.Request.Model != sent.Model || run.Request.System != sent.System {
				t.Errorf("LLMRun.Request %+v is not the request the model got %+v", run.Request, sent)
			}
		})
	}
}

// A malformed answer of pre_api_request is reported on the hook's result, naming what is
// wrong, never silently dropped.
func TestPreAPIRequestReportsMalformedAnswers(t *testing.T) {
	e, _ := newEngine(t, testutil.Home(t, pluginFiles("bad", "", one("pre_api_request", `return {action="modify", request={messages="all"}}`))))
	rep := e.Fire(context.Background(), hookspec.PreAPIRequest, hookspec.SampleLLMRequest().Kwargs())
	if len(rep.Hooks) != 1 || rep.Hooks[0].Status != hookspec.StatusError || !strings.Contains(rep.Hooks[0].Err, `request.messages must be a list of tables, not "all"`) {
		t.Fatalf("hooks %+v", rep.Hooks)
	}
	if rep.Outcome != nil {
		t.Errorf("outcome %v, want none", rep.Outcome)
	}
}

// A shell hook answers pre_api_request with the same JSON: a rewritten request, or a
// synthetic response. A shell hook cannot be a wrap hook: config.yaml says so.
func TestShellPreAPIRequest(t *testing.T) {
	home := t.TempDir()
	s := script(t, home, "offline.sh", `cat >/dev/null; echo '{"action":"respond","response":{"content":"from shell","stop_reason":"end_turn"}}'`)
	w := script(t, home, "wrap.sh", `cat >/dev/null`)
	writeFile(t, filepath.Join(home, "config.yaml"), "hooks:\n  pre_api_request:\n    - command: "+s+"\n  wrap_tool_call:\n    - command: "+w+"\n")
	logs := &testutil.Buffer{}
	e, err := New(context.Background(), Options{Home: home, IgnoreConsent: true, Logger: newTestLogger(logs)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	m := &modelScript{}
	run := e.RunLLM(context.Background(), hookspec.SampleLLMRequest(), m.call)
	if !run.Synthetic || run.Response.Content != "from shell" || run.Response.StopReason != "end_turn" || len(m.got) != 0 {
		t.Errorf("run %+v, model calls %d; want the shell hook's answer and no model call", run, len(m.got))
	}
	if !strings.Contains(logs.String(), "wrap_tool_call is for Lua plugins only") {
		t.Errorf("no warning about a shell wrap hook in the log:\n%s", logs)
	}
	if e.HasHooks(hookspec.WrapToolCall) {
		t.Error("a shell hook was registered for wrap_tool_call")
	}
}

// A pre_api_request hook that reads only the system prompt sees it, whatever the request's
// size, and one that reads the messages in the same plugin sees every one of them.
func TestPreAPIRequestReadsOneField(t *testing.T) {
	home := testutil.Home(t, pluginFiles("fields", "", `
function register(ctx)
  ctx.register_hook("pre_api_request", function(kw)
    if kw.request.system:find("secret", 1, true) then return {action = "respond", response = "no secrets"} end
  end)
  ctx.register_hook("pre_api_request", function(kw)
    local n = 0
    for _, m in ipairs(kw.request.messages) do if m.role == "user" then n = n + 1 end end
    return {action = "modify", request = {system = kw.request.system .. " users:" .. n .. " tools:" .. #kw.request.tools}}
  end)
end`))
	e := engineWith(t, home, Options{})
	msgs := make([]hookspec.Message, 100)
	for i := range msgs {
		msgs[i] = hookspec.Message{Role: []string{"user", "assistant"}[i%2], Content: "x"}
	}
	var sent hookspec.LLMRequest
	model := func(_ context.Context, r hookspec.LLMRequest) (hookspec.LLMResponse, error) {
		sent = r
		return hookspec.LLMResponse{Content: "ok"}, nil
	}
	for range 3 { // the same callbacks again: their kwargs tables are reused
		run := e.RunLLM(context.Background(), hookspec.LLMRequest{System: "be terse", Messages: msgs, Tools: []map[string]any{{"name": "t"}}}, model)
		if run.Synthetic || sent.System != "be terse users:50 tools:1" || len(sent.Messages) != 100 {
			t.Fatalf("run %+v sent %q with %d messages, want the messages counted and kept", run, sent.System, len(sent.Messages))
		}
		run = e.RunLLM(context.Background(), hookspec.LLMRequest{System: "a secret", Messages: msgs}, model)
		if !run.Synthetic || run.Response.Content != "no secrets" {
			t.Fatalf("run %+v, want the system prompt read", run)
		}
	}
}

// Messages and tool calls are typed on both sides of the hooks: a hook reads an assistant
// message's tool calls and a tool message's call id under the API's keys, and what it
// writes back (a message with tool calls, a response with tool calls) reaches the host as
// hookspec.Message and hookspec.ToolCall, the host API's other keys kept.
func TestTypedMessagesThroughHooks(t *testing.T) {
	home := testutil.Home(t, pluginFiles("typed", "", `
function register(ctx)
  ctx.register_hook("wrap_llm_call", function(kw, next)
    local req = kw.request
    local last = req.messages[#req.messages]
    local call = req.messages[#req.messages - 1].tool_calls[1]
    table.insert(req.messages, {role = "user", content = call.name .. "(" .. call.args.command .. ") -> " .. last.tool_call_id .. " " .. last.name})
    local resp = next(req)
    resp.tool_calls = {{id = "c2", name = "read_file", args = {path = "/tmp/a"}}}
    return resp
  end)
end`))
	e := engineWith(t, home, Options{})
	var sent hookspec.LLMRequest
	run := e.RunLLM(context.Background(), hookspec.LLMRequest{Messages: []hookspec.Message{
		{Role: "assistant", ToolCalls: []hookspec.ToolCall{{ToolCallID: "c1", Name: "terminal", Args: map[string]any{"command": "ls"}}}},
		{Role: "tool", ToolCallID: "c1", Content: "a b", Extra: map[string]any{"name": "terminal"}},
	}}, func(_ context.Context, r hookspec.LLMRequest) (hookspec.LLMResponse, error) {
		sent = r
		return hookspec.LLMResponse{Content: "done"}, nil
	})
	if run.Err != nil {
		t.Fatal(run.Err)
	}
	want := []hookspec.Message{
		{Role: "assistant", ToolCalls: []hookspec.ToolCall{{ToolCallID: "c1", Name: "terminal", Args: map[string]any{"command": "ls"}}}},
		{Role: "tool", ToolCallID: "c1", Content: "a b", Extra: map[string]any{"name": "terminal"}},
		{Role: "user", Content: "terminal(ls) -> c1 terminal"},
	}
	if diff := cmp.Diff(want, sent.Messages); diff != "" {
		t.Errorf("the messages the model got (-want +got):\n%s", diff)
	}
	wantCalls := []hookspec.ToolCall{{ToolCallID: "c2", Name: "read_file", Args: map[string]any{"path": "/tmp/a"}}}
	if diff := cmp.Diff(wantCalls, run.Response.ToolCalls); diff != "" {
		t.Errorf("the response's tool calls (-want +got):\n%s", diff)
	}
}
