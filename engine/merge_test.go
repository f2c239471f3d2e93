package engine

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

var call = hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}, SessionID: "s", TaskID: "t", ToolCallID: "c"}

func TestPreToolCallMerge(t *testing.T) {
	invalid := []string{`return "block"`, `return 123`, `return {action="deny", message="x"}`,
		`return {message="x"}`, `error("boom")`}
	for _, body := range invalid {
		t.Run("ignored "+body, func(t *testing.T) {
			e, _ := newEngine(t, testutil.Home(t, pluginFiles("p", "", one("pre_tool_call", body))))
			if b := e.DecideTool(context.Background(), call).Block; b != nil {
				t.Errorf("blocked with %+v, want nil", b)
			}
		})
	}
	for _, body := range []string{`return {action="block"}`, `return {action="block", message=123}`, `return {action="block", message="  "}`, `return {decision="block"}`} {
		t.Run("blocks without a message "+body, func(t *testing.T) {
			e, _ := newEngine(t, testutil.Home(t, pluginFiles("p", "", one("pre_tool_call", body))))
			if b := e.DecideTool(context.Background(), call).Block; b == nil || b.Message != "Blocked by plugin hook." {
				t.Errorf("blocked with %+v, want the default message", b)
			}
		})
	}
	t.Run("first valid block wins, observers after it still run", func(t *testing.T) {
		home := testutil.Home(t, testutil.Merge(
			pluginFiles("a", "", one("pre_tool_call", `return {action="deny"}`)),
			pluginFiles("b", "", one("pre_tool_call", `return {action="block", message="from b"}`)),
			pluginFiles("c", "", one("pre_tool_call", `return {action="block", message="from c"}`)),
			pluginFiles("d", "", "seen = 0\nfunction register(ctx) ctx.register_hook('pre_tool_call', function(kw) seen = seen + 1 end) ctx.register_hook('post_tool_call', function() return seen end) end"),
		))
		e, _ := newEngine(t, home)
		b := e.DecideTool(context.Background(), call).Block
		if diff := cmp.Diff(&Block{Message: "from b", Source: hookspec.SourcePlugin, Hook: "b"}, b); diff != "" {
			t.Errorf("block (-want +got):\n%s", diff)
		}
		rs := e.Fire(context.Background(), hookspec.PostToolCall, nil).Hooks
		if len(rs) != 1 || rs[0].Result != int64(1) {
			t.Errorf("observer after the block ran %v times, want 1", rs)
		}
	})
	t.Run("callback sees the kwargs", func(t *testing.T) {
		e, _ := newEngine(t, testutil.Home(t, pluginFiles("p", "", one("pre_tool_call",
			`if kw.tool_name == "terminal" and kw.args.command == "ls" and kw.session_id == "s" and kw.task_id == "t" and kw.tool_call_id == "c" then return {action="block", message="saw all"} end`))))
		if b := e.DecideTool(context.Background(), call).Block; b == nil || b.Message != "saw all" {
			t.Errorf("got %+v", b)
		}
	})
}

func TestPreLLMCallMerge(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		pluginFiles("ccc", "", one("pre_llm_call", `return {context = "from ccc"}`)),
		pluginFiles("aaa", "", one("pre_llm_call", `return {context = "from aaa"}`)),
		pluginFiles("bbb", "", one("pre_llm_call", `return "plain string from bbb"`)),
		pluginFiles("bba", "", one("pre_llm_call", `return "   "`)),
		pluginFiles("bbc", "", one("pre_llm_call", `return {context = ""}`)),
		pluginFiles("bbd", "", one("pre_llm_call", `return {context = 5}`)),
		pluginFiles("bbe", "", one("pre_llm_call", `error("x")`)),
	))
	e, _ := newEngine(t, home)
	got := e.DecideTurn(context.Background(), hookspec.LLMTurn{SessionID: "s", UserMessage: "hi"}).Context
	want := "from aaa\n\nplain string from bbb\n\nfrom ccc"
	if got != want {
		t.Errorf("context = %q, want %q", got, want)
	}
}

