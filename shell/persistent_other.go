//go:build !unix

package shell

import "errors"

// errEPIPE never matches where broken pipes are not reported as EPIPE: a write to a process
// that ended is then reported as the process ending without an answer.
var errEPIPE = errors.New("shell: broken pipe")
