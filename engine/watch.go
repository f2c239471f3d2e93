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

// WatchHome watches the files of a home that define hooks (config.yaml, the allowlist,
// plugins/, hooks/, agent-hooks/ and their sub-directories) and calls onChange with the
// changed paths once they have been quiet for debounce (0 means 300ms). A host calls
// Reload on its engine (and gateway) from onChange. WatchHome returns when ctx is done,
// or at once if the home cannot be watched.
func WatchHome(ctx context.Context, home string, debounce time.Duration, onChange func(changed []string)) error {
	if debounce <= 0 {
		debounce = 300 * time.Millisecond
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.Add(home); err != nil {
		return err
	}
	for _, dir := range []string{"plugins", "hooks", "agent-hooks"} {
		addTree(w, filepath.Join(home, dir))
	}
	var changed []string
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-w.Errors:
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				changed = append(changed, home)
				timer.Reset(debounce)
			}
		case ev := <-w.Events:
			if ignoredChange(ev.Name) {
				continue
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
					addTree(w, ev.Name)
				}
			}
			if !slices.Contains(changed, ev.Name) {
				changed = append(changed, ev.Name)
			}
			timer.Reset(debounce)
		case <-timer.C:
			if len(changed) > 0 {
				onChange(changed)
				changed = nil
			}
		}
	}
}

// addTree watches dir and every directory below it; missing directories are fine.
func addTree(w *fsnotify.Watcher, dir string) {
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			w.Add(path)
		}
		return nil
	})
}

// ignoredChange filters editor swap files, lock files and temporary files.
func ignoredChange(path string) bool {
	base := filepath.Base(path)
	return strings.HasPrefix(base, ".") || strings.HasSuffix(base, "~") || strings.HasSuffix(base, ".swp") ||
		strings.HasSuffix(base, ".lock") || strings.Contains(base, ".tmp")
}
