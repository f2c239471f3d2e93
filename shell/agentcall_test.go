package shell

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// The payloads an agent writes for our kwargs (the tables that run hooks written for it
// here) read back into the same kwargs: one table, both directions.
func TestAgentCallReadsWhatTheTablesWrite(t *testing.T) {
	tool := hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "rm -rf /tmp/x"}, SessionID: "s1", ToolCallID: "call-1"}
	read := hookspec.ToolCall{Name: "read_file", Args: map[string]any{"path": "/etc/passwd"}, SessionID: "s1", ToolCallID: "call-2"}
	cases := []struct {
		hook string
		kw   map[string]any
		keys []string // the kwargs that must come back equal
	}{
		{hooknames.PreToolCall, tool.Kwargs(false), []string{"tool_name", "args", "session_id", "tool_call_id"}},
		{hooknames.PreToolCall, read.Kwargs(false), []string{"tool_name", "args", "session_id"}},
		{hooknames.PreLLMCall, hookspec.LLMTurn{SessionID: "s1", UserMessage: "deploy it"}.PreKwargs(), []string{"session_id", "user_message"}},
		{hooknames.OnSessionStart, hookspec.Session{SessionID: "s1", Model: "m"}.StartKwargs(), []string{"session_id"}},
		{hooknames.PreVerify, hookspec.Verify{SessionID: "s1", Response: "done"}.Kwargs(), []string{"session_id", "response", "subagent"}},
		{hooknames.PreCompact, hookspec.Compaction{SessionID: "s1", Trigger: "auto"}.PreKwargs(), []string{"session_id", "trigger"}},
	}
	for _, d := range Dialects {
		for _, c := range cases {
			if DialectEvent(d, c.hook) == "" {
				continue
			}
			t.Run(d+"/"+c.hook, func(t *testing.T) {
				payload, err := dialectPayload(d, c.hook, c.kw, "/work", dialectTools(d))
				if err != nil {
					t.Fatal(err)
				}
				call, err := ReadAgentCall(d, payload, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(call.Firings) == 0 || call.Firings[0].Hook != c.hook {
					t.Fatalf("%s payload %s fires %+v, want %s first", d, payload, call.Firings, c.hook)
				}
				got := call.Firings[0].Kwargs
				for _, k := range c.keys {
					if diff := cmp.Diff(c.kw[k], got[k]); diff != "" {
						t.Errorf("%s: kwarg %s (-wrote +read):\n%s", d, k, diff)
					}
				}
			})
		}
	}
}

