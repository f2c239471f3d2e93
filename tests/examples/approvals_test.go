package examples

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-hooks/hermes/hookspec"
)

// The approvals home: a desktop notifier and the decision log.

func approval(choice string) map[string]any {
	kw := map[string]any{"command": "rm -rf /tmp/x", "description": "recursive delete", "pattern_key": "rm_rf",
		"pattern_keys": []any{"rm_rf"}, "session_key": "telegram:u1:c1", "surface": "gateway"}
	if choice != "" {
		kw["choice"] = choice
	}
	return kw
}

// fakeProgram writes an executable named name into dir that records its arguments, one a
// line, in dir/name.args.
func fakeProgram(t *testing.T, dir, name string) string {
	t.Helper()
	args := filepath.Join(dir, name+".args")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > '" + args + "'\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return args
}

func readArgs(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the notifier was not run: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func TestApprovalNotifySend(t *testing.T) {
	home := install(t, "approvals")
	bin := t.TempDir()
	args := fakeProgram(t, bin, "notify-send")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	eng, logs := newEngine(t, home)
	for _, h := range eng.Fire(context.Background(), hookspec.PreApprovalRequest, approval("")).Hooks {
		if h.Status != hookspec.StatusOK {
			t.Errorf("%s: %s %s", h.Name, h.Status, h.Err)
		}
	}
	want := []string{"Hermes needs approval", "recursive delete: rm -rf /tmp/x"}
	if diff := cmp.Diff(want, readArgs(t, args)); diff != "" {
		t.Errorf("notify-send arguments (-want +got):\n%s", diff)
	}
	if strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("warnings:\n%s", logs)
	}
}

func TestApprovalOsascript(t *testing.T) {
	home := install(t, "approvals")
	bin := t.TempDir()
	args := fakeProgram(t, bin, "osascript")
	t.Setenv("PATH", bin) // no notify-send here: the macOS fallback runs
	eng, _ := newEngine(t, home)
	kw := approval("")
	kw["description"] = `deletes "everything"`
	eng.Fire(context.Background(), hookspec.PreApprovalRequest, kw)
	want := []string{"-e", `display notification "deletes \"everything\": rm -rf /tmp/x" with title "Hermes needs approval"`}
	if diff := cmp.Diff(want, readArgs(t, args)); diff != "" {
		t.Errorf("osascript arguments (-want +got):\n%s", diff)
	}
}

func TestApprovalNoNotifier(t *testing.T) {
	home := install(t, "approvals")
	t.Setenv("PATH", t.TempDir())
	eng, logs := newEngine(t, home)
	for _, h := range eng.Fire(context.Background(), hookspec.PreApprovalRequest, approval("")).Hooks {
		if h.Status != hookspec.StatusOK {
			t.Errorf("%s: %s %s", h.Name, h.Status, h.Err)
		}
	}
	if l := logLines(logs, "no desktop notifier installed"); len(l) != 1 || !strings.Contains(l[0], `tried="notify-send, osascript"`) {
		t.Errorf("want one warning naming both notifiers:\n%s", logs)
	}
}

func TestApprovalLog(t *testing.T) {
	home := install(t, "approvals")
	eng, logs := newEngine(t, home)
	ctx := context.Background()
	eng.Fire(ctx, hookspec.PostApprovalResponse, approval("deny"))
	eng.Fire(ctx, hookspec.PostApprovalResponse, approval("timeout"))
	lines := readJSONLines(t, filepath.Join(home, "logs", "approvals.jsonl"))
	var choices []any
	for _, l := range lines {
		choices = append(choices, l["choice"])
		if l["ts"] == nil {
			t.Errorf("no ts: %v", l)
		}
		delete(l, "ts")
		delete(l, "choice")
		want := map[string]any{"command": "rm -rf /tmp/x", "description": "recursive delete", "pattern_key": "rm_rf",
			"pattern_keys": []any{"rm_rf"}, "session_key": "telegram:u1:c1", "surface": "gateway"}
		if diff := cmp.Diff(want, l); diff != "" {
			t.Errorf("entry (-want +got):\n%s", diff)
		}
	}
	if diff := cmp.Diff([]any{"deny", "timeout"}, choices); diff != "" {
		t.Errorf("choices (-want +got):\n%s", diff)
	}
	if len(logLines(logs, "approval deny: rm -rf /tmp/x for session telegram:u1:c1")) != 1 {
		t.Errorf("no log line for the decision:\n%s", logs)
	}
}
