package gateway_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
)

// TestHostileHookManifests: an alias bomb or an oversized HOOK.yaml skips that hook quickly
// with a warning naming the file; the other hooks load.
func TestHostileHookManifests(t *testing.T) {
	var bomb strings.Builder
	bomb.WriteString("l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 9; i++ {
		prev := "*l" + string(rune('0'+i-1))
		bomb.WriteString("l" + string(rune('0'+i)) + ": &l" + string(rune('0'+i)) + " [" +
			strings.TrimSuffix(strings.Repeat(prev+", ", 9), ", ") + "]\n")
	}
	home := t.TempDir()
	files := map[string]string{
		"hooks/a-bomb/HOOK.yaml":    bomb.String() + "events: *l9\n",
		"hooks/b-big/HOOK.yaml":     "events: [agent:start]\n#" + strings.Repeat("x", 1<<20) + "\n",
		"hooks/c-good/HOOK.yaml":    "events: [agent:start]\n",
		"hooks/a-bomb/handler.lua":  "function handle() end\n",
		"hooks/b-big/handler.lua":   "function handle() end\n",
		"hooks/c-good/handler.lua":  "function handle() end\n",
		"hooks/d-alias/HOOK.yaml":   bomb.String() + "events: [agent:start]\ndescription: *l9\n",
		"hooks/d-alias/handler.lua": "function handle() end\n",
	}
	for name, content := range files {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	start := time.Now()
	gw, err := gateway.New(ctx, gateway.Options{Engine: engine.Options{Home: home}})
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close(ctx)
	if elapsed := time.Since(start); elapsed > 20*time.Second {
		t.Errorf("loading took %v", elapsed)
	}
	want := map[string]string{
		"a-bomb":  "HOOK.yaml:10: events must be a list of strings",
		"b-big":   "HOOK.yaml: file larger than 1024 KiB",
		"c-good":  "",
		"d-alias": "HOOK.yaml:12: description must be a string",
	}
	for _, h := range gw.Hooks() {
		w, ok := want[filepath.Base(h.Dir)]
		if !ok {
			continue
		}
		delete(want, filepath.Base(h.Dir))
		if w == "" && h.Status != "loaded" || w != "" && (h.Status != "error" || !strings.Contains(h.Error, w)) {
			t.Errorf("%s: status %q error %q, want %q", h.Name, h.Status, h.Error, w)
		}
	}
	if len(want) > 0 {
		t.Errorf("hooks not listed: %v", want)
	}
}
