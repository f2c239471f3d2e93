package examples

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/gateway/runner"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/hookspec"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// The sessions home: session lifecycle and subagent observers, and a shell hook.

func replaySessions(t *testing.T, home string) (runner.Timeline, *testutil.Buffer) {
	t.Helper()
	logs := &testutil.Buffer{}
	// Two turns of one session (two tool calls), a reset, a subagent and a shutdown.
	tl, err := replayFile(context.Background(), filepath.Join(exampleDir("sessions"), "transcript.jsonl"), gateway.Options{Engine: engine.Options{Home: home, Logger: newLogger(logs), AcceptHooks: true}})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tl.Events {
		for _, h := range e.Hooks {
			if h.Status != hookspec.StatusOK {
				t.Errorf("%s: %s %s: %s", e.Event, h.Name, h.Status, h.Err)
			}
		}
	}
	return tl, logs
}

func TestSessionCache(t *testing.T) {
	home := install(t, "sessions")
	_, logs := replaySessions(t, home)
	lines := readJSONLines(t, filepath.Join(home, "logs", "sessions.jsonl"))
	if len(lines) != 1 {
		t.Fatalf("%d session summaries, want 1 (the reset's new session never started a turn): %v", len(lines), lines)
	}
	s := lines[0]
	id, _ := s["session_id"].(string)
	if id == "" || s["started_at"] == nil {
		t.Errorf("summary without session_id or started_at: %v", s)
	}
	if sec, ok := s["seconds"].(float64); !ok || sec < 0 || sec > 60 {
		t.Errorf("seconds = %v", s["seconds"])
	}
	for _, k := range []string{"session_id", "started_at", "seconds", "model"} {
		delete(s, k)
	}
	want := map[string]any{"platform": "telegram", "turns": 2.0, "completed": 2.0, "interrupted": 0.0, "failed": 0.0, "tool_calls": 2.0}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	turns := logLines(logs, "Session "+id+" turn ended: completed, 2 tool calls so far")
	if len(turns) != 2 {
		t.Errorf("want 2 per-turn lines for %s:\n%s", id, logs)
	}
}

// TestSessionCacheCleanup: the cache is dropped at finalize, so a session is summarised once
// and a finalize for an unknown (or nil) session writes nothing.
func TestSessionCacheCleanup(t *testing.T) {
	home := install(t, "sessions")
	eng, _ := newEngine(t, home)
	ctx := context.Background()
	eng.Fire(ctx, hookspec.OnSessionStart, map[string]any{"session_id": "s1", "model": "gpt-4", "platform": "cli"})
	eng.Fire(ctx, hookspec.OnSessionEnd, map[string]any{"session_id": "s1", "completed": false, "interrupted": true, "model": "gpt-4", "platform": "cli"})
	for _, id := range []any{"s1", "s1", nil, "never-started"} {
		eng.Fire(ctx, hookspec.OnSessionFinalize, map[string]any{"session_id": id, "platform": "cli"})
	}
	lines := readJSONLines(t, filepath.Join(home, "logs", "sessions.jsonl"))
	if len(lines) != 1 || lines[0]["session_id"] != "s1" || lines[0]["interrupted"] != 1.0 || lines[0]["model"] != "gpt-4" {
		t.Errorf("summaries = %v, want one for s1 with its interrupted turn", lines)
	}
}

func TestSessionDuration(t *testing.T) {
	home := install(t, "sessions")
	_, logs := replaySessions(t, home)
	lines := logLines(logs, "SESSION_DURATION")
	if len(lines) != 2 {
		t.Fatalf("%d SESSION_DURATION lines, want one per turn (2):\n%s", len(lines), logs)
	}
	for _, l := range lines {
		for _, field := range []string{"plugin=session-duration", "seconds=", "completed=true", "interrupted=false", "session_id="} {
			if !strings.Contains(l, field) {
				t.Errorf("line lacks %s: %s", field, l)
			}
		}
	}
}

func TestSubagentLog(t *testing.T) {
	home := install(t, "sessions")
	eng, logs := newEngine(t, home)
	eng.Fire(context.Background(), hookspec.SubagentStop, map[string]any{"parent_session_id": "parent-1", "child_role": "analyst",
		"child_summary": "done", "child_status": "completed", "duration_ms": 5000})
	lines := logLines(logs, "SUBAGENT")
	if len(lines) != 1 {
		t.Fatalf("%d SUBAGENT lines, want 1:\n%s", len(lines), logs)
	}
	for _, field := range []string{"plugin=subagent-log", "parent=parent-1", "role=analyst", "status=completed", "duration_ms=5000"} {
		if !strings.Contains(lines[0], field) {
			t.Errorf("SUBAGENT line lacks %s: %s", field, lines[0])
		}
	}
}

func TestLogSubagentShellHook(t *testing.T) {
	needTools(t, "jq")
	home := install(t, "sessions")
	eng, _ := newEngine(t, home)
	ctx := context.Background()
	eng.Fire(ctx, hookspec.SubagentStop, map[string]any{"parent_session_id": "parent-1", "child_role": "analyst",
		"child_summary": "Summarised 3 reports", "child_status": "completed", "duration_ms": 5000})
	eng.Fire(ctx, hookspec.SubagentStop, map[string]any{"parent_session_id": "parent-1", "child_role": nil,
		"child_summary": nil, "child_status": "failed", "duration_ms": 12})
	// HERMES_HOME is unset: the script writes to ~/.hermes/logs, the installed home.
	lines := readJSONLines(t, filepath.Join(home, "logs", "orchestration.jsonl"))
	for _, l := range lines {
		if l["ts"] == nil {
			t.Errorf("no ts: %v", l)
		}
		delete(l, "ts")
	}
	want := []map[string]any{
		{"parent": "parent-1", "extra": map[string]any{"child_role": "analyst", "child_summary": "Summarised 3 reports", "child_status": "completed", "duration_ms": 5000.0}},
		{"parent": "parent-1", "extra": map[string]any{"child_role": nil, "child_summary": nil, "child_status": "failed", "duration_ms": 12.0}},
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("orchestration.jsonl (-want +got):\n%s", diff)
	}
}

// The session's cache lives in the store: a reload of the plugin in the middle of a session,
// or a second process on the home, finishes its summary with every turn counted.
func TestSessionCacheAcrossReloadAndProcesses(t *testing.T) {
	home := install(t, "sessions")
	ctx := context.Background()
	end := map[string]any{"session_id": "s1", "completed": true, "interrupted": false, "model": "gpt-4", "platform": "cli"}
	eng, _ := newEngine(t, home)
	eng.Fire(ctx, hookspec.OnSessionStart, map[string]any{"session_id": "s1", "model": "gpt-4", "platform": "cli"})
	eng.Fire(ctx, hookspec.OnSessionEnd, end)
	if err := eng.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	eng.Fire(ctx, hookspec.PostToolCall, map[string]any{"tool_name": "terminal", "args": map[string]any{}, "session_id": "s1", "result": "{}", "duration_ms": 1})
	other, _ := newEngine(t, home) // another gateway process on the same home
	other.Fire(ctx, hookspec.OnSessionEnd, end)
	other.Fire(ctx, hookspec.OnSessionFinalize, map[string]any{"session_id": "s1", "platform": "cli"})
	lines := readJSONLines(t, filepath.Join(home, "logs", "sessions.jsonl"))
	if len(lines) != 1 || lines[0]["turns"] != 2.0 || lines[0]["tool_calls"] != 1.0 {
		t.Errorf("summaries = %v, want one for s1 with 2 turns and 1 tool call", lines)
	}
}
