package shell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/hermes-hooks/hermes/hookspec"

	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/procgroup"
)

// DefaultMaxOutput caps stdout and stderr each when RunOptions.MaxOutput is 0.
const DefaultMaxOutput = 1 << 20

// exitBlock is the pre_tool_call exit code that blocks without JSON.
const exitBlock = 2

// stderrMessageLimit caps, in characters, a block message taken from stderr.
const stderrMessageLimit = 400

// waitGrace bounds how long Run waits for the output pipes after the hook exited or was
// killed: a grandchild that escaped the process group and keeps stdout open cannot hold us.
const waitGrace = time.Second

// RunOptions configure one Run; the zero value works.
type RunOptions struct {
	Logger    *slog.Logger // debug logs of the run; nil = discard
	MaxOutput int          // cap in bytes for stdout and for stderr each; 0 = DefaultMaxOutput
	Cwd       string       // working directory of the hook and the payload's cwd; "" = os.Getwd
	// AllowedURLs are the managed policy's allowed_http_urls: a type: http hook whose URL
	// matches one may reach private addresses (netguard.MatchURL). nil = none.
	AllowedURLs []string
	// Getenv fills the header values of a type: http hook; nil = os.Getenv.
	Getenv func(string) string

	session string // the firing's session id, for a hook written for another agent (agentEnv)
}

// Result is the outcome of one firing.
type Result struct {
	Status     hookspec.Status // ok: the process ran and exited (with any exit code); timeout: its process group was killed
	ExitCode   int             // -1 when not started or killed by a signal, and for a type: http hook
	HTTPStatus int             // type: http: the answer's status code; 0 when none came
	Stdout     string          // as captured, capped
	Stderr     string          // as captured, capped
	Parsed     any             // stdout decoded as JSON (nil if empty or invalid): the hook's raw answer
	Answer     hookspec.Answer // Parsed read by hookspec.Normalise, or a block (exit code 2, fail_closed)
	Err        string          // warning or error for the user's log; "" when fine
	Duration   time.Duration   // how long it ran, without Wait
	Wait       time.Duration   // how long a persistent hook's firing waited for a free co-process
}

// Run fires the hook once: the JSON payload of BuildPayload on stdin (then closed), argv run
// without a shell, environment inherited (plus the run's mark, procgroup.Track), working
// directory opts.Cwd or the host's, in its own process group. On timeout or when ctx is done
// the whole group is killed, and on Linux every process carrying the run's mark (setsid
// daemons too); what is left of them when the hook exits is killed as well. stdout and
// stderr are captured up to the cap and drained beyond it. For the tool events, a hook whose
// matcher does not match kwargs["tool_name"] is not spawned (hookspec.StatusSkipped). Run
// never panics on a bad hook and never returns a Go error: every problem is in the Result.
// Safe for concurrent use.
func (h *Hook) Run(ctx context.Context, kwargs map[string]any, opts RunOptions) Result {
	start := time.Now()
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("hook", h.display(), "event", h.Event)
	res := h.run(ctx, kwargs, opts, log)
	res.Duration = time.Since(start) - res.Wait
	log.Debug("shell hook finished", "status", res.Status, "exit_code", res.ExitCode,
		"duration", res.Duration, "err", res.Err)
	return res
}

// Selects reports whether Run would start the hook for a call with kwargs: its matcher,
// and the if condition of a hook written for another agent, select the call.
func (h *Hook) Selects(kwargs map[string]any, opts RunOptions) bool {
	return h.selects(kwargs) && h.meets(kwargs, h.workDir(opts))
}

func (h *Hook) run(ctx context.Context, kwargs map[string]any, opts RunOptions, log *slog.Logger) Result {
	if !h.selects(kwargs) {
		return Result{Status: hookspec.StatusSkipped, ExitCode: -1}
	}
	if h.Dialect != "" {
		if why := h.ambiguous(kwargs); why != "" { // before its if condition, which reads one of them
			return h.refused(why)
		}
	}
	cwd := h.workDir(opts)
	if !h.meets(kwargs, cwd) { // its if condition: not spawned, as in its agent
		return Result{Status: hookspec.StatusSkipped, ExitCode: -1}
	}
	opts.Cwd = cwd
	opts.session = firstString(kwargs["session_id"], kwargs["parent_session_id"], kwargs["session_key"])
	var in []byte
	var err error
	switch {
	case h.py != nil:
		in, err = h.pythonPayload(kwargs)
	case h.Dialect != "":
		in, err = dialectPayload(h.Dialect, h.Event, kwargs, cwd, h.toolTable())
	default:
		in, err = BuildPayload(h.Event, kwargs, cwd)
	}
	if err != nil {
		return h.failed(hookspec.StatusError, err.Error())
	}
	if err := ctx.Err(); err != nil {
		return h.failed(hookspec.StatusCancelled, "not started: "+err.Error())
	}
	if h.Type == TypeHTTP {
		return h.post(ctx, in, kwargs, opts, log)
	}
	if h.Persistent {
		return h.exchange(ctx, in, opts, log)
	}
	return h.spawn(ctx, in, kwargs, opts, log)
}

