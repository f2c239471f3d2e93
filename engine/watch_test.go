package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// watchRecord is one call of a running watch: a batch of changes, or armed (the home and
// its hook directories have been watched).
type watchRecord struct {
	armed   bool
	changed []string
}

type watchRun struct {
	t       *testing.T
	home    string
	records chan watchRecord
	barrier int
}

// startWatch runs watchHome on home until the test ends and waits until it watches.
func startWatch(t *testing.T, home string, debounce time.Duration) *watchRun {
	t.Helper()
	r := &watchRun{t: t, home: home, records: make(chan watchRecord, 100)}
	ctx, cancel := context.WithCancel(context.Background())
	send := func(rec watchRecord) {
		select {
		case r.records <- rec:
		case <-ctx.Done():
		}
	}
	done := make(chan error, 1)
	go func() {
		done <- watchHome(ctx, home, debounce,
			func(c []string) { send(watchRecord{changed: slices.Clone(c)}) },
			func() { send(watchRecord{armed: true}) })
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("WatchHome: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("WatchHome did not return when ctx was done")
		}
	})
	select {
	case rec := <-r.records:
		if !rec.armed {
			t.Fatalf("changes %v reported before the home was watched", rec.changed)
		}
	case err := <-done:
		t.Fatalf("WatchHome: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the home was not watched")
	}
	return r
}

// waitChange waits for a batch of changes holding path and returns it; with rearmed, only
// a batch that comes after the watches have been set up again counts. Other batches are
// skipped; one holding a path of unwanted fails the test.
func (r *watchRun) waitChange(what, path string, rearmed bool, unwanted ...string) []string {
	r.t.Helper()
	timeout := time.After(10 * time.Second)
	armed := !rearmed
	for {
		select {
		case rec := <-r.records:
			if rec.armed {
				armed = true
				continue
			}
			for _, p := range unwanted {
				if slices.Contains(rec.changed, p) {
					r.t.Fatalf("%s: changed = %v, want no %s", what, rec.changed, p)
				}
			}
			if armed && slices.Contains(rec.changed, path) {
				return rec.changed
			}
		case <-timeout:
			if !armed {
				r.t.Fatalf("%s: no change reported and the home was not watched again", what)
			}
			r.t.Fatalf("%s: no change of %s reported", what, path)
		}
	}
}

// settle writes a new file into the home and waits for its change: every event from
// before has been handled then. A batch holding a path of unwanted fails the test.
func (r *watchRun) settle(what string, unwanted ...string) {
	r.t.Helper()
	r.barrier++
	p := filepath.Join(r.home, "barrier-"+strconv.Itoa(r.barrier))
	writeFile(r.t, p, "x")
	r.waitChange(what, p, false, unwanted...)
}

func mustRename(t *testing.T, from, to string) {
	t.Helper()
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
}

// TestWatchHome: an edit of a plugin is reported once its writes are quiet, so are other
// files of the home and plugins added later; editor files are not.
func TestWatchHome(t *testing.T) {
	home := testutil.Home(t, pluginFiles("p", "", one("pre_llm_call", `return "v1"`)))
	r := startWatch(t, home, 50*time.Millisecond)
	handler := filepath.Join(home, "plugins/p/handler.lua")
	writeFile(t, handler, one("pre_llm_call", `return "v2"`))
	writeFile(t, handler, one("pre_llm_call", `return "v3"`))
	c := r.waitChange("plugin edited", handler, false)
	if len(slices.Compact(slices.Sorted(slices.Values(c)))) != len(c) {
		t.Errorf("changed = %v, want every path once", c)
	}

	config := filepath.Join(home, "config.yaml")
	writeFile(t, config, "plugins: {disabled: [p]}\n")
	r.waitChange("config written", config, false)

	// A plugin added later is watched too.
	q := filepath.Join(home, "plugins/q")
	testutil.WriteFiles(t, home, pluginFiles("q", "", one("pre_llm_call", `return "q1"`)))
	r.waitChange("plugin added", q, false)
	r.settle("plugin added")
	writeFile(t, filepath.Join(q, "handler.lua"), one("pre_llm_call", `return "q2"`))
	r.waitChange("added plugin edited", filepath.Join(q, "handler.lua"), false)

	// Swap, back-up and temporary files of editors are ignored.
	ignored := []string{
		filepath.Join(home, "plugins/p/.handler.lua.swp"),
		filepath.Join(home, "plugins/p/handler.lua~"),
		filepath.Join(home, "config.yaml.tmp"),
	}
	for _, p := range ignored {
		writeFile(t, p, "x")
	}
	r.settle("editor files written", ignored...)
}

