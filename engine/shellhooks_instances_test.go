package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	htest "github.com/hermes-hooks/hermes/internal/testutil"
)

// A reload that changes only instances: of a persistent hook applies it: the hook is not
// kept with its old pool.
func TestReloadAppliesInstances(t *testing.T) {
	const entry = "hooks:\n  pre_llm_call:\n    - {command: /bin/cat, persistent: true%s}\n"
	home := htest.Home(t, map[string]string{"config.yaml": fmt.Sprintf(entry, "")})
	ctx := context.Background()
	eng, err := New(ctx, Options{Home: home, AcceptHooks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	instances := func() int {
		sh := eng.ShellHooks()
		if len(sh) != 1 {
			t.Fatalf("got %d shell hooks, want 1", len(sh))
		}
		return sh[0].Hook().Instances
	}
	if n := instances(); n != 1 {
		t.Fatalf("instances %d, want 1", n)
	}
	writeFile(t, filepath.Join(home, "config.yaml"), fmt.Sprintf(entry, ", instances: 3"))
	if err := eng.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if n := instances(); n != 3 {
		t.Errorf("after a reload with instances: 3, the hook has %d", n)
	}
}
