package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// TestConfigKeyTypo holds `hook:` (for hooks:) to a warning with its line and the key meant;
// keys of the host's own that resemble none are left alone.
func TestConfigKeyTypo(t *testing.T) {
	home := testutil.Home(t, map[string]string{"config.yaml": "model: gpt-4\nhook:\n  pre_tool_call:\n    - command: /bin/true\n"})
	e, err := New(context.Background(), Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	var got []string
	for _, w := range e.Warnings() {
		got = append(got, w.String())
	}
	if len(got) != 1 || !strings.HasSuffix(strings.SplitN(got[0], ": ", 2)[0], "config.yaml:2") ||
		!strings.Contains(got[0], `unknown key "hook" ignored, did you mean 'hooks'?`) {
		t.Errorf("warnings = %q, want one about hook on line 2", got)
	}
}
