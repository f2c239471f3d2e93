package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// redactor is a home whose hooks change everything that leaves the process: the prompt
// (a pre_llm_call guard), the request to the model (pre_api_request removes a secret), the
// chain around the model call, and the three transforms.
var redactor = func() map[string]string {
	files := pluginFiles("redact", "", `
function register(ctx)
  ctx.register_hook("pre_llm_call", function(kw)
    if kw.user_message:find("secret", 1, true) then return {action = "block", message = "no secrets"} end
  end)
  ctx.register_hook("pre_api_request", function(kw)
    return {action = "modify", request = {system = "redacted"}}
  end)
  ctx.register_hook("transform_tool_result", function(kw) return "redacted" end)
  ctx.register_hook("transform_terminal_output", function(kw) return "redacted" end)
  ctx.register_hook("transform_llm_output", function(kw) return "redacted" end)
end`)
	return files
}()

// After Close, no call at a point whose hooks could change what leaves the process goes
// on as if they had run: the model is not called, the prompt is blocked, and the
// transforms withhold their input.
func TestClosedEngineWithholds(t *testing.T) {
	e, _ := newEngine(t, testutil.Home(t, redactor))
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	called := false
	run := e.RunLLM(ctx, hookspec.LLMRequest{System: "the secret"}, func(context.Context, hookspec.LLMRequest) (hookspec.LLMResponse, error) {
		called = true
		return hookspec.LLMResponse{Content: "hi"}, nil
	})
	if called || run.Calls != 0 || !errors.Is(run.Err, ErrClosed) || !strings.Contains(run.Err.Error(), "pre_api_request") {
		t.Errorf("RunLLM after Close: model called %v, run %+v; want no call and an error naming pre_api_request and ErrClosed", called, run)
	}
	if d := e.DecideTurn(ctx, hookspec.LLMTurn{UserMessage: "the secret"}); d.Block == nil || !strings.Contains(d.Block.Message, "hook engine closed") || d.Block.Source != hookspec.SourceEngine {
		t.Errorf("DecideTurn after Close = %+v, want a block saying the hook engine is closed", d)
	}
	if got := e.TransformToolResult(ctx, hookspec.ToolCall{Name: "read", Result: "the secret"}); got != `{"error":"[withheld: hook engine closed]"}` {
		t.Errorf("TransformToolResult after Close = %q, want the withheld error result", got)
	}
	if got := e.TransformTerminalOutput(ctx, hookspec.TerminalOutput{Output: "the secret"}); got != withheldText {
		t.Errorf("TransformTerminalOutput after Close = %q, want %q", got, withheldText)
	}
	if got := e.TransformLLMOutput(ctx, hookspec.LLMOutput{ResponseText: "the secret"}); got != withheldText {
		t.Errorf("TransformLLMOutput after Close = %q, want %q", got, withheldText)
	}
}

// A wrap_llm_call chain alone is enough for RunLLM to refuse after Close.
func TestClosedEngineWithWrapLLMCall(t *testing.T) {
	e, _ := newEngine(t, testutil.Home(t, pluginFiles("w", "", wrapHandler("wrap_llm_call", "return next()"))))
	e.Close(context.Background())
	called := false
	run := e.RunLLM(context.Background(), hookspec.LLMRequest{}, func(context.Context, hookspec.LLMRequest) (hookspec.LLMResponse, error) {
		called = true
		return hookspec.LLMResponse{}, nil
	})
	if called || !errors.Is(run.Err, ErrClosed) || !strings.Contains(run.Err.Error(), "wrap_llm_call") {
		t.Errorf("RunLLM after Close: model called %v, err %v", called, run.Err)
	}
}

