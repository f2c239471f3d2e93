package engine

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/manifest"
	"github.com/hermes-hooks/hermes/internal/reload"
)

// The one loader of hook directories, for plugins (<home>/plugins/<name>/plugin.yaml +
// handler.lua) and gateway hooks (<home>/hooks/<name>/HOOK.yaml + handler.lua): each
// directory's two files are read once; a directory whose files did not change keeps what
// runs; one that fails to load keeps its running version, with a warning.

// dirFiles is one hook directory as read from disk.
type dirFiles struct {
	dir, manifest, handler string // paths
	mdata, src             []byte
	merr, herr             error
	sum                    [sha256.Size]byte // of both files and the disabled list (and a Python hook's .py files)

	pyEntry string   // a Python hook's __init__.py or handler.py; "" when there is none
	pyFiles []string // its .py files (pythonFiles)
	pyData  [][]byte // their paths and contents, for the sum
	pyErr   error    // why they could not all be read
}

// readHookDirs reads every directory under root, in name order, except names starting
// with "." (and files). A missing root has no directories; one that cannot be read is an
// error. disabled is config.yaml's disabled list for this kind, part of each sum.
func readHookDirs(root, manifestName string, disabled []string) ([]dirFiles, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("%s cannot be read (%s): the hooks loaded before keep running", root, reload.Plain(err))
	}
	var dirs []dirFiles
	for _, ent := range entries { // os.ReadDir sorts by name
		if !ent.IsDir() || strings.HasPrefix(ent.Name(), ".") {
			continue
		}
		d := dirFiles{dir: filepath.Join(root, ent.Name())}
		d.manifest, d.handler = filepath.Join(d.dir, manifestName), filepath.Join(d.dir, "handler.lua")
		d.mdata, d.merr = manifest.ReadFile(d.manifest, manifest.MaxSize)
		d.src, d.herr = manifest.ReadFile(d.handler, maxHandlerSize)
		d.readPython(pythonEntry(manifestName))
		d.sum = dirSum(append([][]byte{d.mdata, d.src, []byte(strings.Join(disabled, "\n"))}, d.pyData...))
		dirs = append(dirs, d)
	}
	return dirs, nil
}

// dirSum identifies what a directory is loaded from.
func dirSum(parts [][]byte) [sha256.Size]byte {
	h := sha256.New()
	for _, part := range parts {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	return sum
}

// unchanged reports whether d holds exactly what a hook loaded from sum was loaded from.
func (d *dirFiles) unchanged(sum [sha256.Size]byte) bool {
	return d.merr == nil && (d.herr == nil || d.pyEntry != "") && d.pyErr == nil && d.sum == sum
}

// pythonEntry is the file that makes a directory with manifest a Python hook.
func pythonEntry(manifestName string) string {
	if manifestName == "plugin.yaml" {
		return pythonEntryPlugin
	}
	return pythonEntryGateway
}

// claimNames decides which directory keeps a hook name that more than one declares: the one
// running under it in running (a reload never stops a hook for a directory added beside
// it), else the first in directory order. It returns, for each other directory declaring a
// name that is taken, the directory that has it. declared says the name a directory would
// run under and whether it would run, or why it would fail to load (then a running
// version keeps running, under the name it has).
func claimNames[T loadedDir[I], I dirInfo](dirs []dirFiles, running []T, declared func(*dirFiles) (string, bool, error), runningName func(T) string) map[string]string {
	byDir := make(map[string]T, len(running))
	for _, t := range running {
		byDir[t.dirOf()] = t
	}
	as := map[string]string{} // the name each directory would run under
	for i := range dirs {
		d := &dirs[i]
		name, runs, err := declared(d)
		t, isRunning := byDir[d.dir]
		switch {
		case err != nil && isRunning:
			as[d.dir] = runningName(t)
		case err == nil && runs:
			as[d.dir] = name
		}
	}
	owner := map[string]string{}
	for _, pass := range []bool{true, false} { // running first
		for i := range dirs {
			dir := dirs[i].dir
			name, ok := as[dir]
			if _, isRunning := byDir[dir]; ok && isRunning == pass && owner[name] == "" {
				owner[name] = dir
			}
		}
	}
	taken := map[string]string{}
	for dir, name := range as {
		if owner[name] != dir {
			taken[dir] = owner[name]
		}
	}
	return taken
}

// loadedDir is what a directory loader returns for a directory that loaded.
type loadedDir[I dirInfo] interface {
	comparable
	dirOf() string
	loadedFrom() [sha256.Size]byte
	infoOf() I
	warningsOf() []hookspec.Warning
}

// dirInfo describes a directory, loaded or not.
type dirInfo interface {
	failure() string // the error it failed to load with; "" when it did not fail
}

// loadDirs loads every directory of dirs with load, in order, keeping what runs there
// (one of running) as it is when its files did not change, and when its new version fails
// to load, with a warning saying so. It returns what runs and every directory's info.
func loadDirs[T loadedDir[I], I dirInfo](dirs []dirFiles, running []T, load func(*dirFiles) (T, I, []hookspec.Warning)) ([]T, []I, []hookspec.Warning) {
	byDir := make(map[string]T, len(running))
	for _, t := range running {
		byDir[t.dirOf()] = t
	}
	var zero T
	var loaded []T
	var infos []I
	var warns []hookspec.Warning
	for i := range dirs {
		d := &dirs[i]
		old, found := byDir[d.dir]
		var t T
		var info I
		var w []hookspec.Warning
		if found && d.unchanged(old.loadedFrom()) {
			t, info, w = old, old.infoOf(), old.warningsOf()
		} else if t, info, w = load(d); found && info.failure() != "" {
			w = append(w, hookspec.Warning{File: d.dir, Msg: "failed to reload (" + info.failure() + "); the previous version keeps running"})
			t, info = old, old.infoOf()
		}
		warns = append(warns, w...)
		infos = append(infos, info)
		if t != zero {
			loaded = append(loaded, t)
		}
	}
	return loaded, infos, warns
}
