package store

import (
	"errors"
	"io/fs"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/hermes-hooks/hermes/internal/safefile"
)

// inspect returns what the file at path is, refusing anything but a regular file (a FIFO,
// device or symbolic link there is neither waited on nor followed), creating it readable by
// its owner only when create is set and it is missing, and taking the rights of group and
// others from it when it has some (when this process may: else it stays as it is).
//
// SQLite's locks are POSIX locks, which a process loses on closing any descriptor of the
// file: a descriptor opened and closed here while this process has the database open (a
// second store of the same home) would drop them, and another process would then take
// itself for the database's last user and delete the write-ahead log under this one's
// writes. So the file is looked at through an O_PATH descriptor, whose close drops no lock,
// and its mode changed through /proc/self/fd, never by name. A file created here is a new
// one, which no connection of this process holds.
func inspect(path string, create bool) (fs.FileInfo, error) {
	if create {
		f, err := safefile.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			f.Close()
		} else if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
	}
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, unix.O_PATH|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := safefile.Regular(path, fi); err != nil {
		return nil, err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		os.Chmod("/proc/self/fd/"+strconv.Itoa(fd), fi.Mode().Perm()&0o700)
	}
	return fi, nil
}
