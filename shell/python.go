package shell

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/procgroup"
)

// A Python hook is a plugin or gateway hook written for the original agent in Python, run
// unchanged by a persistent co-process: python3 running the host script below (embedded),
// which imports the hook's package and answers one JSON line per request line, over the
// framing of persistent hooks (persistent.go): request ids, restarts, instances, timeouts
// killing the process group, the circuit. The host keeps its answers on a copy of the
// original stdout and points file descriptor 1 and sys.stdout at stderr, so that what a
// callback prints goes to the debug log and never passes for an answer. It sets RLIMIT_AS
// to the hook's memory cap before importing anything of the hook.
//
// Request lines: {"request_id", "index", "hook", "kwargs"} (a plugin: the index-th
// registration of register(ctx), called with the kwargs as keyword arguments) or
// {"request_id", "event", "context"} (a gateway hook: handle(event_type, context)). An
// async callback is run to completion on the process's event loop. Answer lines:
// {"request_id", "return": value} or {"request_id", "error": "ValueError: ...",
// "where": "file:line"}, where is the innermost frame of the traceback in the hook's
// directory.

//go:embed pyhost/host.py
var pythonHost string

// Kinds of Python hooks.
const (
	PythonPlugin  = "plugin"  // plugins/<name>/: plugin.yaml and a package whose register(ctx) registers callbacks
	PythonGateway = "gateway" // hooks/<name>/: HOOK.yaml and handler.py with handle(event_type, context)
)

// pythonImportGrace is how much longer than its timeout the first call of a co-process may
// take: it waits for Python to start and import the hook (as DescribePython does).
const pythonImportGrace = 30 * time.Second

// PythonMinVersion is the oldest Python the host script runs on.
var PythonMinVersion = [2]int{3, 9}

// DefaultPython is the interpreter of a Python hook whose manifest names none, looked up
// on $PATH.
const DefaultPython = "python3"

// PythonSpec says how to run one Python hook.
type PythonSpec struct {
	Kind string // PythonPlugin or PythonGateway
	Dir  string // the hook's directory (the package of a plugin)
	// Python is the interpreter: a path, or a name looked up on $PATH; "" = DefaultPython.
	Python string
	// Executable is the interpreter's own path (sys.executable), from DescribePython: the
	// co-processes run it directly, not Python through a launcher found on $PATH (pyenv's
	// shim runs a tree of shell scripts, most of a second, at each start). "" = Python.
	Executable string
	Timeout    time.Duration // of each call; 0 = DefaultTimeout
	Instances  int           // co-processes at most; 0 = 1
	Memory     int64         // RLIMIT_AS of each co-process in bytes; 0 = no cap
	FailClosed bool          // pre_tool_call: a failed call blocks (set by the caller, see NewPython)
	// Check, when not nil, is asked before each co-process starts (the files it will
	// import may have changed since the hook was approved): an error refuses the start,
	// and the call fails with it.
	Check func() error
}

// PythonRegistration is one callback a Python plugin registered (ctx.register_hook), or a
// gateway hook's handle function (Name "handle").
type PythonRegistration struct {
	Name string `json:"name"`
	File string `json:"file"` // where the function is defined
	Line int    `json:"line"`
}

// PythonError is why a Python hook could not be loaded: Where is the file:line of the
// traceback's innermost frame in the hook's directory ("" when none).
type PythonError struct {
	Where string
	Msg   string
}

func (e *PythonError) Error() string {
	if e.Where == "" {
		return e.Msg
	}
	return e.Where + ": " + e.Msg
}

// python is what a Hook that runs a Python hook needs (Hook.py).
type python struct {
	spec  PythonSpec
	index int // of its registration
}

// interpreter is the program of spec.
func (s PythonSpec) interpreter() string {
	if s.Python == "" {
		return DefaultPython
	}
	return s.Python
}

// hostCmd is the command that runs the host script for spec; describe: once, to list the
// registrations.
func (s PythonSpec) hostCmd(ctx context.Context, describe bool) (*exec.Cmd, error) {
	prog := s.Executable
	if describe || prog == "" {
		var err error
		if prog, err = exec.LookPath(s.interpreter()); err != nil {
			return nil, &exec.Error{Name: s.interpreter(), Err: exec.ErrNotFound}
		}
	}
	args := []string{"-c", pythonHost, s.Kind, s.Dir, strconv.FormatInt(s.Memory, 10)}
	if describe {
		args = append(args, "describe")
	}
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Args[0] = s.interpreter()
	return cmd, nil
}

// PythonDescription is what DescribePython learnt of a Python hook.
type PythonDescription struct {
	Hooks      []PythonRegistration // what its register(ctx) registered (a gateway hook: handle)
	Version    string               // of the interpreter, "3.11.7"
	Executable string               // the interpreter's own path, for PythonSpec.Executable ("" when unknown)
}

