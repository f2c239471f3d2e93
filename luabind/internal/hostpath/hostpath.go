package hostpath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ExpandHome replaces a leading "~" (alone or followed by a separator) with the user's home
// directory. "~user" is not expanded.
func ExpandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot expand %q: %v", p, err)
	}
	return filepath.Join(home, p[1:]), nil
}

// Resolve turns p into the real path it names: "~" expanded, absolute, cleaned (so ".."
// is resolved lexically), and symlinks resolved in its longest existing prefix, so that a
// file that does not exist yet still resolves through its existing parent directories.
func Resolve(p string) (string, error) {
	p, err := ExpandHome(p)
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

// Err drops the operation and path an *fs.PathError repeats, for a message that names the
// path itself.
func Err(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
