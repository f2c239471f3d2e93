package exec

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
	"github.com/hermes-hooks/hermes/luabind/internal/hostpath"
	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/modules"
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

// Module is the exec module of one hook: the programs its permissions.exec allows, resolved
// at load (ResolvePrograms), the hermes home, and the hook's filter of the environment
// (permissions.env), which decides what else a program receives.
type Module struct {
	Programs []Program
	Home     string
	Getenv   func(name string) (string, bool)
}

// Instance is the exec module in one state.
type Instance struct {
	vu modules.VU
	Module
}

var (
	_ modules.Module   = Module{}
	_ modules.Instance = (*Instance)(nil)
)

// NewModuleInstance implements modules.Module.
func (m Module) NewModuleInstance(vu modules.VU) modules.Instance {
	return &Instance{vu: vu, Module: m}
}

// Exports implements modules.Instance: run(argv, opts?).
func (e *Instance) Exports() lua.LValue {
	return modules.FuncTable(e.vu.Runtime(), map[string]lua.LGFunction{
		"run": modules.Fn2(func(L *lua.LState, argv *lua.LTable, opts modules.Opt[*lua.LTable]) (lua.LValue, error) {
			if !opts.Set {
				opts.V = L.NewTable()
			}
			return e.runProgram(L, argvFrom(L, argv), execOptsFrom(L, opts.V)), nil
		}),
	})
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

// Program is a permissions.exec entry, resolved at load to one file.
type Program struct {
	entry string // as written in the manifest
	named string // the path the entry names (for a bare name, what PATH gave); "" if none
	file  string // named, symbolic links resolved
}

// ResolvePrograms resolves the permissions.exec entries once, at load. An entry that does
// not resolve (a name not on PATH) is kept, and refused when a call runs it.
func ResolvePrograms(entries []string, home string) []Program {
	out := make([]Program, 0, len(entries))
	for _, entry := range entries {
		p := Program{entry: entry}
		if named, file, err := resolveProgram(entry, home); err == nil {
			p.named, p.file = named, file
		}
		out = append(out, p)
	}
	return out
}

// resolveProgram finds the file a program name designates: for a bare name (no slash), the
// program exec.LookPath finds on PATH; otherwise the path, "~" expanded and, when relative,
// inside the hermes home. It returns the absolute, cleaned path and the same with symbolic
// links resolved.
func resolveProgram(name, home string) (named, file string, err error) {
	if !strings.ContainsAny(name, `/\`) {
		if named, err = exec.LookPath(name); err != nil {
			var ee *exec.Error
			if errors.As(err, &ee) {
				err = ee.Err
			}
			return "", "", err
		}
	} else if named, err = hostpath.ExpandHome(name); err != nil {
		return "", "", err
	} else if home != "" && !filepath.IsAbs(named) {
		named = filepath.Join(home, named)
	}
	if named, err = filepath.Abs(named); err != nil {
		return "", "", err
	}
	file, err = hostpath.Resolve(named)
	return named, file, err
}

// program returns the file to run for argv0, resolved now as the entries were at load: it
// must be the file of an entry, under the same name (a multi-call binary such as busybox
// behaves according to the name it is run under). It raises the error that refuses it.
func (e *Instance) program(L *lua.LState, argv0 string) string {
	named, file, err := resolveProgram(argv0, e.Home)
	for _, p := range e.Programs {
		if err == nil && p.file != "" && p.file == file && filepath.Base(p.named) == filepath.Base(named) {
			return file
		}
	}
	for _, p := range e.Programs {
		switch {
		case p.entry != argv0:
		case p.file == "":
			L.RaiseError("exec: %q was not found on PATH when the hook loaded", argv0)
		case err != nil:
			L.RaiseError("exec: %q: %v", argv0, err)
		default:
			L.RaiseError("exec: %q is now %s, not the %s permissions.exec allowed when the hook loaded", argv0, file, p.file)
		}
	}
	L.RaiseError("exec: %q is not in permissions.exec (add it to the manifest to allow it)", argv0)
	return ""
}

// childEnv is the environment of a program: execBaseEnv and what permissions.env allows.
func (e *Instance) childEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if _, ok := e.Getenv(name); ok {
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
func (e *Instance) runProgram(L *lua.LState, argv []string, o execOpts) *lua.LTable {
	path := e.program(L, argv[0])
	cwd, err := hostpath.ExpandHome(o.cwd)
	if err != nil {
		L.RaiseError("exec: cwd: %v", err)
	}
	parent := limits.Context(L)
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
	run := procgroup.Track(cmd) // its process group, and on Linux what it started with setsid
	cmd.WaitDelay = execWaitDelay

	done := e.vu.Wait()
	err = cmd.Run()
	done()
	if cmd.Process != nil {
		_ = run.Kill() // what it left running in the background
	}
	switch {
	case run.Killed() && parent.Err() != nil:
		L.RaiseError("exec: %q interrupted: %v (process group killed)", argv[0], parent.Err())
	case run.Killed():
		L.RaiseError("exec: %q timed out after %s (process group killed)", argv[0], o.timeout)
	case cmd.ProcessState == nil:
		L.RaiseError("exec: %q: %v", argv[0], hostpath.Err(err))
	}
	limits.ChargeString(L, len(stdout.Bytes()))
	limits.ChargeString(L, len(stderr.Bytes()))
	res := L.CreateTable(0, 4)
	res.RawSetString("code", lua.LNumber(cmd.ProcessState.ExitCode()))
	res.RawSetString("stdout", lua.LString(stdout.Bytes()))
	res.RawSetString("stderr", lua.LString(stderr.Bytes()))
	if stdout.Dropped > 0 || stderr.Dropped > 0 {
		res.RawSetString("truncated", lua.LTrue)
	}
	return res
}