// DescribePython runs the hook of spec once, in a process of its own with spec's limits and
// a timeout of at least 30 s (importing takes a while), and returns what it registered. A
// hook that cannot be imported or registered fails with a *PythonError; a Python that
// cannot be run or is older than PythonMinVersion, with an error that says so.
func DescribePython(ctx context.Context, spec PythonSpec) (PythonDescription, error) {
	ctx, cancel := context.WithTimeout(ctx, max(spec.Timeout, 30*time.Second))
	defer cancel()
	cmd, err := spec.hostCmd(ctx, true)
	if err != nil {
		return PythonDescription{}, fmt.Errorf("cannot run %s: not found on $PATH (install Python %d.%d or later, or name one with python: in the manifest)",
			spec.interpreter(), PythonMinVersion[0], PythonMinVersion[1])
	}
	stdout, stderr := &procgroup.Capped{Max: DefaultMaxOutput}, &procgroup.Capped{Max: DefaultMaxOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	run := procgroup.Track(cmd)
	cmd.WaitDelay = waitGrace
	err = cmd.Run()
	run.Kill()
	var got struct {
		Hooks      []PythonRegistration `json:"hooks"`
		Python     string               `json:"python"`
		Executable string               `json:"executable"`
		Error      *string              `json:"error"`
		Where      string               `json:"where"`
	}
	out := bytes.TrimSpace([]byte(stdout.String()))
	if jerr := json.Unmarshal(out, &got); jerr != nil || len(out) == 0 {
		why := lastLine(stderr.String())
		switch {
		case ctx.Err() != nil:
			why = "timed out while importing"
		case why == "" && err != nil:
			why = err.Error()
		}
		return PythonDescription{}, fmt.Errorf("%s did not load the hook: %s", spec.interpreter(), why)
	}
	if got.Error != nil {
		return PythonDescription{}, &PythonError{Where: got.Where, Msg: *got.Error}
	}
	if got.Hooks == nil {
		got.Hooks = []PythonRegistration{}
	}
	return PythonDescription{Hooks: got.Hooks, Version: got.Python, Executable: executable(got.Executable)}, nil
}

// executable is path when it is an absolute path to an executable regular file, else "".
func executable(path string) string {
	if !filepath.IsAbs(path) {
		return ""
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return ""
	}
	return path
}

// lastLine is the last non-blank line of s, for a message.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return truncateChars(strings.TrimSpace(lines[len(lines)-1]), stderrMessageLimit)
}

// NewPython returns the hooks that run the registrations of a Python hook: one Hook per
// registration (Event its name), all sharing one set of spec.Instances co-processes, so
// that the callbacks of one plugin share its module's state as in the original. Close
// any of them to stop the co-processes. FailClosed applies to the pre_tool_call ones.
func NewPython(spec PythonSpec, regs []PythonRegistration) []*Hook {
	shared := newPersistent(spec.Instances)
	hooks := make([]*Hook, 0, len(regs))
	for i, r := range regs {
		h := &Hook{Event: r.Name, Command: spec.Dir, Timeout: spec.Timeout, FailClosed: spec.FailClosed,
			Persistent: true, Instances: spec.Instances, py: &python{spec: spec, index: i}}
		if h.Timeout <= 0 {
			h.Timeout = DefaultTimeout
		}
		h.persist.Store(shared)
		hooks = append(hooks, h)
	}
	return hooks
}

// pythonPayload is the request of one call of a Python hook. A gateway hook's kwargs are
// {"event": event type, "context": its context}.
func (h *Hook) pythonPayload(kwargs map[string]any) ([]byte, error) {
	w := &sanitizer{budget: maxSanitizeNodes}
	if h.py.spec.Kind == PythonGateway {
		return encodePayload(struct {
			Event   any `json:"event"`
			Context any `json:"context"`
		}{w.value(kwargs["event"], 0), w.value(kwargs["context"], 0)})
	}
	return encodePayload(struct {
		Index  int    `json:"index"`
		Hook   string `json:"hook"`
		Kwargs any    `json:"kwargs"`
	}{h.py.index, h.Event, w.value(kwargs, 0)})
}

// pythonAnswer reads the host's answer to a call: the callback's return value, read as a Lua
// callback's (hookspec.Normalise), or its error with the file:line it was raised at.
func (h *Hook) pythonAnswer(res Result, parsed any) Result {
	obj, _ := parsed.(map[string]any)
	if msg, ok := obj["error"].(string); ok {
		res.Status = hookspec.StatusError
		where, _ := obj["where"].(string)
		res.Err = (&PythonError{Where: where, Msg: msg}).Error()
		h.failClosed(&res, res.Err)
		return res
	}
	res.Parsed = obj["return"]
	if res.Parsed != nil {
		res.Answer = hookspec.Normalise(h.Event, res.Parsed)
	}
	return res
}

// pythonKind names a Python hook in messages.
func (h *Hook) pythonKind() string {
	if h.py.spec.Kind == PythonGateway {
		return "python gateway hook"
	}
	return "python plugin"
}

// kindName names the hook's kind in messages.
func (h *Hook) kindName() string {
	if h.py != nil {
		return h.pythonKind()
	}
	return "shell hook"
}

// PythonVersion runs interpreter (a path, or a name looked up on $PATH; "" =
// DefaultPython) to learn its version, "3.11.7". One that cannot be run, or is older than
// PythonMinVersion, is an error saying so.
func PythonVersion(ctx context.Context, interpreter string) (string, error) {
	spec := PythonSpec{Python: interpreter}
	prog, err := exec.LookPath(spec.interpreter())
	if err != nil {
		return "", fmt.Errorf("%s not found", spec.interpreter())
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, prog, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])").Output()
	if err != nil {
		return "", fmt.Errorf("%s does not run: %v", spec.interpreter(), err)
	}
	version := strings.TrimSpace(string(out))
	var major, minor int
	if _, err := fmt.Sscanf(version, "%d.%d", &major, &minor); err != nil {
		return "", fmt.Errorf("%s printed %q for its version", spec.interpreter(), truncateChars(version, 80))
	}
	if major < PythonMinVersion[0] || major == PythonMinVersion[0] && minor < PythonMinVersion[1] {
		return version, fmt.Errorf("%s is Python %s, older than %d.%d", spec.interpreter(), version, PythonMinVersion[0], PythonMinVersion[1])
	}
	return version, nil
}
