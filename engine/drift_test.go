package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/consent"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// driftHome is a home in pinned mode with one shell hook, bash <payload> <decoy.sh>,
// approved, whose payload (the file bash runs) is then edited to leave a marker. It returns
// the home, the command and the marker's path.
func driftHome(t *testing.T, event, matcher string) (home, command, marker string) {
	t.Helper()
	home = t.TempDir()
	marker = filepath.Join(home, "payload-ran")
	payload := filepath.Join(home, "agent-hooks", "payload")
	decoy := script(t, home, "decoy.sh", "exit 0")
	writeFile(t, payload, "cat >/dev/null\n")
	command = "bash " + payload + " " + decoy
	entry := "    - command: " + command + "\n"
	if matcher != "" {
		entry = "    - matcher: " + matcher + "\n      command: " + command + "\n"
	}
	writeFile(t, filepath.Join(home, "config.yaml"), "hooks_consent: pinned\nhooks:\n  "+event+":\n"+entry)
	store := consent.Open(consent.DefaultPath(home), nil)
	if _, err := store.Approve(context.Background(), event, command); err != nil {
		t.Fatal(err)
	}
	writeFile(t, payload, "cat >/dev/null\ntouch "+marker+"\n")
	return home, command, marker
}

func newDriftEngine(t *testing.T, home string, logs *testutil.Buffer) *Engine {
	t.Helper()
	eng, err := New(context.Background(), Options{Home: home, Logger: newTestLogger(logs), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	return eng
}

// TestPinnedDriftedGuardBlocks: the edited payload behind bash <payload> <decoy.sh> does not
// run; the guard blocks every call it would match, with the command that re-approves it,
// until it is approved again; then it runs.
func TestPinnedDriftedGuardBlocks(t *testing.T) {
	home, command, marker := driftHome(t, "pre_tool_call", "terminal")
	logs := &testutil.Buffer{}
	eng := newDriftEngine(t, home, logs)
	hint := consent.AllowHint("pre_tool_call", command)
	b := eng.DecideTool(context.Background(), call).Block
	if want := "blocked: shell hook \"" + command + "\" needs approval again"; b == nil || b.Message != want {
		t.Fatalf("block = %+v; want %q", b, want)
	}
	if !strings.Contains(logs.String(), hint) {
		t.Errorf("logs do not name %s:\n%s", hint, logs.String())
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the edited payload ran")
	}
	web := call
	web.Name = "web_search"
	if b := eng.DecideTool(context.Background(), web).Block; b != nil {
		t.Errorf("a call the matcher does not select is blocked: %+v", b)
	}
	info := eng.ShellHooks()[0]
	if info.Registered || !info.Blocking || !info.Consent.Drifted {
		t.Errorf("info: registered %v blocking %v drifted %v", info.Registered, info.Blocking, info.Consent.Drifted)
	}
	if !strings.Contains(logs.String(), "blocks every call it would match") || !strings.Contains(logs.String(), "hermesctl hooks allow") {
		t.Errorf("no warning saying it blocks and how to approve it:\n%s", logs.String())
	}

	if _, err := consent.Open(consent.DefaultPath(home), nil).Approve(context.Background(), "pre_tool_call", command); err != nil {
		t.Fatal(err)
	}
	if err := eng.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b := eng.DecideTool(context.Background(), call).Block; b != nil {
		t.Errorf("approved again, still blocked: %+v", b)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("approved again, the hook did not run: %v", err)
	}
}

// TestPinnedDriftedObserverIsSkipped: on a point that cannot block, a drifted hook is
// skipped, with a warning that says how to approve it again.
func TestPinnedDriftedObserverIsSkipped(t *testing.T) {
	home, _, marker := driftHome(t, "post_tool_call", "")
	logs := &testutil.Buffer{}
	eng := newDriftEngine(t, home, logs)
	rep := eng.Fire(context.Background(), hookspec.PostToolCall, call.Kwargs(true))
	if len(rep.Hooks) != 0 {
		t.Errorf("hooks fired: %+v", rep.Hooks)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the edited payload ran")
	}
	info := eng.ShellHooks()[0]
	if info.Registered || info.Blocking || !info.Consent.Drifted {
		t.Errorf("info: registered %v blocking %v drifted %v", info.Registered, info.Blocking, info.Consent.Drifted)
	}
	if !strings.Contains(logs.String(), "skipped (not registered) until it is approved again") || !strings.Contains(logs.String(), "hermesctl hooks allow") {
		t.Errorf("no warning saying it is skipped and how to approve it:\n%s", logs.String())
	}
}
