package examples

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"

	"github.com/google/go-cmp/cmp"
)

// The llm home: plugins around each turn, and a shell hook injecting git status.

const policy = "Never execute commands that delete files without explicit user confirmation."

func turn() hookspec.LLMTurn {
	return hookspec.LLMTurn{SessionID: "s1", UserMessage: "What was I working on?", IsFirstTurn: true, Model: "gpt-4",
		Platform: "telegram", SenderID: "u1", AssistantResponse: "You were working on hermes-agent!"}
}

// installLLM installs the llm home and runs the test outside any git repository, so the
// git-status shell hook has nothing to add unless the test makes a repository.
func installLLM(t *testing.T) string {
	home := install(t, "llm")
	t.Chdir(t.TempDir())
	return home
}

// downURL is the URL of a server that is no longer listening.
func downURL(t *testing.T) string {
	rec := newRecorder(t, nil)
	rec.Close()
	return rec.URL
}

func TestMemoryRecall(t *testing.T) {
	home := installLLM(t)
	memory := newRecorder(t, func(r request) (int, any) {
		if r.Path != "/recall" {
			return http.StatusNotFound, map[string]any{}
		}
		return http.StatusOK, map[string]any{"results": []any{
			map[string]any{"text": "User likes Python"}, map[string]any{"text": "Working on hermes-agent"},
		}}
	})
	t.Setenv("MEMORY_API_URL", memory.URL+"/")
	eng, _ := newEngine(t, home)
	got := eng.DecideTurn(context.Background(), turn()).Context
	want := policy + "\n\nRecalled context:\n- User likes Python\n- Working on hermes-agent"
	if got != want {
		t.Errorf("context =\n%q\nwant\n%q", got, want)
	}
	wantReq := []request{{Method: "POST", Path: "/recall", ContentType: "application/json",
		Body: map[string]any{"session_id": "s1", "query": "What was I working on?"}}}
	if diff := cmp.Diff(wantReq, memory.requests()); diff != "" {
		t.Errorf("memory service requests (-want +got):\n%s", diff)
	}
}

func TestMemoryRecallServiceDown(t *testing.T) {
	home := installLLM(t)
	t.Setenv("MEMORY_API_URL", downURL(t))
	eng, logs := newEngine(t, home)
	rep := eng.Fire(context.Background(), hookspec.PreLLMCall, map[string]any{"session_id": "s1", "user_message": "hi"})
	for _, h := range rep.Hooks {
		if h.Status != hookspec.StatusOK {
			t.Errorf("%s: %s %s", h.Name, h.Status, h.Err)
		}
	}
	if got := rep.Context(); got != policy {
		t.Errorf("context = %q, want only the policy", got)
	}
	if len(logLines(logs, "memory service unavailable; no memories this turn")) != 1 {
		t.Errorf("no debug line about the unavailable service:\n%s", logs)
	}
}

func TestGuardrails(t *testing.T) {
	home := installLLM(t)
	t.Setenv("MEMORY_API_URL", downURL(t))
	eng, _ := newEngine(t, home)
	rep := eng.Fire(context.Background(), hookspec.PreLLMCall, hookspec.SampleKwargs(hooknames.PreLLMCall, ""))
	var got any
	for _, h := range rep.Hooks {
		if h.Name == "guardrails" {
			got = h.Result
		}
	}
	if diff := cmp.Diff(map[string]any{"context": policy}, got); diff != "" {
		t.Errorf("guardrails answer (-want +got):\n%s", diff)
	}
	if rep.Context() != policy {
		t.Errorf("context = %q", rep.Context())
	}
}