// Where the home had no hooks, a closed engine has nothing to withhold: the model is
// called and outputs pass unchanged.
func TestClosedEngineWithoutTransformsPassesOutputs(t *testing.T) {
	e, _ := newEngine(t, testutil.Home(t, guard))
	e.Close(context.Background())
	ctx := context.Background()
	run := e.RunLLM(ctx, hookspec.LLMRequest{}, func(context.Context, hookspec.LLMRequest) (hookspec.LLMResponse, error) {
		return hookspec.LLMResponse{Content: "hi"}, nil
	})
	if run.Err != nil || run.Calls != 1 || run.Response.Content != "hi" {
		t.Errorf("RunLLM after Close of a home without model hooks = %+v", run)
	}
	if got := e.TransformLLMOutput(ctx, hookspec.LLMOutput{ResponseText: "out"}); got != "out" {
		t.Errorf("TransformLLMOutput = %q, want its input", got)
	}
	if d := e.DecideTurn(ctx, hookspec.LLMTurn{UserMessage: "hi"}); d.Block != nil {
		t.Errorf("DecideTurn = %+v, want no block: the home had no pre_llm_call hook", d)
	}
}

// A call in flight whose hook Close ends (its deadline passed) is refused: the model is
// not called with a request the redaction never saw, and an output the transform never
// saw is withheld.
func TestCloseEndingAHookRefusesTheCall(t *testing.T) {
	for _, tc := range []struct {
		hook string
		call func(e *Engine) (leaked bool, what string)
	}{
		{"pre_api_request", func(e *Engine) (bool, string) {
			called := false
			run := e.RunLLM(context.Background(), hookspec.LLMRequest{System: "the secret"}, func(context.Context, hookspec.LLMRequest) (hookspec.LLMResponse, error) {
				called = true
				return hookspec.LLMResponse{}, nil
			})
			return called || !errors.Is(run.Err, ErrClosed), "model called: " + boolText(called) + ", err: " + errText(run.Err)
		}},
		{"wrap_llm_call", func(e *Engine) (bool, string) {
			called := false
			run := e.RunLLM(context.Background(), hookspec.LLMRequest{System: "the secret"}, func(context.Context, hookspec.LLMRequest) (hookspec.LLMResponse, error) {
				called = true
				return hookspec.LLMResponse{}, nil
			})
			return called || !errors.Is(run.Err, ErrClosed), "model called: " + boolText(called) + ", err: " + errText(run.Err)
		}},
		{"wrap_tool_call", func(e *Engine) (bool, string) {
			ran := false
			run := e.RunTool(context.Background(), hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}}, func(context.Context, hookspec.ToolCall) (string, error) {
				ran = true
				return "", nil
			})
			return ran || run.Block == nil, "tool ran: " + boolText(ran)
		}},
		{"transform_llm_output", func(e *Engine) (bool, string) {
			got := e.TransformLLMOutput(context.Background(), hookspec.LLMOutput{ResponseText: "the secret"})
			return got != withheldText, got
		}},
		{"transform_tool_result", func(e *Engine) (bool, string) {
			got := e.TransformToolResult(context.Background(), hookspec.ToolCall{Name: "read", Result: "the secret"})
			return strings.Contains(got, "secret") || !strings.Contains(got, "withheld"), got
		}},
		{"pre_llm_call", func(e *Engine) (bool, string) {
			d := e.DecideTurn(context.Background(), hookspec.LLMTurn{UserMessage: "the secret"})
			if d.Block == nil {
				return true, "not blocked"
			}
			return false, d.Block.Message
		}},
	} {
		t.Run(tc.hook, func(t *testing.T) {
			funcs, started, _ := hostGate()
			// The hook never ends by itself: only Close's interruption ends it, whenever the
			// wait returns.
			body := `local h = require("hermes"); h.started("x"); h.wait(); while true do end`
			handler := one(tc.hook, body)
			if tc.hook == "wrap_llm_call" || tc.hook == "wrap_tool_call" {
				handler = wrapHandler(tc.hook, body)
			}
			home := testutil.Home(t, pluginFiles("slow", "timeout: 60\n", handler))
			e := engineWith(t, home, Options{HostFuncs: funcs})
			type outcome struct {
				leaked bool
				what   string
			}
			done := make(chan outcome)
			go func() {
				leaked, what := tc.call(e)
				done <- outcome{leaked, what}
			}()
			<-started
			ctx, cancel := context.WithCancel(context.Background())
			cancel() // Close gives up waiting at once and ends the hook in flight
			if err := e.Close(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("Close = %v", err)
			}
			if o := <-done; o.leaked {
				t.Errorf("the call in flight went on without its %s hook: %s", tc.hook, o.what)
			}
		})
	}
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
