// Package atomicfile replaces a file's content so that a crash leaves the old content or the
// new, never half of either: the allowlist (consent) and config.yaml (hooks import) are
// written this way.
package atomicfile

import (
	"os"
	"path/filepath"

	"github.com/hermes-hooks/hermes/internal/safefile"
)

// Write replaces the file at path with data: a temporary file in the same directory, with
// mode perm, synced, then renamed over it with rename (os.Rename when nil; tests pass one
// that fails), then the directory synced. A symbolic link, FIFO or other file that is not
// regular at path is refused as safefile refuses it, and left alone: the file a link
// points to is never written (a link put there after the check is replaced by the rename,
// not followed).
func Write(path string, data []byte, perm os.FileMode, rename func(oldpath, newpath string) error) (err error) {
	if rename == nil {
		rename = os.Rename
	}
	if err := safefile.Check(path); err != nil {
		return err
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
