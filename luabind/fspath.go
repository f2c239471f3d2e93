package luabind

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// expandHome replaces a leading "~" (alone or followed by a separator) with the user's home
// directory. "~user" is not expanded.
func expandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot expand %q: %v", p, err)
	}
	return filepath.Join(home, p[1:]), nil
}

// resolvePath turns p into the real path it names: "~" expanded, absolute, cleaned (so ".."
// is resolved lexically), and symlinks resolved in its longest existing prefix, so that a
// file that does not exist yet still resolves through its existing parent directories.
func resolvePath(p string) (string, error) {
	p, err := expandHome(p)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for cur := abs; ; {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest), nil
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// resolveRoots resolves the permissions.fs entries once, at load. A relative entry (not
// starting with "/" or "~") names a path inside the hermes home, e.g. "logs".
func resolveRoots(entries []string, home string) ([]string, error) {
	roots := make([]string, 0, len(entries))
	for _, entry := range entries {
		if strings.TrimSpace(entry) == "" {
			return nil, fmt.Errorf("permissions.fs: empty entry")
		}
		if home != "" && !filepath.IsAbs(entry) && entry != "~" && !strings.HasPrefix(entry, "~/") {
			entry = filepath.Join(home, entry)
		}
		r, err := resolvePath(entry)
		if err != nil {
			return nil, fmt.Errorf("permissions.fs entry %q: %v", entry, err)
		}
		roots = append(roots, r)
	}
	return roots, nil
}

// within reports whether the resolved path p is root or inside it, and p relative to root.
func within(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// allowedPath resolves p and finds the permissions.fs root that contains it. It returns the
// directory to open the file from and the name relative to it.
func (h *hook) allowedPath(p string) (dir, name, resolved string, ok bool, err error) {
	resolved, err = resolvePath(p)
	if err != nil {
		return "", "", "", false, err
	}
	for _, root := range h.fsRoots {
		rel, in := within(root, resolved)
		if !in {
			continue
		}
		if rel == "." { // the entry itself, which may be a file: open it from its directory
			return filepath.Dir(root), filepath.Base(root), resolved, true, nil
		}
		return root, rel, resolved, true, nil
	}
	return "", "", resolved, false, nil
}
