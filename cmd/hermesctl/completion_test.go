package main

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"
)

// The bash completion, loaded in bash, completes commands, subcommands, events and flags.
func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash here")
	}
	var script bytes.Buffer
	if code := run(context.Background(), []string{"completion", "bash"}, nil, &script, &bytes.Buffer{}); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	complete := func(words ...string) string {
		t.Helper()
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + w + "'"
		}
		prog := script.String() + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\nCOMP_CWORD=" +
			string(rune('0'+len(words)-1)) + "\n_hermesctl\necho \"${COMPREPLY[*]}\"\n"
		out, err := exec.Command(bash, "-c", prog).CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	for _, tt := range []struct {
		words []string
		want  string
	}{
		{[]string{"hermesctl", "hooks", "te"}, "test"},
		{[]string{"hermesctl", "hoo"}, "hooks hook"},
		{[]string{"hermesctl", "pl"}, "plugins"},
		{[]string{"hermesctl", "hook", "co"}, "codex"},
		{[]string{"hermesctl", "hooks", "test", "pre_tool"}, "pre_tool_call"},
		{[]string{"hermesctl", "hooks", "test", "--for"}, "--for-tool"},
		{[]string{"hermesctl", "completion", "fi"}, "fish"},
	} {
		if got := complete(tt.words...); got != tt.want {
			t.Errorf("%v<TAB>: %q, want %q", tt.words, got, tt.want)
		}
	}
}