// TestWatchHomeReplaced: after the home is renamed away and a new one is created at its
// path, the missing home is reported, then the new one, and edits in the new home are
// reported again while the old home is not watched anymore.
func TestWatchHomeReplaced(t *testing.T) {
	for _, name := range []string{"home", ".hermes"} {
		t.Run(name, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), name)
			testutil.WriteFiles(t, home, pluginFiles("p", "", one("pre_llm_call", `return "v1"`)))
			r := startWatch(t, home, 20*time.Millisecond)
			writeFile(t, filepath.Join(home, "plugins/p/handler.lua"), one("pre_llm_call", `return "v2"`))
			r.waitChange("plugin edited", filepath.Join(home, "plugins/p/handler.lua"), false)

			old := home + ".old"
			mustRename(t, home, old)
			r.waitChange("home renamed away", home, false)

			testutil.WriteFiles(t, home, pluginFiles("x", "", one("pre_llm_call", `return "x1"`)))
			r.waitChange("home recreated", home, true)

			// An edit in the new home is reported; the old home is not watched anymore,
			// not even under the names it had.
			writeFile(t, filepath.Join(old, "plugins/p/handler.lua"), one("pre_llm_call", `return "old"`))
			config := filepath.Join(home, "config.yaml")
			writeFile(t, config, "plugins: {}\n")
			r.waitChange("config of the new home written", config, false, filepath.Join(home, "plugins/p/handler.lua"))
			handler := filepath.Join(home, "plugins/x/handler.lua")
			writeFile(t, handler, one("pre_llm_call", `return "x2"`))
			r.waitChange("plugin of the new home edited", handler, false)

			// And again.
			mustRename(t, home, home+".old2")
			r.waitChange("new home renamed away", home, false)
			testutil.WriteFiles(t, home, pluginFiles("y", "", one("pre_llm_call", `return "y1"`)))
			r.waitChange("home recreated again", home, true)
			r.settle("home recreated again")
			handler = filepath.Join(home, "plugins/y/handler.lua")
			writeFile(t, handler, one("pre_llm_call", `return "y2"`))
			r.waitChange("plugin of the third home edited", handler, false)
		})
	}
}

// TestWatchHomeRemoved: a deleted home is reported, and once it is created again its
// edits are reported.
func TestWatchHomeRemoved(t *testing.T) {
	home := testutil.Home(t, pluginFiles("p", "", one("pre_llm_call", `return "v1"`)))
	r := startWatch(t, home, 20*time.Millisecond)
	if err := os.RemoveAll(home); err != nil {
		t.Fatal(err)
	}
	r.waitChange("home removed", home, false)

	testutil.WriteFiles(t, home, pluginFiles("p", "", one("pre_llm_call", `return "v2"`)))
	r.waitChange("home recreated", home, true)
	r.settle("home recreated")
	handler := filepath.Join(home, "plugins/p/handler.lua")
	writeFile(t, handler, one("pre_llm_call", `return "v3"`))
	r.waitChange("plugin of the recreated home edited", handler, false)
}