func TestTransformMerge(t *testing.T) {
	tests := []struct {
		name, hook string
		bodies     []string
		want       string
	}{
		{"empty string wins for tool result", hooknames.TransformToolResult, []string{`return ""`, `return "second"`}, ""},
		{"non-strings ignored", hooknames.TransformToolResult, []string{`return {output = "x"}`, `return 5`, `return "third"`}, "third"},
		{"the result key counts", hooknames.TransformToolResult, []string{`return {result = "x"}`, `return "second"`}, "x"},
		{"failing callback keeps original", hooknames.TransformToolResult, []string{`error("boom")`}, "orig"},
		{"nil keeps original", hooknames.TransformToolResult, []string{`return nil`}, "orig"},
		{"empty string ignored for llm output", hooknames.TransformLLMOutput, []string{`return ""`, `return "rewritten"`}, "rewritten"},
		{"llm output failing keeps original", hooknames.TransformLLMOutput, []string{`error("boom")`}, "orig"},
		{"terminal output empty wins", hooknames.TransformTerminalOutput, []string{`return ""`}, ""},
		{"terminal output sees kwargs", hooknames.TransformTerminalOutput, []string{`return kw.command .. "|" .. kw.output .. "|" .. kw.exit_code .. "|" .. kw.cwd .. "|" .. kw.task_id`}, "ls|orig|2|/w|t"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			for i, b := range tt.bodies {
				files = testutil.Merge(files, pluginFiles(string(rune('a'+i)), "", one(tt.hook, b)))
			}
			e, _ := newEngine(t, testutil.Home(t, files))
			var got string
			ctx := context.Background()
			switch tt.hook {
			case hooknames.TransformToolResult:
				c := call
				c.Result = "orig"
				got = e.TransformToolResult(ctx, c)
			case hooknames.TransformLLMOutput:
				got = e.TransformLLMOutput(ctx, hookspec.LLMOutput{ResponseText: "orig"})
			case hooknames.TransformTerminalOutput:
				got = e.TransformTerminalOutput(ctx, hookspec.TerminalOutput{Command: "ls", Output: "orig", ExitCode: 2, Cwd: "/w", TaskID: "t"})
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDispatchMerge(t *testing.T) {
	tests := []struct {
		name   string
		bodies []string
		want   Dispatch
	}{
		{"no answer allows", []string{`return nil`}, Dispatch{Action: DispatchAllow}},
		{"skip", []string{`return {action="skip", reason="unauthorised"}`}, Dispatch{Action: DispatchSkip, Reason: "unauthorised", Hook: "a"}},
		{"rewrite", []string{`return {action="rewrite", text="new " .. kw.event.text}`}, Dispatch{Action: DispatchRewrite, Text: "new hello", Hook: "a"}},
		{"allow ends the scan", []string{`return {action="allow"}`, `return {action="skip"}`}, Dispatch{Action: DispatchAllow, Hook: "a"}},
		{"rewrite without text ends the scan", []string{`return {action="rewrite", text=5}`, `return {action="skip"}`}, Dispatch{Action: DispatchAllow, Hook: "a"}},
		{"unknown actions and non-tables skipped", []string{`return {action="drop"}`, `return "skip"`, `error("x")`, `return {action="skip"}`}, Dispatch{Action: DispatchSkip, Hook: "d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			for i, b := range tt.bodies {
				files = testutil.Merge(files, pluginFiles(string(rune('a'+i)), "", one(hooknames.PreGatewayDispatch, b)))
			}
			e, _ := newEngine(t, testutil.Home(t, files))
			got := e.PreGatewayDispatch(context.Background(), hookspec.DispatchEvent{Text: "hello", Platform: "telegram"}, DispatchHost{})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("dispatch (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("internal events never fire the hook", func(t *testing.T) {
		e, _ := newEngine(t, testutil.Home(t, pluginFiles("a", "", one(hooknames.PreGatewayDispatch, `return {action="skip"}`))))
		if got := e.PreGatewayDispatch(context.Background(), hookspec.DispatchEvent{Text: "x", Internal: true}, DispatchHost{}); got.Action != DispatchAllow {
			t.Errorf("internal event: %+v", got)
		}
	})
	t.Run("host objects answer both call styles", func(t *testing.T) {
		var sent [][]any
		send := hookspec.Func(func(_ context.Context, a []any) (any, error) { sent = append(sent, a); return nil, nil })
		e, _ := newEngine(t, testutil.Home(t, pluginFiles("a", "", one(hooknames.PreGatewayDispatch,
			`kw.gateway.send("dot") kw.gateway:send("colon") kw.session_store:Append("method") kw.session_store:append("lower")
			 kw.session_store.append("object dot") kw.session_store.Append("object Dot") return {action="skip"}`))))
		e.PreGatewayDispatch(context.Background(), hookspec.DispatchEvent{}, DispatchHost{
			Gateway: map[string]any{"send": send}, SessionStore: hookspec.Object{V: &facade{send: send}}})
		if diff := cmp.Diff([][]any{{"dot"}, {"colon"}, {"method"}, {"lower"}, {"object dot"}, {"object Dot"}}, sent); diff != "" {
			t.Errorf("calls (-want +got):\n%s", diff)
		}
	})
	t.Run("host objects are callable", func(t *testing.T) {
		var sent []any
		host := DispatchHost{Gateway: map[string]any{"send": hookspec.Func(func(_ context.Context, a []any) (any, error) { sent = a; return nil, nil })}}
		e, _ := newEngine(t, testutil.Home(t, pluginFiles("a", "", one(hooknames.PreGatewayDispatch, `kw.gateway.send(kw.event.platform, kw.event.chat_id, "denied") return {action="skip"}`))))
		e.PreGatewayDispatch(context.Background(), hookspec.DispatchEvent{Platform: "telegram", ChatID: "c1"}, DispatchHost{Gateway: host.Gateway})
		if diff := cmp.Diff([]any{"telegram", "c1", "denied"}, sent); diff != "" {
			t.Errorf("gateway.send args (-want +got):\n%s", diff)
		}
	})
}

// facade is a facade built for Lua, as a host would hand one over in an Object.
type facade struct{ send hookspec.Func }

func (s *facade) Append(text string) { s.send(context.Background(), []any{text}) }
