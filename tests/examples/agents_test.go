package examples

import (
	"context"
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/server"
	"github.com/hermes-hooks/hermes/shell"
)

// agentCall is a payload as an agent sends it to its command hooks (the shape of each
// agent's published hook reference), and the kwargs of ours it stands for, written by hand.
type agentCall struct {
	name, dialect, payload string
	hook                   string
	kwargs                 map[string]any
}

var agentCalls = []agentCall{
	{"rm", shell.DialectClaude, `{"session_id":"abc123","transcript_path":"/home/u/.claude/projects/p/abc123.jsonl","cwd":"/home/u/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /","description":"Clean up"},"tool_use_id":"toolu_01"}`,
		hooknames.PreToolCall, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "rm -rf /", "description": "Clean up"}, SessionID: "abc123", ToolCallID: "toolu_01"}.Kwargs(false)},
	{"ls", shell.DialectClaude, `{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/home/u/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la"},"tool_use_id":"toolu_02"}`,
		hooknames.PreToolCall, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls -la"}, SessionID: "abc123", ToolCallID: "toolu_02"}.Kwargs(false)},
	{"chmod", shell.DialectClaude, `{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/home/u/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"chmod -R 777 /"},"tool_use_id":"toolu_03"}`,
		hooknames.PreToolCall, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "chmod -R 777 /"}, SessionID: "abc123", ToolCallID: "toolu_03"}.Kwargs(false)},
	{"write", shell.DialectClaude, `{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/home/u/p","permission_mode":"acceptEdits","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/home/u/p/.env","content":"KEY=1\n"},"tool_use_id":"toolu_04"}`,
		hooknames.PreToolCall, hookspec.ToolCall{Name: "write_file", Args: map[string]any{"path": "/home/u/p/.env", "content": "KEY=1\n"}, SessionID: "abc123", ToolCallID: "toolu_04"}.Kwargs(false)},
	{"bash result", shell.DialectClaude, `{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/home/u/p","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"echo ok"},"tool_response":{"stdout":"ok\n","stderr":"","interrupted":false,"isImage":false},"tool_use_id":"toolu_05"}`,
		hooknames.PostToolCall, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "echo ok"}, SessionID: "abc123", ToolCallID: "toolu_05",
			Result: `{"interrupted":false,"isImage":false,"output":"ok\n","stderr":"","stdout":"ok\n"}`}.Kwargs(true)},
	{"prompt", shell.DialectClaude, `{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/home/u/p","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"What changed since yesterday?"}`,
		hooknames.PreLLMCall, hookspec.LLMTurn{SessionID: "abc123", UserMessage: "What changed since yesterday?", Platform: "claude-code"}.PreKwargs()},
	{"start", shell.DialectClaude, `{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/home/u/p","hook_event_name":"SessionStart","source":"startup","model":"claude-sonnet-4-5"}`,
		hooknames.OnSessionStart, hookspec.Session{SessionID: "abc123", Model: "claude-sonnet-4-5", Platform: "claude-code"}.StartKwargs()},
	{"stop", shell.DialectClaude, `{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/home/u/p","permission_mode":"default","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"Done."}`,
		hooknames.PreVerify, hookspec.Verify{SessionID: "abc123", Response: "Done.", Platform: "claude-code"}.Kwargs()},
	{"permission", shell.DialectClaude, `{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/home/u/p","permission_mode":"default","hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf /tmp/x","description":"recursive delete"},"permission_suggestions":[]}`,
		hooknames.PreApprovalRequest, hookspec.Approval{Command: "rm -rf /tmp/x", Description: "recursive delete", SessionKey: "abc123", Surface: "claude-code"}.Kwargs(false)},

	{"rm", shell.DialectCodex, `{"session_id":"019a-1","transcript_path":null,"cwd":"/home/u/p","hook_event_name":"PreToolUse","model":"gpt-5-codex","turn_id":"t1","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"tool_use_id":"call_1"}`,
		hooknames.PreToolCall, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "rm -rf /"}, SessionID: "019a-1", ToolCallID: "call_1"}.Kwargs(false)},
	{"prompt", shell.DialectCodex, `{"session_id":"019a-1","transcript_path":null,"cwd":"/home/u/p","hook_event_name":"UserPromptSubmit","model":"gpt-5-codex","turn_id":"t2","prompt":"Fix the build"}`,
		hooknames.PreLLMCall, hookspec.LLMTurn{SessionID: "019a-1", UserMessage: "Fix the build", Model: "gpt-5-codex", Platform: "codex"}.PreKwargs()},

	{"rm", shell.DialectGemini, `{"session_id":"g-1","transcript_path":"/t.json","cwd":"/home/u/p","hook_event_name":"BeforeTool","timestamp":"2026-12-07T10:00:00Z","tool_name":"run_shell_command","tool_input":{"command":"rm -rf /"}}`,
		hooknames.PreToolCall, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "rm -rf /"}, SessionID: "g-1"}.Kwargs(false)},
	{"write", shell.DialectGemini, `{"session_id":"g-1","transcript_path":"/t.json","cwd":"/home/u/p","hook_event_name":"BeforeTool","timestamp":"2026-12-07T10:00:00Z","tool_name":"write_file","tool_input":{"file_path":"/home/u/p/.env","content":"KEY=1\n"}}`,
		hooknames.PreToolCall, hookspec.ToolCall{Name: "write_file", Args: map[string]any{"path": "/home/u/p/.env", "content": "KEY=1\n"}, SessionID: "g-1"}.Kwargs(false)},
	{"prompt", shell.DialectGemini, `{"session_id":"g-1","transcript_path":"/t.json","cwd":"/home/u/p","hook_event_name":"BeforeAgent","timestamp":"2026-12-07T10:00:00Z","prompt":"Summarise the diff"}`,
		hooknames.PreLLMCall, hookspec.LLMTurn{SessionID: "g-1", UserMessage: "Summarise the diff", Platform: "gemini-cli"}.PreKwargs()},
}

