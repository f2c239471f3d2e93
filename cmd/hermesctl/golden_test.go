package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-hooks/hermes/scripts/examples"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

// TestGolden runs the JSON outputs people and tools read (the demo's timeline, hooks test
// --json) against the bundled demo home and compares them with testdata/golden, durations
// zeroed and the temporary home written as $HOME. Run `go test ./cmd/hermesctl -run
// TestGolden -update` after a deliberate change and review the diff.
func TestGolden(t *testing.T) {
	dir := t.TempDir()
	if err := examples.CopyDemo(dir); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	t.Chdir(dir)
	tests := []struct {
		name string
		args []string
	}{
		{"demo-timeline", []string{"--accept-hooks", "replay", "--json", "transcript.jsonl"}},
		{"hooks-test-pre-tool-call", []string{"--accept-hooks", "hooks", "test", "pre_tool_call", "--json"}},
		{"hooks-test-pre-llm-call", []string{"--accept-hooks", "hooks", "test", "pre_llm_call", "--json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append([]string{"--home", home}, tt.args...)
			if code := run(context.Background(), args, nil, &out, &errOut); code != exitOK && code != exitFailed {
				t.Fatalf("exit %d\n%s", code, errOut.String())
			}
			got := normalise(t, out.Bytes(), dir)
			file := filepath.Join("testdata", "golden", tt.name+".json")
			file = filepath.Join(repoRoot, "cmd", "hermesctl", file)
			if *update {
				if err := os.WriteFile(file, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("%s differs (-want +got); run with -update if the change is deliberate:\n%s", file, diff)
			}
		})
	}
}

// normalise zeroes durations, writes the temporary directory as $HOME and indents.
func normalise(t *testing.T, out []byte, dir string) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	b, err := json.MarshalIndent(zeroDurations(v), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(bytes.ReplaceAll(b, []byte(strings.TrimSuffix(dir, "/")), []byte("$HOME")), '\n')
}