// Each of our answers, written as the agent reads it, reads back (with the reader that
// runs hooks written for that agent) as the same answer, or as the documented stand-in.
func TestAgentReplyReadsBackAsTheAnswer(t *testing.T) {
	args := map[string]any{"command": "ls -la"}
	out := "[redacted]"
	cases := []struct {
		name    string
		dialect string
		hook    string
		answer  hookspec.Answer
		want    hookspec.Answer // "" Kind: the answer itself
	}{
		{"block", DialectClaude, hooknames.PreToolCall, hookspec.Answer{Kind: hookspec.Block, Message: "no rm -rf"}, hookspec.Answer{}},
		{"block with context", DialectClaude, hooknames.PreToolCall, hookspec.Answer{Kind: hookspec.Block, Message: "no", Text: "see policy"}, hookspec.Answer{}},
		{"ask", DialectClaude, hooknames.PreToolCall, hookspec.Answer{Kind: hookspec.Ask, Message: "deploy?"}, hookspec.Answer{}},
		{"approve", DialectClaude, hooknames.PreToolCall, hookspec.Answer{Kind: hookspec.Approve}, hookspec.Answer{}},
		{"approve with args", DialectClaude, hooknames.PreToolCall, hookspec.Answer{Kind: hookspec.Approve, Args: args}, hookspec.Answer{}},
		{"modify asks the user", DialectClaude, hooknames.PreToolCall, hookspec.Answer{Kind: hookspec.Modify, Args: args},
			hookspec.Answer{Kind: hookspec.Ask, Message: "a hook changed this call's input; confirm the changed call", Args: args}},
		{"context", DialectClaude, hooknames.PreToolCall, hookspec.Answer{Kind: hookspec.Context, Text: "careful"}, hookspec.Answer{}},
		{"post context", DialectClaude, hooknames.PostToolCall, hookspec.Answer{Kind: hookspec.Context, Text: "noted"}, hookspec.Answer{}},
		{"post output", DialectClaude, hooknames.PostToolCall, hookspec.Answer{Output: &out}, hookspec.Answer{}},
		{"prompt block", DialectClaude, hooknames.PreLLMCall, hookspec.Answer{Kind: hookspec.Block, Message: "not here"}, hookspec.Answer{}},
		{"prompt context", DialectClaude, hooknames.PreLLMCall, hookspec.Answer{Kind: hookspec.Context, Text: "remember X"}, hookspec.Answer{}},
		{"start context", DialectClaude, hooknames.OnSessionStart, hookspec.Answer{Kind: hookspec.Context, Text: "branch main"}, hookspec.Answer{}},
		{"keep going", DialectClaude, hooknames.PreVerify, hookspec.Answer{Kind: hookspec.Continue, Message: "run the tests"}, hookspec.Answer{}},
		{"permission allow", DialectClaude, hooknames.PreApprovalRequest, hookspec.Answer{Kind: hookspec.Allow}, hookspec.Answer{}},
		{"permission deny", DialectClaude, hooknames.PreApprovalRequest, hookspec.Answer{Kind: hookspec.Deny, Message: "not on prod"}, hookspec.Answer{}},

		{"block", DialectCodex, hooknames.PreToolCall, hookspec.Answer{Kind: hookspec.Block, Message: "no rm -rf"}, hookspec.Answer{}},
		{"ask is a deny", DialectCodex, hooknames.PreToolCall, hookspec.Answer{Kind: hookspec.Ask, Message: "deploy?"}, hookspec.Answer{Kind: hookspec.Block}},
		{"modify", DialectCodex, hooknames.PreToolCall, hookspec.Answer{Kind: hookspec.Modify, Args: args}, hookspec.Answer{Kind: hookspec.Approve, Args: args}},
		{"prompt block", DialectCodex, hooknames.PreLLMCall, hookspec.Answer{Kind: hookspec.Block, Message: "not here"}, hookspec.Answer{}},
		{"keep going", DialectCodex, hooknames.PreVerify, hookspec.Answer{Kind: hookspec.Continue, Message: "run the tests"}, hookspec.Answer{}},
		{"permission deny", DialectCodex, hooknames.PreApprovalRequest, hookspec.Answer{Kind: hookspec.Deny, Message: "not on prod"}, hookspec.Answer{}},

		{"block", DialectGemini, hooknames.PreToolCall, hookspec.Answer{Kind: hookspec.Block, Message: "no rm -rf"}, hookspec.Answer{}},
		{"ask is a deny", DialectGemini, hooknames.PreToolCall, hookspec.Answer{Kind: hookspec.Ask, Message: "deploy?"}, hookspec.Answer{Kind: hookspec.Block}},
		{"modify", DialectGemini, hooknames.PreToolCall, hookspec.Answer{Kind: hookspec.Modify, Args: args}, hookspec.Answer{}},
		{"post output", DialectGemini, hooknames.PostToolCall, hookspec.Answer{Output: &out}, hookspec.Answer{}},
		{"prompt block", DialectGemini, hooknames.PreLLMCall, hookspec.Answer{Kind: hookspec.Block, Message: "not here"}, hookspec.Answer{}},
		{"prompt context", DialectGemini, hooknames.PreLLMCall, hookspec.Answer{Kind: hookspec.Context, Text: "remember X"}, hookspec.Answer{}},
		{"keep going", DialectGemini, hooknames.PreVerify, hookspec.Answer{Kind: hookspec.Continue, Message: "run the tests"}, hookspec.Answer{}},
	}
	for _, c := range cases {
		t.Run(c.dialect+"/"+c.hook+"/"+c.name, func(t *testing.T) {
			kw := hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}, SessionID: "s1"}.Kwargs(c.hook == hooknames.PostToolCall)
			if c.hook == hooknames.PreApprovalRequest {
				kw = hookspec.Approval{Command: "ls", SessionKey: "s1"}.Kwargs(false)
			}
			payload, err := dialectPayload(c.dialect, c.hook, kw, "/work", dialectTools(c.dialect))
			if err != nil {
				t.Fatal(err)
			}
			call, err := ReadAgentCall(c.dialect, payload, nil)
			if err != nil {
				t.Fatal(err)
			}
			r := call.Reply([]hookspec.Answer{c.answer})
			_, got, problem := dialectOutcome(c.dialect, c.hook, r.Exit, r.Stdout, r.Stderr, dialectTools(c.dialect), kw)
			if problem != "" {
				t.Fatalf("%s reads the reply %+v as a mistake: %s", c.dialect, r, problem)
			}
			want := c.answer
			if c.want.Kind != hookspec.None {
				want = c.want
			}
			if want.Kind == hookspec.Block && c.answer.Kind == hookspec.Ask { // the reason says what needs approval
				if !strings.Contains(got.Message, "deploy?") || !strings.Contains(got.Message, "approval") {
					t.Errorf("the deny standing for an ask says %q", got.Message)
				}
				want.Message = got.Message
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("reply %+v reads back as (-want +got):\n%s", r, diff)
			}
		})
	}
}

