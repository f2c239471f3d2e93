package io

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-hooks/hermes/luabind/internal/hostpath"
)

// Root is one permissions.fs entry, resolved and opened at load. Files are opened
// through dir, a directory opened once at load, so that a directory swapped for a symbolic
// link afterwards is never followed: the open happens in the directory that was there at
// load. An entry that is a directory is its own dir; an entry that is a file, or that does
// not exist at load, is opened through its nearest existing parent directory, and only the
// entry (and, for one that does not exist yet, paths under it) may be opened there.
type Root struct {
	path    string   // the entry, resolved (see resolvePath)
	dirPath string   // the directory files are opened from: path or its nearest existing parent
	dir     *os.Root // dirPath, opened at load; nil if that failed
	dirErr  error    // why dir is nil
}

// ResolveRoots resolves the permissions.fs entries and opens their directories, once, at
// load. A relative entry (not starting with "/" or "~") names a path inside the hermes
// home, e.g. "logs".
func ResolveRoots(entries []string, home string) ([]Root, error) {
	roots := make([]Root, 0, len(entries))
	for _, entry := range entries {
		if strings.TrimSpace(entry) == "" {
			CloseRoots(roots)
			return nil, fmt.Errorf("permissions.fs: empty entry")
		}
		if home != "" && !filepath.IsAbs(entry) && entry != "~" && !strings.HasPrefix(entry, "~/") {
			entry = filepath.Join(home, entry)
		}
		r, err := hostpath.Resolve(entry)
		if err != nil {
			CloseRoots(roots)
			return nil, fmt.Errorf("permissions.fs entry %q: %v", entry, err)
		}
		roots = append(roots, openRoot(r))
	}
	return roots, nil
}

// openRoot opens the directory through which the files of the resolved entry p are opened.
func openRoot(p string) Root {
	dirPath := p
	for {
		if fi, err := os.Stat(dirPath); err == nil && fi.IsDir() {
			break
		}
		parent := filepath.Dir(dirPath)
		if parent == dirPath {
			break
		}
		dirPath = parent
	}
	dir, err := os.OpenRoot(dirPath)
	return Root{path: p, dirPath: dirPath, dir: dir, dirErr: err}
}

// CloseRoots closes the directories ResolveRoots opened.
func CloseRoots(roots []Root) {
	for _, r := range roots {
		if r.dir != nil {
			_ = r.dir.Close()
		}
	}
}

// within reports whether the resolved path p is root or inside it, and p relative to root.
func within(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// allowedPath resolves p and finds the entry of roots that contains it. It returns the
// entry and the name to open through its directory.
func allowedPath(roots []Root, p string) (root *Root, name, resolved string, err error) {
	resolved, err = hostpath.Resolve(p)
	if err != nil {
		return nil, "", "", err
	}
	for i := range roots {
		r := &roots[i]
		if _, in := within(r.path, resolved); !in {
			continue
		}
		name, _ = within(r.dirPath, resolved) // dirPath is r.path or one of its parents
		return r, name, resolved, nil
	}
	return nil, "", resolved, nil
}
