package consent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const originalFixture = `{"approvals": [{"event": "pre_tool_call", "command": "~/.hermes/agent-hooks/block.sh",
                "approved_at": "2026-04-21T10:15:30.123456Z",
                "script_mtime_at_approval": "2026-04-20T09:00:00Z",
                "script_sha256": "…", "note": "kept"}],
 "version": 7}
`

var timeFormat = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$`)

func TestOriginalFormatRoundTrip(t *testing.T) {
	s, _, _ := testStore(t)
	writeFile(t, s.Path(), originalFixture, 0o644)

	got, err := s.Approvals()
	if err != nil {
		t.Fatal(err)
	}
	want := []Approval{{
		Event:        "pre_tool_call",
		Command:      "~/.hermes/agent-hooks/block.sh",
		ApprovedAt:   time.Date(2026, 4, 21, 10, 15, 30, 123456000, time.UTC),
		ScriptMtime:  "2026-04-20T09:00:00Z",
		ScriptSHA256: "…",
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Approvals() mismatch (-want +got):\n%s", diff)
	}

	added, err := s.Approve(context.Background(), "post_tool_call", "/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after Approve = %v, want 0600", fi.Mode().Perm())
	}

	var raw struct {
		Approvals []map[string]any `json:"approvals"`
		Version   int              `json:"version"`
	}
	data, _ := os.ReadFile(s.Path())
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("rewritten file is not JSON: %v\n%s", err, data)
	}
	if raw.Version != 7 {
		t.Errorf("top-level unknown field: version = %d, want 7", raw.Version)
	}
	wantFirst := map[string]any{
		"event": "pre_tool_call", "command": "~/.hermes/agent-hooks/block.sh",
		"approved_at": "2026-04-21T10:15:30.123456Z", "script_mtime_at_approval": "2026-04-20T09:00:00Z",
		"script_sha256": "…", "note": "kept",
	}
	if len(raw.Approvals) != 2 {
		t.Fatalf("got %d entries, want 2:\n%s", len(raw.Approvals), data)
	}
	if diff := cmp.Diff(wantFirst, raw.Approvals[0]); diff != "" {
		t.Errorf("untouched entry changed (-want +got):\n%s", diff)
	}
	second := raw.Approvals[1]
	if second["event"] != "post_tool_call" || second["command"] != "/bin/true" {
		t.Errorf("new entry = %v", second)
	}
	for _, f := range []string{"approved_at", "script_mtime_at_approval"} {
		if s, _ := second[f].(string); !timeFormat.MatchString(s) {
			t.Errorf("new entry %s = %v, want RFC 3339 UTC like the original", f, second[f])
		}
	}
	if sha, _ := second["script_sha256"].(string); len(sha) != 64 {
		t.Errorf("new entry script_sha256 = %v, want 64 hex digits", second["script_sha256"])
	}

	// What Approve returns is what a fresh reader parses back.
	fresh := Open(s.Path(), nil)
	back, ok := fresh.Lookup("post_tool_call", "/bin/true")
	if !ok {
		t.Fatal("new approval not found by a fresh Store")
	}
	if diff := cmp.Diff(added, back); diff != "" {
		t.Errorf("round trip mismatch (-approved +read):\n%s", diff)
	}
}

func TestNullMtimeAndMissingHash(t *testing.T) {
	// The original writes null when the script cannot be stat'ed, and no hash at all.
	s, _, _ := testStore(t)
	writeFile(t, s.Path(), `{"approvals":[{"event":"pre_llm_call","command":"python C:/x.py","approved_at":"2026-01-01T00:00:00+00:00","script_mtime_at_approval":null}]}`, 0o600)
	a, ok := s.Lookup("pre_llm_call", "python C:/x.py")
	if !ok {
		t.Fatal("entry not found")
	}
	want := Approval{Event: "pre_llm_call", Command: "python C:/x.py", ApprovedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	if diff := cmp.Diff(want, a); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestApproveUnreadableScriptWritesNull(t *testing.T) {
	s, _, home := testStore(t)
	a, err := s.Approve(context.Background(), "pre_tool_call", filepath.Join(home, "missing.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if a.ScriptMtime != "" || a.ScriptSHA256 != "" {
		t.Errorf("fingerprint of a missing script = %q %q, want empty", a.ScriptMtime, a.ScriptSHA256)
	}
	data, _ := os.ReadFile(s.Path())
	for _, want := range []string{`"script_mtime_at_approval": null`, `"script_sha256": null`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("file lacks %s:\n%s", want, data)
		}
	}
}

func TestApproveRefreshesOneEntry(t *testing.T) {
	s, _, home := testStore(t)
	script := filepath.Join(home, "hook.sh")
	writeFile(t, script, "#!/bin/sh\necho v1\n", 0o755)
	ctx := context.Background()
	first, err := s.Approve(ctx, "pre_tool_call", "~/hook.sh")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Approve(ctx, "post_tool_call", "~/hook.sh"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, script, "#!/bin/sh\necho v2\n", 0o755)
	second, err := s.Approve(ctx, "pre_tool_call", "~/hook.sh")
	if err != nil {
		t.Fatal(err)
	}
	doc := readDoc(t, s.Path())
	if diff := cmp.Diff([]string{"post_tool_call ~/hook.sh", "pre_tool_call ~/hook.sh"}, keysOf(doc.approvals())); diff != "" {
		t.Fatalf("entries (-want +got):\n%s", diff)
	}
	if first.ScriptSHA256 == second.ScriptSHA256 {
		t.Error("re-approval did not refresh the script hash")
	}
	if second.ApprovedAt.Before(first.ApprovedAt) {
		t.Errorf("re-approval time %v before first %v", second.ApprovedAt, first.ApprovedAt)
	}
	if got, _ := s.Lookup("pre_tool_call", "~/hook.sh"); !reflect.DeepEqual(got, second) {
		t.Errorf("Lookup = %+v, want the refreshed %+v", got, second)
	}
}

func TestRevoke(t *testing.T) {
	s, _, _ := testStore(t)
	ctx := context.Background()
	if n, err := s.Revoke(ctx, "nothing"); n != 0 || err != nil {
		t.Fatalf("Revoke on a missing file = %d, %v; want 0, nil", n, err)
	}
	if _, err := os.Stat(s.Path()); !os.IsNotExist(err) {
		t.Fatalf("Revoke on a missing file created it (stat err %v)", err)
	}
	for _, p := range [][2]string{{"pre_tool_call", "a.sh"}, {"post_tool_call", "a.sh"}, {"pre_tool_call", "b.sh"}, {"pre_tool_call", "a.sh x"}} {
		if _, err := s.Approve(ctx, p[0], p[1]); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		command string
		want    int
		left    []string
	}{
		{"a.sh", 2, []string{"pre_tool_call b.sh", "pre_tool_call a.sh x"}},
		{"a.sh", 0, []string{"pre_tool_call b.sh", "pre_tool_call a.sh x"}},
		{"b.sh", 1, []string{"pre_tool_call a.sh x"}},
	}
	for _, tt := range tests {
		n, err := s.Revoke(ctx, tt.command)
		if err != nil || n != tt.want {
			t.Errorf("Revoke(%q) = %d, %v; want %d, nil", tt.command, n, err, tt.want)
		}
		if diff := cmp.Diff(tt.left, keysOf(readDoc(t, s.Path()).approvals())); diff != "" {
			t.Errorf("after Revoke(%q) (-want +got):\n%s", tt.command, diff)
		}
	}
}

func TestCorruptFiles(t *testing.T) {
	tests := []struct {
		name       string
		content    *string // nil: no file
		want       []string
		wantWarn   string
		wantBackup bool
	}{
		{"missing", nil, nil, "does not exist: no shell or Python hook is approved yet", false},
		{"empty", ptr(""), nil, "the file is empty", false},
		{"whitespace", ptr(" \n\t \n"), nil, "the file is empty", false},
		{"truncated", ptr(`{"approvals": [`), nil, "invalid JSON", true},
		{"truncated after an entry", ptr(`{"keep": 1, "approvals": [{"event": "pre_tool_call", "command": "good.sh"}, {"event": "pre_`),
			[]string{"pre_tool_call good.sh"}, "invalid JSON", true},
		{"trailing garbage", ptr(`{"approvals": [{"event": "e", "command": "c"}]} }`), []string{"e c"}, "invalid JSON", true},
		{"binary", ptr("\x00\xff\xfe\x01{\"approvals\""), nil, "not a JSON object", true},
		{"binary after brace", ptr("{\x00\xff\xfe"), nil, "invalid JSON", true},
		{"array", ptr(`[1,2]`), nil, "not a JSON object", true},
		{"null", ptr(`null`), nil, "not a JSON object", true},
		{"approvals not a list", ptr(`{"approvals": "x"}`), nil, `\"approvals\" is not a list`, true},
		{"partly valid", ptr(`{"approvals": [{"event": "pre_tool_call", "command": "good.sh"}, {"event": 5, "command": "bad.sh"}, 3]}`),
			[]string{"pre_tool_call good.sh"}, "entry 1 has no non-empty string", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, lb, _ := testStore(t)
			if tt.content != nil {
				writeFile(t, s.Path(), *tt.content, 0o600)
			}
			for range 2 { // the warning is logged once
				got, err := s.Approvals()
				if err != nil {
					t.Fatalf("Approvals: %v", err)
				}
				if diff := cmp.Diff(tt.want, keysOf(got), cmpEmpty); diff != "" {
					t.Fatalf("Approvals (-want +got):\n%s", diff)
				}
			}
			logs := lb.String()
			if n := strings.Count(logs, "level=WARN"); n != 1 || !strings.Contains(logs, tt.wantWarn) || !strings.Contains(logs, s.Path()) {
				t.Errorf("want one warning naming %s and %q, got %d:\n%s", s.Path(), tt.wantWarn, n, logs)
			}

			if _, err := s.Approve(context.Background(), "post_tool_call", "new.sh"); err != nil {
				t.Fatalf("Approve: %v", err)
			}
			wantAfter := append(append([]string{}, tt.want...), "post_tool_call new.sh")
			if diff := cmp.Diff(wantAfter, keysOf(readDoc(t, s.Path()).approvals())); diff != "" {
				t.Errorf("after Approve (-want +got):\n%s", diff)
			}
			backups, _ := filepath.Glob(s.Path() + ".corrupt-*")
			if got := len(backups) == 1; got != tt.wantBackup {
				t.Fatalf("backups = %v, want one: %v", backups, tt.wantBackup)
			}
			if tt.wantBackup {
				data, _ := os.ReadFile(backups[0])
				if string(data) != *tt.content {
					t.Errorf("backup = %q, want the original %q", data, *tt.content)
				}
			}
			if tt.name == "truncated after an entry" && !strings.Contains(mustRead(t, s.Path()), `"keep": 1`) {
				t.Error("salvaged top-level field lost")
			}
		})
	}
}

func TestCorruptFileKeptWhenBackupFails(t *testing.T) {
	s, _, _ := testStore(t)
	const corrupt = `{"approvals": [{"event": "e", "command": "c"},`
	writeFile(t, s.Path(), corrupt, 0o600)
	s.createExcl = func(name string) (*os.File, error) {
		return nil, &os.PathError{Op: "open", Path: name, Err: errors.New("injected failure")}
	}
	s.rename = func(string, string) error { t.Error("wrote over a corrupt file"); return nil }
	_, err := s.Approve(context.Background(), "pre_tool_call", "x.sh")
	if err == nil || !strings.Contains(err.Error(), "could not be backed up") || !strings.Contains(err.Error(), "injected failure") {
		t.Fatalf("Approve error = %v, want a failed backup", err)
	}
	if got := mustRead(t, s.Path()); got != corrupt {
		t.Errorf("file changed: %q", got)
	}
	if _, ok := s.Lookup("pre_tool_call", "x.sh"); !ok {
		t.Error("approval not kept in memory")
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func ptr(s string) *string { return &s }

var cmpEmpty = cmp.Comparer(func(a, b []string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return cmp.Equal(a, b)
})

func TestFormatAndCompareTimes(t *testing.T) {
	tests := []struct {
		t    time.Time
		want string
	}{
		{time.Date(2026, 4, 20, 9, 0, 0, 0, time.UTC), "2026-04-20T09:00:00Z"},
		{time.Date(2026, 4, 21, 10, 15, 30, 123456789, time.UTC), "2026-04-21T10:15:30.123456Z"},
		{time.Date(2026, 4, 21, 12, 15, 30, 5000, time.FixedZone("x", 2*3600)), "2026-04-21T10:15:30.000005Z"},
		{time.Time{}, ""},
	}
	for _, tt := range tests {
		if got := formatTime(tt.t); got != tt.want {
			t.Errorf("formatTime(%v) = %q, want %q", tt.t, got, tt.want)
		}
	}
	same := []struct {
		a, b string
		want bool
	}{
		{"2026-04-20T09:00:00Z", "2026-04-20T09:00:00+00:00", true},
		{"2026-04-20T09:00:00.000001Z", "2026-04-20T09:00:00Z", true}, // float rounding in the original
		{"2026-04-20T09:00:00.000003Z", "2026-04-20T09:00:00Z", false},
		{"2026-04-20T09:00:01Z", "2026-04-20T09:00:00Z", false},
		{"garbage", "garbage", true},
		{"garbage", "2026-04-20T09:00:00Z", false},
	}
	for _, tt := range same {
		if got := sameInstant(tt.a, tt.b); got != tt.want {
			t.Errorf("sameInstant(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
