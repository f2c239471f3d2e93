package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// hookDirs are the directories of a home whose whole trees define hooks.
var hookDirs = []string{"plugins", "hooks", "agent-hooks"}

// WatchHome watches the files of a home that define hooks (config.yaml, the allowlist,
// plugins/, hooks/, agent-hooks/ and their sub-directories) and calls onChange with the
// changed paths once they have been quiet for debounce (0 means 300ms), or at the latest
// maxWaitFactor times debounce after the first change not reported yet, so that files
// edited without pause are still reloaded. A host calls
// Reload on its engine (and gateway) from onChange. Editor swap, lock and temporary files
// are ignored.
//
// WatchHome keeps working when the home directory is replaced: when the home is removed or
// renamed away, onChange is called with the home path (the host's Reload then fails and
// keeps the hooks it has); when a directory appears at the home path again (created,
// renamed or symlinked into place), WatchHome watches it and its hook directories and calls
// onChange with the home path again. A hook directory (plugins/, hooks/, agent-hooks/ or
// one below them) that is replaced or created later is watched as well. Only the parent
// directory of the home has to stay in place.
//
// WatchHome returns nil when ctx is done, or an error at once if the home cannot be
// watched.
func WatchHome(ctx context.Context, home string, debounce time.Duration, onChange func(changed []string)) error {
	return watchHome(ctx, home, debounce, onChange, nil)
}

// watchHome is WatchHome; armed, when not nil, is called each time the home and its hook
// directories have been watched: at the start and whenever the home came back.
func watchHome(ctx context.Context, home string, debounce time.Duration, onChange func(changed []string), armed func()) error {
	if debounce <= 0 {
		debounce = 300 * time.Millisecond
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	hw := &homeWatch{w: w, home: filepath.Clean(home)}
	if err := hw.arm(); err != nil {
		return err
	}
	// The parent directory shows the home being removed, renamed away and put back; the
	// watches of the home itself stay with the directory that was there. Without it (the
	// parent cannot be watched) a replaced home is still reported, but not watched again.
	hw.absHome = hw.home
	if abs, err := filepath.Abs(hw.home); err == nil {
		hw.absHome = abs
	}
	if parent := filepath.Dir(hw.absHome); parent != hw.absHome && w.Add(parent) == nil {
		hw.parent = parent
	}
	if armed != nil {
		armed()
	}

	var changed []string
	var first time.Time // of the first change in changed
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	note := func(path string) {
		if len(changed) == 0 {
			first = time.Now()
		}
		changed = noteOnce(changed, path)
		// Quiet for debounce, but no later than the maximum wait after the first change.
		timer.Reset(max(0, min(debounce, time.Until(first.Add(maxWaitFactor*debounce)))))
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-w.Errors:
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost, perhaps the home being replaced: watch it afresh.
				hw.rearm(armed)
				note(hw.home)
			}
		case ev := <-w.Events:
			if path, ok := hw.handle(ev, armed); ok {
				note(path)
			}
		case <-timer.C:
			if len(changed) > 0 {
				onChange(changed)
				changed = nil
			}
		}
	}
}

// maxWaitFactor bounds how long changes wait to be reported: debounce times this after the
// first of them, however often files keep changing.
const maxWaitFactor = 4

func noteOnce(changed []string, path string) []string {
	if slices.Contains(changed, path) {
		return changed
	}
	return append(changed, path)
}

// rearm watches the home afresh, calling armed when that worked.
func (hw *homeWatch) rearm(armed func()) {
	if hw.arm() == nil && armed != nil {
		armed()
	}
}

// handle keeps the watches in step with one event and returns the path to report, if any.
func (hw *homeWatch) handle(ev fsnotify.Event, armed func()) (string, bool) {
	switch {
	case hw.isHome(ev.Name):
		if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
			hw.rearm(armed)
		}
		return hw.home, true
	case hw.inParent(ev.Name):
		return "", false // another entry of the home's parent directory
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		// A directory moved away keeps its watches, under its old name: drop them, a
		// directory created at that name is watched anew.
		hw.unwatch(ev.Name)
	}
	if ignoredChange(ev.Name) {
		return "", false
	}
	if ev.Has(fsnotify.Create) && hw.inHookDir(ev.Name) {
		if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
			addTree(hw.w, ev.Name)
		}
	}
	return ev.Name, true
}

// homeWatch holds the watches of one home.
type homeWatch struct {
	w       *fsnotify.Watcher
	home    string // cleaned, as given
	absHome string // absolute, as events of the parent name it
	parent  string // the watched parent directory of the home, or ""
}

// arm drops every watch of the home and its trees and watches the directory now at the
// home path and its hook directories.
func (hw *homeWatch) arm() error {
	hw.unwatch(hw.home)
	if err := hw.w.Add(hw.home); err != nil {
		return err
	}
	for _, dir := range hookDirs {
		addTree(hw.w, filepath.Join(hw.home, dir))
	}
	return nil
}

// unwatch removes the watches of dir and of every directory below it.
func (hw *homeWatch) unwatch(dir string) {
	for _, p := range hw.w.WatchList() {
		if p != hw.parent && within(p, dir) {
			hw.w.Remove(p) // gone already when the directory was deleted
		}
	}
}

// isHome reports whether an event names the home directory itself.
func (hw *homeWatch) isHome(name string) bool {
	name = filepath.Clean(name)
	return name == hw.home || name == hw.absHome
}

// inParent reports whether an event names an entry of the home's parent directory (which
// the watch of the parent reports as parent + "/" + entry).
func (hw *homeWatch) inParent(name string) bool {
	rest, ok := strings.CutPrefix(name, hw.parent+"/")
	return hw.parent != "" && ok && !strings.Contains(rest, "/")
}

// inHookDir reports whether path is a hook directory of the home or below one.
func (hw *homeWatch) inHookDir(path string) bool {
	for _, dir := range hookDirs {
		if within(path, filepath.Join(hw.home, dir)) {
			return true
		}
	}
	return false
}

// within reports whether path is root or below it.
func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// addTree watches dir and every directory below it, except ignored ones (.git, editor
// back-ups); missing directories are fine.
func addTree(w *fsnotify.Watcher, dir string) {
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if path != dir && ignoredChange(path) {
			return filepath.SkipDir
		}
		w.Add(path)
		return nil
	})
}

// ignoredChange filters editor swap files, lock files and temporary files.
func ignoredChange(path string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, ".") || strings.HasSuffix(base, "~") || strings.HasSuffix(base, ".swp") ||
		strings.HasSuffix(base, ".lock") || strings.Contains(base, ".tmp")
}
