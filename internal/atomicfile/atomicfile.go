// Package atomicfile replaces a file's content so that a crash leaves the old content or the
// new, never half of either: the allowlist (consent) and config.yaml (hooks import) are
// written this way.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces the file at path with data: a temporary file in the same directory, with
// mode perm, synced, then renamed over it with rename (os.Rename when nil; tests pass one
// that fails), then the directory synced. When path is a symbolic link, the file it points
// to is replaced and the link stays.
func Write(path string, data []byte, perm os.FileMode, rename func(oldpath, newpath string) error) (err error) {
	if rename == nil {
		rename = os.Rename
	}
	if target, lerr := filepath.EvalSymlinks(path); lerr == nil {
		path = target
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(perm); err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := rename(tmp.Name(), path); err != nil {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: the rename is done either way
		d.Close()
	}
	return nil
}
