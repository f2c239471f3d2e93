package luabind

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermes-hooks/hermes/internal/procgroup"
	lua "github.com/yuin/gopher-lua"
)

// Limits of the exec module.
const (
	execDefaultTimeout = 10 * time.Second
	execMaxOutput      = 1 << 20 // bytes kept of stdout and of stderr each
	execWaitDelay      = time.Second
)

// execBaseEnv are the variables every program run by exec receives (when set); others only
// when permissions.env names them.
var execBaseEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ", "SYSTEMROOT"}

// openExec builds the exec module: run(argv, opts?).
func openExec(L *lua.LState, e *env) lua.LValue {
	mod := L.CreateTable(0, 1)
	mod.RawSetString("run", L.NewFunction(func(L *lua.LState) int {
		argv := argvFrom(L, L.CheckTable(1))
		opts := execOptsFrom(L, L.OptTable(2, L.NewTable()))
		L.Push(e.runProgram(L, argv, opts))
		return 1
	}))
	return mod
}

type execOpts struct {
	stdin   string
	cwd     string
	timeout time.Duration
}

func argvFrom(L *lua.LState, t *lua.LTable) []string {
	n := t.Len()
	if n == 0 {
		L.ArgError(1, `argv must be a non-empty array, e.g. {"prog", "arg"}`)
	}
	argv := make([]string, n)
	for i := range n {
		switch v := t.RawGetInt(i + 1).(type) {
		case lua.LString, lua.LNumber:
			argv[i] = lua.LVAsString(v)
		default:
			L.ArgError(1, fmt.Sprintf("argv[%d] is a %s, want a string", i+1, v.Type()))
		}
	}
	return argv
}

func execOptsFrom(L *lua.LState, t *lua.LTable) execOpts {
	o := execOpts{timeout: execDefaultTimeout}
	t.ForEach(func(k, v lua.LValue) {
		switch key := lua.LVAsString(k); key {
		case "stdin":
			o.stdin = lua.LVAsString(v)
		case "cwd":
			o.cwd = lua.LVAsString(v)
		case "timeout":
			n, ok := v.(lua.LNumber)
			if !ok || n <= 0 {
				L.RaiseError("exec.run: timeout must be a positive number of seconds")
			}
			o.timeout = time.Duration(float64(n) * float64(time.Second))
		default:
			L.RaiseError("exec.run: unknown option %q (want stdin, cwd, timeout)", key)
		}
	})
	return o
}

// execAllowed reports whether permissions.exec allows argv0, found at path: an entry equal
// to argv0 or to path, or a bare name equal to argv0's base name.
func (e *env) execAllowed(argv0, path string) bool {
	for _, entry := range e.perms.Exec {
		if entry == argv0 || entry == path {
			return true
		}
		if !strings.ContainsAny(entry, `/\`) && filepath.Base(argv0) == entry {
			return true
		}
	}
	return false
}

// childEnv is the environment of a program: execBaseEnv and what permissions.env allows.
func (e *env) childEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if _, ok := e.getenv(name); ok {
			out = append(out, kv)
			continue
		}
		for _, base := range execBaseEnv {
			if strings.EqualFold(name, base) {
				out = append(out, kv)
				break
			}
		}
	}
	return out
}

// runProgram runs argv without a shell in its own process group, killed with its children
// on timeout or when the call ends, and returns {code, stdout, stderr}.
func (e *env) runProgram(L *lua.LState, argv []string, o execOpts) *lua.LTable {
	path, lookErr := exec.LookPath(argv[0])
	if !e.execAllowed(argv[0], path) {
		L.RaiseError("exec: %q is not in permissions.exec (add it to the manifest to allow it)", argv[0])
	}
	if lookErr != nil {
		var ee *exec.Error
		if errors.As(lookErr, &ee) {
			lookErr = ee.Err
		}
		L.RaiseError("exec: %q: %v", argv[0], lookErr)
	}
	cwd, err := expandHome(o.cwd)
	if err != nil {
		L.RaiseError("exec: cwd: %v", err)
	}
	parent := hostContext(L)
	ctx, cancel := context.WithTimeout(parent, o.timeout)
	defer cancel()

	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Env, cmd.Dir = e.childEnv(), cwd
	if o.stdin != "" {
		cmd.Stdin = strings.NewReader(o.stdin)
	}
	stdout, stderr := &procgroup.Capped{Max: execMaxOutput}, &procgroup.Capped{Max: execMaxOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	killed := procgroup.KillOnCancel(cmd)
	cmd.WaitDelay = execWaitDelay

	done := e.guard.wait()
	err = cmd.Run()
	done()
	if cmd.Process != nil {
		_ = procgroup.Kill(cmd.Process) // what it left running in the background
	}
	switch {
	case killed() && parent.Err() != nil:
		L.RaiseError("exec: %q interrupted: %v (process group killed)", argv[0], parent.Err())
	case killed():
		L.RaiseError("exec: %q timed out after %s (process group killed)", argv[0], o.timeout)
	case cmd.ProcessState == nil:
		L.RaiseError("exec: %q: %v", argv[0], pathErr(err))
	}
	res := L.CreateTable(0, 4)
	res.RawSetString("code", lua.LNumber(cmd.ProcessState.ExitCode()))
	res.RawSetString("stdout", lua.LString(stdout.Bytes()))
	res.RawSetString("stderr", lua.LString(stderr.Bytes()))
	if stdout.Dropped > 0 || stderr.Dropped > 0 {
		res.RawSetString("truncated", lua.LTrue)
	}
	return res
}
