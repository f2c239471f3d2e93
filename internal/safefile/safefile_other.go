//go:build !unix

package safefile

import "os"

// Flags are the flags OpenFile adds to the caller's, for a library that opens a file by
// name with flags it is given: none here.
const Flags = 0

// openFile refuses a link seen by Lstat, opens, and checks the opened file. Without FIFOs
// to block on, the window between the Lstat and the open can only let a link be followed.
func openFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	if err := Check(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, flag, perm)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := refuse(path, fi.Mode()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