// Every example home's hooks, fired through an agent's command hook (`hermesctl hook
// <agent>`) with payloads as each agent sends them, give the answer the engine's own
// decision on the same call maps to: the payload reads into the kwargs written by hand, and
// the reply equals the one built from Fire on those kwargs.
func TestExamplesAnswerAgentsAsTheEngineDecides(t *testing.T) {
	decided := map[string]int{} // dialect -> calls some hook changed
	for _, name := range []string{"tools", "llm", "sessions", "approvals"} {
		home := install(t, name)
		eng, _ := newEngine(t, home)
		for _, c := range agentCalls {
			t.Run(name+"/"+c.dialect+"/"+c.name, func(t *testing.T) {
				call, err := shell.ReadAgentCall(c.dialect, []byte(c.payload), nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(call.Firings) == 0 || call.Firings[0].Hook != c.hook {
					t.Fatalf("fires %+v, want %s first", call.Firings, c.hook)
				}
				if diff := cmp.Diff(c.kwargs, call.Firings[0].Kwargs); diff != "" {
					t.Fatalf("the payload reads as (-written by hand +read):\n%s", diff)
				}
				got := server.AnswerAgent(context.Background(), eng, call, false, slog.New(slog.DiscardHandler))
				want := call.Reply(directAnswers(t, eng, call, c.kwargs))
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("the agent's answer (-from Fire +through the command hook):\n%s", diff)
				}
				if got.Stdout != "" || got.Exit != 0 {
					decided[c.dialect]++
				}
			})
		}
	}
	for _, d := range shell.Dialects { // the comparison is not one of empty answers
		if decided[d] < 2 {
			t.Errorf("%s: only %d calls got an answer from the examples' hooks", d, decided[d])
		}
	}
}

// directAnswers is the engine's own decision on each firing of call, the first on kwargs.
func directAnswers(t *testing.T, eng *engine.Engine, call *shell.AgentCall, kwargs map[string]any) []hookspec.Answer {
	out := make([]hookspec.Answer, len(call.Firings))
	for i, f := range call.Firings {
		kw := f.Kwargs
		if i == 0 {
			kw = kwargs
		}
		if f.Hook == hooknames.PreVerify {
			v := hookspec.Verify{SessionID: kw["session_id"].(string), Response: kw["response"].(string), Platform: kw["platform"].(string)}
			if d := eng.PreVerify(context.Background(), v); d.Continue {
				out[i] = hookspec.Answer{Kind: hookspec.Continue, Message: d.Reason}
			}
			continue
		}
		rep := eng.Fire(context.Background(), hookspec.HookNamed(f.Hook), kw)
		d := rep.Decision
		out[i] = hookspec.Answer{Kind: d.Kind, Message: d.Message, Text: d.Text, Args: d.Args, Remember: d.Remember, Output: d.Output}
		if b := rep.Block(); b != nil && d.Message == "" {
			out[i].Message = "blocked by hook " + b.Hook
		}
	}
	return out
}
