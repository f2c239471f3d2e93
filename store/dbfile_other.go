//go:build !linux

package store

import (
	"io/fs"
	"os"

	"github.com/hermes-hooks/hermes/internal/safefile"
)

// inspect returns what the file at path is, refusing anything but a regular file (a FIFO,
// device or symbolic link there is neither waited on nor followed), creating it readable by
// its owner only when create is set and it is missing, and taking the rights of group and
// others from it when it has some (when this process may: else it stays as it is).
//
// The file is opened and closed here; SQLite's POSIX locks are lost on closing any
// descriptor of the file, so on these systems a second store of a home this process already
// has open (a reload whose store settings changed) drops the first one's locks. Linux looks
// through a descriptor whose close drops none (dbfile_linux.go).
func inspect(path string, create bool) (fs.FileInfo, error) {
	flag := os.O_RDONLY
	if create {
		flag |= os.O_CREATE
	}
	f, err := safefile.OpenFile(path, flag, 0o600)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		f.Chmod(fi.Mode().Perm() & 0o700)
	}
	return fi, nil
}