// TestWatchHomeSymlinkSwapped: a home that is a symbolic link switched to another
// directory (as deploy tools do) is watched at its new target.
func TestWatchHomeSymlinkSwapped(t *testing.T) {
	dir := t.TempDir()
	v1 := filepath.Join(dir, "v1")
	v2 := filepath.Join(dir, "v2")
	testutil.WriteFiles(t, v1, pluginFiles("p", "", one("pre_llm_call", `return "v1"`)))
	testutil.WriteFiles(t, v2, pluginFiles("p", "", one("pre_llm_call", `return "v2"`)))
	home := filepath.Join(dir, "home")
	if err := os.Symlink(v1, home); err != nil {
		t.Fatal(err)
	}
	r := startWatch(t, home, 20*time.Millisecond)
	handler := filepath.Join(home, "plugins/p/handler.lua")
	writeFile(t, handler, one("pre_llm_call", `return "v1.1"`))
	r.waitChange("plugin edited", handler, false)

	if err := os.Symlink(v2, home+".new"); err != nil {
		t.Fatal(err)
	}
	mustRename(t, home+".new", home)
	r.waitChange("home switched", home, true)

	writeFile(t, filepath.Join(v1, "plugins/p/handler.lua"), one("pre_llm_call", `return "v1.2"`))
	r.settle("old target edited", handler)
	writeFile(t, handler, one("pre_llm_call", `return "v2.1"`))
	r.waitChange("plugin of the new target edited", handler, false)
}

// TestWatchHomePluginsReplaced: after plugins/ is renamed away and created again, edits in
// the new plugins/ are reported, edits in the old one are not.
func TestWatchHomePluginsReplaced(t *testing.T) {
	home := testutil.Home(t, pluginFiles("p", "", one("pre_llm_call", `return "v1"`)))
	r := startWatch(t, home, 20*time.Millisecond)
	plugins := filepath.Join(home, "plugins")
	mustRename(t, plugins, filepath.Join(home, "plugins.old"))
	testutil.WriteFiles(t, home, pluginFiles("q", "", one("pre_llm_call", `return "q1"`)))
	r.waitChange("plugins replaced", plugins, false)
	r.settle("plugins replaced")

	writeFile(t, filepath.Join(home, "plugins.old/p/handler.lua"), one("pre_llm_call", `return "old"`))
	r.settle("old plugins edited", filepath.Join(plugins, "p/handler.lua"), filepath.Join(home, "plugins.old/p/handler.lua"))
	handler := filepath.Join(plugins, "q/handler.lua")
	writeFile(t, handler, one("pre_llm_call", `return "q2"`))
	r.waitChange("new plugin edited", handler, false)

	// plugins/ removed and created again, with a plugin of the same name.
	if err := os.RemoveAll(plugins); err != nil {
		t.Fatal(err)
	}
	r.waitChange("plugins removed", plugins, false)
	testutil.WriteFiles(t, home, pluginFiles("q", "", one("pre_llm_call", `return "q3"`)))
	r.settle("plugins created again")
	writeFile(t, handler, one("pre_llm_call", `return "q4"`))
	r.waitChange("plugin in the new plugins edited", handler, false)
}

// TestWatchHomeMissing: a home that cannot be watched is an error at once.
func TestWatchHomeMissing(t *testing.T) {
	err := WatchHome(context.Background(), filepath.Join(t.TempDir(), "missing"), 0, func([]string) {})
	if err == nil {
		t.Fatal("WatchHome of a missing home: no error")
	}
}

// TestWatchHomeConstantEdits: a file written again and again, more often than the debounce,
// is still reported, at the latest maxWaitFactor debounces after its first write.
func TestWatchHomeConstantEdits(t *testing.T) {
	home := testutil.Home(t, pluginFiles("p", "", one("pre_llm_call", `return "v1"`)))
	r := startWatch(t, home, 500*time.Millisecond)
	handler := filepath.Join(home, "plugins/p/handler.lua")
	stop := make(chan struct{})
	stopped := make(chan struct{})
	go func() { // an editor saving every 50 ms, never quiet for the debounce
		defer close(stopped)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-tick.C:
				if err := os.WriteFile(handler, []byte(one("pre_llm_call", fmt.Sprintf("return %q", strconv.Itoa(i)))), 0o644); err != nil {
					t.Error(err)
					return
				}
			}
		}
	}()
	defer func() { close(stop); <-stopped }()
	r.waitChange("edits without pause", handler, false)
}