// limits are the hook's timeout and output cap, defaults applied.
func (h *Hook) limits(opts RunOptions) (timeout time.Duration, maxOutput int) {
	timeout, maxOutput = h.Timeout, opts.MaxOutput
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if maxOutput <= 0 {
		maxOutput = DefaultMaxOutput
	}
	return timeout, maxOutput
}

// spawn runs the process and interprets its outcome.
func (h *Hook) spawn(ctx context.Context, stdin []byte, kwargs map[string]any, opts RunOptions, log *slog.Logger) Result {
	timeout, limit := h.limits(opts)
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	cmd, err := h.newCmd(tctx, opts.Cwd, opts.session)
	if err != nil {
		return h.failed(hookspec.StatusError, h.spawnError(err, nil))
	}
	cmd.Stdin = bytes.NewReader(stdin)
	stdout, stderr := &procgroup.Capped{Max: limit}, &procgroup.Capped{Max: limit}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	run := procgroup.Track(cmd)
	cmd.WaitDelay = waitGrace

	log.Debug("shell hook starting", "program", cmd.Path, "argv", cmd.Args, "timeout", timeout)
	if err := cmd.Start(); err != nil {
		return h.failed(hookspec.StatusError, h.spawnError(err, cmd))
	}
	waitErr := cmd.Wait()
	// Nothing the hook started outlives its run: kill what is left of its process group
	// (background jobs) and, on Linux, every process carrying the run's mark (daemons that
	// left the group with setsid). The group id cannot have been reused while any member is
	// alive; if none is, this finds no process.
	run.Kill()
	res := Result{Status: hookspec.StatusOK, ExitCode: cmd.ProcessState.ExitCode(),
		Stdout: stdout.String(), Stderr: stderr.String()}
	if stderr.Dropped > 0 {
		log.Debug("shell hook stderr truncated", "dropped_bytes", stderr.Dropped)
	}
	if s := strings.TrimSpace(res.Stderr); s != "" {
		log.Debug("shell hook stderr", "stderr", truncateChars(s, stderrMessageLimit))
	}
	if errors.Is(waitErr, exec.ErrWaitDelay) {
		log.Debug("shell hook left its output open after exiting; pipes closed")
	}
	if run.Killed() {
		why := fmt.Sprintf("cancelled (%v)", context.Cause(ctx))
		res.Status = hookspec.StatusCancelled
		if ctx.Err() == nil {
			why, res.Status = fmt.Sprintf("timed out after %s", timeout), hookspec.StatusTimeout
		}
		res.Err = h.errorf("%s; process group killed", why)
		h.failClosed(&res, why)
		return res
	}
	if h.Dialect != "" {
		h.interpretClaude(&res, kwargs, stdout, limit, log)
	} else {
		h.interpret(&res, cmd.ProcessState, stdout, limit)
	}
	return res
}

// interpretClaude reads the outcome of a Claude Code hook that exited.
func (h *Hook) interpretClaude(res *Result, kwargs map[string]any, stdout *procgroup.Capped, limit int, log *slog.Logger) {
	if stdout.Dropped > 0 {
		res.Status, res.Err = hookspec.StatusError, h.errorf("stdout exceeded %d bytes and was truncated; output ignored", limit)
		h.failClosed(res, "stdout truncated")
		return
	}
	var problem string
	res.Parsed, res.Answer, problem = dialectOutcome(h.Dialect, h.Event, res.ExitCode, res.Stdout, res.Stderr, h.toolTable(), kwargs)
	if obj, ok := res.Parsed.(map[string]any); ok {
		if msg, _ := obj["systemMessage"].(string); strings.TrimSpace(msg) != "" {
			log.Warn("shell hook message: "+msg, "hook", h.display(), "event", h.Event)
		}
	}
	if res.ExitCode < 0 {
		problem = "terminated by a signal"
	}
	if problem != "" {
		res.Status, res.Err = hookspec.StatusError, h.errorf("%s", problem)
		if res.Answer.Kind == hookspec.None {
			h.failClosed(res, problem)
		}
	}
}

// interpret parses the output of a hook that exited, applying the wire protocol, exit code 2 and fail_closed.
func (h *Hook) interpret(res *Result, state *os.ProcessState, stdout *procgroup.Capped, limit int) {
	var problems []string
	malformed := ""
	if stdout.Dropped > 0 {
		malformed = fmt.Sprintf("stdout exceeded %d bytes and was truncated", limit)
		problems = append(problems, malformed+"; output ignored")
	} else {
		var err error
		res.Parsed, res.Answer, err = parseOutput(h.Event, stdout.Bytes())
		if err != nil {
			malformed = "unparseable stdout (expected a JSON object)"
			problems = append(problems, notJSON(err, res.Stdout))
			if !(h.Event == hooknames.PreToolCall && res.ExitCode == exitBlock) { // exit 2 blocks all the same
				res.Status = hookspec.StatusError
			}
		} else if unexpected(res.Parsed, res.Answer) {
			malformed = "unparseable stdout (expected a JSON object)"
		}
	}
	if h.Event == hooknames.PreToolCall && res.ExitCode == exitBlock {
		if res.Answer.Kind != hookspec.Block {
			msg := truncateChars(strings.TrimSpace(res.Stderr), stderrMessageLimit)
			if msg = strings.TrimSpace(msg); msg == "" {
				msg = DefaultBlockMessage
			}
			res.Answer = blockAnswer(msg)
		}
	} else if res.ExitCode > 0 {
		problems = append(problems, fmt.Sprintf("exited with status %d", res.ExitCode))
	} else if res.ExitCode < 0 {
		problems = append(problems, "terminated: "+state.String())
	}
	if len(problems) > 0 {
		res.Err = h.errorf("%s", strings.Join(problems, "; "))
	}
	if malformed != "" && res.Answer.Kind == hookspec.None {
		h.failClosed(res, malformed)
	}
}