// A Codex patch is one call of ours per file it touches, so a guard on write_file or patch
// sees each; a block of one blocks the patch.
func TestCodexPatchIsOneCallPerFile(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: a.txt\n+hello\n*** Update File: b.go\n@@\n-old\n+new\n*** Delete File: c.txt\n*** End Patch\n"
	payload := `{"hook_event_name":"PreToolUse","session_id":"s","tool_name":"apply_patch","tool_input":{"command":` + jsonString(patch) + `}}`
	call, err := ReadAgentCall(DialectCodex, []byte(payload), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range call.Firings {
		got = append(got, f.Kwargs["tool_name"].(string)+" "+f.Kwargs["args"].(map[string]any)["path"].(string))
	}
	if diff := cmp.Diff([]string{"write_file a.txt", "patch b.go", "patch c.txt"}, got); diff != "" {
		t.Fatalf("firings (-want +got):\n%s", diff)
	}
	if a := call.Firings[1].Kwargs["args"].(map[string]any); a["old_string"] != "old" || a["new_string"] != "new" {
		t.Errorf("the update's args are %v", a)
	}
	r := call.Reply([]hookspec.Answer{{}, {Kind: hookspec.Block, Message: "not b.go"}, {}})
	if !strings.Contains(r.Stdout, `"permissionDecision":"deny"`) || !strings.Contains(r.Stdout, "not b.go") {
		t.Errorf("a block of one file answers %+v", r)
	}
	r = call.Reply([]hookspec.Answer{{Kind: hookspec.Modify, Args: map[string]any{"path": "x"}}, {}, {}})
	if !strings.Contains(r.Stdout, `"permissionDecision":"deny"`) {
		t.Errorf("a rewritten patch answers %+v, want a deny", r)
	}
}

// When no decision could be made, a guard's event blocks (exit 2, the reason on stderr);
// an observer's does not.
func TestAgentCallFailsSafe(t *testing.T) {
	for _, c := range []struct {
		d, event string
		exit     int
	}{
		{DialectClaude, "PreToolUse", 2}, {DialectClaude, "UserPromptSubmit", 2}, {DialectClaude, "PermissionRequest", 2},
		{DialectClaude, "PostToolUse", 1}, {DialectClaude, "SessionStart", 1}, {DialectClaude, "Stop", 1},
		{DialectCodex, "PreToolUse", 2}, {DialectGemini, "BeforeTool", 2}, {DialectGemini, "BeforeAgent", 2}, {DialectGemini, "AfterTool", 1},
	} {
		call, err := ReadAgentCall(c.d, []byte(`{"hook_event_name":"`+c.event+`","tool_name":"Bash","tool_input":{}}`), nil)
		if err != nil {
			t.Fatal(err)
		}
		r := call.Failed("home.yaml:3: bad", false)
		if r.Exit != c.exit || !strings.Contains(r.Stderr, "home.yaml:3: bad") {
			t.Errorf("%s %s failed: %+v, want exit %d naming the cause", c.d, c.event, r, c.exit)
		}
		if r := call.Failed("x", true); r.Exit == 2 {
			t.Errorf("%s %s with fail-open blocks", c.d, c.event)
		}
	}
	if _, err := ReadAgentCall(DialectClaude, []byte(`{"tool_name":"Bash"}`), nil); err == nil || !strings.Contains(err.Error(), "hook_event_name") {
		t.Errorf("a payload without an event: %v", err)
	}
	if _, err := ReadAgentCall(DialectClaude, []byte(`{"hook_event_name":`), nil); err == nil {
		t.Error("malformed JSON read without an error")
	}
}

func jsonString(s string) string {
	b, _ := encodePayload(s)
	return strings.TrimSpace(string(b))
}

// FuzzReadAgentCall: any payload reads into a call or an error, never a panic, and the reply
// to any answer of its first hook is one the agent can read (JSON or nothing on stdout).
func FuzzReadAgentCall(f *testing.F) {
	f.Add("claude", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`)
	f.Add("codex", `{"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** Add File: b\n+z\n*** Move to: c\n*** End Patch"}}`)
	f.Add("gemini", `{"hook_event_name":"AfterTool","tool_name":"read_file","tool_input":{"file_path":"x"},"tool_response":{"llmContent":"hi"}}`)
	f.Add("claude", `{"hook_event_name":"SubagentStop","stop_hook_active":true,"agent_id":"a","agent_type":"w"}`)
	f.Add("claude", `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":{"stdout":1},"duration_ms":1e400}`)
	f.Fuzz(func(t *testing.T, d, payload string) {
		call, err := ReadAgentCall(d, []byte(payload), nil)
		if err != nil {
			return
		}
		for _, k := range []hookspec.Kind{hookspec.None, hookspec.Block, hookspec.Ask, hookspec.Modify, hookspec.Approve, hookspec.Continue, hookspec.Context, hookspec.Allow, hookspec.Deny} {
			answers := make([]hookspec.Answer, len(call.Firings))
			if len(answers) > 0 {
				answers[0] = hookspec.Answer{Kind: k, Message: "m", Text: "t", Args: map[string]any{"command": "x"}}
			}
			r := call.Reply(answers)
			if out := strings.TrimSpace(r.Stdout); out != "" && !strings.HasPrefix(out, "{") {
				t.Fatalf("reply %q is not a JSON object", r.Stdout)
			}
			_ = call.AsHTTP(r)
			_ = call.Failed("x", false)
		}
	})
}
