//go:build unix

package safefile

import (
	"io/fs"
	"os"
	"syscall"
)

// Flags are the flags OpenFile adds to the caller's, for a library that opens a file by
// name with flags it is given (the allowlist's lock file): its open then neither blocks nor
// follows a link, and Regular checks what it opened.
const Flags = syscall.O_NONBLOCK | syscall.O_NOFOLLOW

// openFile opens without blocking and without following a last-component link, checks the
// descriptor with fstat, and clears O_NONBLOCK on a regular file.
func openFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, flag|Flags|syscall.O_CLOEXEC, uint32(perm.Perm()))
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		// O_NOFOLLOW fails with ELOOP on a link (EMLINK on FreeBSD, EFTYPE on NetBSD), a
		// FIFO opened for writing without a reader with ENXIO, a directory with EISDIR: name
		// what the file is rather than the errno.
		if fi, lerr := os.Lstat(path); lerr == nil && !fi.Mode().IsRegular() {
			return nil, refuse(path, fi.Mode())
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	if uint32(st.Mode)&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, refuse(path, modeOf(uint32(st.Mode)))
	}
	if err := syscall.SetNonblock(fd, false); err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// modeOf is the type bits of a stat mode as an fs.FileMode.
func modeOf(m uint32) fs.FileMode {
	switch m & syscall.S_IFMT {
	case syscall.S_IFREG:
		return 0
	case syscall.S_IFDIR:
		return fs.ModeDir
	case syscall.S_IFIFO:
		return fs.ModeNamedPipe
	case syscall.S_IFSOCK:
		return fs.ModeSocket
	case syscall.S_IFLNK:
		return fs.ModeSymlink
	case syscall.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}
