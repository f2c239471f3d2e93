package safefile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Error is a file refused because of what it is.
type Error struct {
	Path string
	Msg  string // what it is and what to do, e.g. "not a regular file but a named pipe (FIFO); ..."
}

func (e *Error) Error() string { return e.Path + ": " + e.Msg }

// Open opens path for reading (see the package doc for what it refuses).
func Open(path string) (*os.File, error) {
	return OpenFile(path, os.O_RDONLY, 0)
}

// OpenFile is os.OpenFile for a regular file: flag may hold O_RDONLY, O_WRONLY, O_RDWR,
// O_CREATE, O_EXCL, O_APPEND and O_TRUNC (O_TRUNC is applied after the file is known to be
// regular); perm is the mode of a file O_CREATE creates.
func OpenFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := openFile(path, flag&^os.O_TRUNC, perm)
	if err != nil {
		return nil, err
	}
	if flag&os.O_TRUNC != 0 {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// ReadFile reads path, a regular file of at most max bytes; a larger one is an *Error.
func ReadFile(path string, max int) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > max {
		return nil, &Error{Path: path, Msg: fmt.Sprintf("file larger than %d KiB", max>>10)}
	}
	return data, nil
}

// Check refuses path when it exists and is not a regular file or is a symbolic link; a
// missing path is fine. It is for files another library opens by name (SQLite's -wal and
// -shm): it narrows what that library may meet but cannot close the window before its open.
func Check(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return err
	}
	return refuse(path, fi.Mode())
}

// Regular refuses fi, what a descriptor of path says of itself (File.Stat), when it is not
// a regular file: for a file a library opened with Flags.
func Regular(path string, fi fs.FileInfo) error { return refuse(path, fi.Mode()) }

// refuse is the *Error for a file of mode m, or nil when m is a regular file's.
func refuse(path string, m fs.FileMode) error {
	what := ""
	switch {
	case m.IsRegular():
		return nil
	case m&fs.ModeSymlink != 0:
		return &Error{Path: path, Msg: "not a regular file but a symbolic link, which is not followed here; replace it with the file it points to"}
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	case m.IsDir():
		what = "a directory"
	default:
		what = "a special file"
	}
	return &Error{Path: path, Msg: "not a regular file but " + what + "; replace it with a regular file"}
}