func TestMemorySync(t *testing.T) {
	home := installLLM(t)
	memory := newRecorder(t, nil)
	t.Setenv("MEMORY_API_URL", memory.URL)
	eng, _ := newEngine(t, home)
	eng.PostLLMCall(context.Background(), turn())
	want := []request{{Method: "POST", Path: "/store", ContentType: "application/json",
		Body: map[string]any{"session_id": "s1", "user": "What was I working on?", "assistant": "You were working on hermes-agent!"}}}
	if diff := cmp.Diff(want, memory.requests()); diff != "" {
		t.Errorf("memory service requests (-want +got):\n%s", diff)
	}

	// Best effort: a dead service is no failure.
	t.Setenv("MEMORY_API_URL", downURL(t))
	rep := eng.Fire(context.Background(), hookspec.PostLLMCall, map[string]any{"session_id": "s1", "user_message": "a", "assistant_response": "b"})
	for _, h := range rep.Hooks {
		if h.Status != hookspec.StatusOK {
			t.Errorf("%s failed with the service down: %s", h.Name, h.Err)
		}
	}
}

func TestResponseLength(t *testing.T) {
	home := installLLM(t)
	t.Setenv("MEMORY_API_URL", downURL(t))
	eng, logs := newEngine(t, home)
	tt := turn()
	tt.AssistantResponse = "Café ☕ ok" // 9 characters, 12 bytes
	eng.PostLLMCall(context.Background(), tt)
	lines := logLines(logs, "RESPONSE")
	if len(lines) != 1 {
		t.Fatalf("%d RESPONSE lines, want 1:\n%s", len(lines), logs)
	}
	for _, field := range []string{"plugin=response-length", "session_id=s1", "model=gpt-4", "chars=9", "bytes=12"} {
		if !strings.Contains(lines[0], field) {
			t.Errorf("RESPONSE line lacks %s: %s", field, lines[0])
		}
	}
}

func TestPlayfulRewrite(t *testing.T) {
	home := installLLM(t)
	ctx := context.Background()
	eng, _ := newEngine(t, home)
	out := func(text string) string {
		return eng.TransformLLMOutput(ctx, hookspec.LLMOutput{ResponseText: text, SessionID: "s1", Model: "gpt-4", Platform: "cli"})
	}
	// The variable is read on every call: switching it needs no reload.
	t.Setenv("SPONGEBOB_MODE", "")
	if got := out("Done!"); got != "Done!" {
		t.Errorf("mode off: %q", got)
	}
	t.Setenv("SPONGEBOB_MODE", "on")
	if got := out("Done! All clean!"); got != "Done!! Tartar sauce! All clean!! Tartar sauce!" {
		t.Errorf("mode on: %q", got)
	}
	if got := out("Sunny."); got != "Sunny. Tartar sauce!" {
		t.Errorf("mode on, no '!': %q", got)
	}
	t.Setenv("SPONGEBOB_MODE", "off")
	if got := out("Done!"); got != "Done!" {
		t.Errorf("mode off: %q", got)
	}
}

func TestGitStatusShellHook(t *testing.T) {
	needTools(t, "jq", "git")
	home := installLLM(t)
	t.Setenv("MEMORY_API_URL", downURL(t))
	repo := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	t.Chdir(repo) // the agent's working directory
	eng, _ := newEngine(t, home)
	ctx := context.Background()

	if got := eng.DecideTurn(ctx, turn()).Context; got != policy {
		t.Errorf("clean repository: context = %q, want the policy only", got)
	}
	if err := os.WriteFile(filepath.Join(repo, "notes.txt"), []byte("todo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := policy + "\n\nUncommitted changes in the working directory (git status --short):\n?? notes.txt"
	if got := eng.DecideTurn(ctx, turn()).Context; got != want {
		t.Errorf("context =\n%q\nwant\n%q", got, want)
	}
	rep := eng.Fire(ctx, hookspec.PreLLMCall, map[string]any{"session_id": "s1", "user_message": "hi"})
	last := rep.Hooks[len(rep.Hooks)-1]
	if last.Source != hookspec.SourceShell || last.Name != "~/.hermes/agent-hooks/git-status.sh" || last.Status != hookspec.StatusOK {
		t.Errorf("last hook = %+v, want the git-status shell hook", last)
	}
}