// notJSON is the problem of a stdout that is not one JSON value: its answer is lost, so the
// hook failed; the usual cause is a log line printed to stdout.
func notJSON(err error, stdout string) string {
	return fmt.Sprintf("stdout is not valid JSON (%v): %q; print logs to stderr (>&2): stdout holds only the JSON answer",
		err, truncateChars(strings.TrimSpace(stdout), 80))
}

// failClosed turns res into a block when the hook is fail_closed (pre_tool_call only). The
// block, which the model sees as the tool's error, says which hook failed and how (res's
// status: error, timeout, cancelled, busy); why (a path, a host, the hook's output) is the
// operator's, in res.Err.
func (h *Hook) failClosed(res *Result, why string) {
	if h.FailClosed && h.Event == hooknames.PreToolCall {
		class := res.Status
		if class == hookspec.StatusOK { // a malformed answer, before its status is set
			class = hookspec.StatusError
		}
		res.Answer = blockAnswer(fmt.Sprintf("%s %q failed closed (%s)", h.kindName(), h.display(), class))
		if res.Err == "" {
			res.Err = h.errorf("%s", why)
		}
	}
}

// refused is the Result of a hook that is not run because its call is ambiguous: an error,
// and on pre_tool_call a block, whether or not the hook fails closed (the guard cannot be
// shown what the tool will use).
func (h *Hook) refused(why string) Result {
	res := Result{Status: hookspec.StatusError, ExitCode: -1, Err: h.errorf("not run: %s", why)}
	if h.Event == hooknames.PreToolCall {
		res.Answer = blockAnswer("blocked: " + why)
	}
	return res
}

// failed is the Result of a hook that did not run.
func (h *Hook) failed(status hookspec.Status, msg string) Result {
	res := Result{Status: status, ExitCode: -1, Err: h.errorf("%s", msg)}
	h.failClosed(&res, msg)
	return res
}

// errorf prefixes a message with the hook's command.
func (h *Hook) errorf(format string, args ...any) string {
	return fmt.Sprintf("%s %q: ", h.kindName(), h.display()) + fmt.Sprintf(format, args...)
}

// spawnError explains why the process could not be started, with what to do about it. cmd is
// the process that failed to start, nil when none could be built. The program is named as
// written in the command (its argv[0]).
func (h *Hook) spawnError(err error, cmd *exec.Cmd) string {
	var execErr *exec.Error
	if errors.As(err, &execErr) {
		if errors.Is(execErr.Err, exec.ErrNotFound) {
			return fmt.Sprintf("cannot run %s: executable file not found in $PATH", execErr.Name)
		}
		return fmt.Sprintf("cannot run %s: %v", execErr.Name, execErr.Err)
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) || cmd == nil {
		return "cannot start: " + err.Error()
	}
	if pe.Op == "chdir" {
		return fmt.Sprintf("cannot use working directory %s: %v", pe.Path, pe.Err)
	}
	path := pe.Path
	if path == cmd.Path {
		path = cmd.Args[0]
	}
	info, statErr := os.Stat(pe.Path)
	if cmd.Dir != "" && !strings.HasPrefix(pe.Path, "/") {
		info, statErr = os.Stat(cmd.Dir + "/" + pe.Path)
	}
	switch {
	case errors.Is(pe.Err, fs.ErrNotExist) && statErr == nil:
		return fmt.Sprintf("cannot run %s: its interpreter was not found (check the #! line)", path)
	case errors.Is(pe.Err, fs.ErrNotExist):
		return fmt.Sprintf("cannot run %s: no such file or directory", path)
	case errors.Is(pe.Err, fs.ErrPermission) && statErr == nil && info.IsDir():
		return fmt.Sprintf("cannot run %s: is a directory", path)
	case errors.Is(pe.Err, fs.ErrPermission):
		return fmt.Sprintf("cannot run %s: permission denied (make it executable: chmod +x %s)", path, path)
	case errors.Is(pe.Err, syscall.ENOEXEC):
		return fmt.Sprintf("cannot run %s: exec format error (a script needs a #! line, e.g. #!/bin/sh)", path)
	}
	return fmt.Sprintf("cannot run %s: %v", path, pe.Err)
}

// truncateChars returns the first n characters (runes) of s.
func truncateChars(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
