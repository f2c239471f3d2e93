//go:build unix

package shell

import "syscall"

// errEPIPE is the error of a write to a pipe nobody reads any more.
var errEPIPE error = syscall.EPIPE
