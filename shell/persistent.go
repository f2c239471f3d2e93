package shell

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/hermes-hooks/hermes/hookspec"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hermes-hooks/hermes/internal/procgroup"
	"gopkg.in/yaml.v3"
)

// A persistent hook (`persistent: true`) is started once, on its first firing, and then
// answers one JSON line on stdout for each JSON line of payload written to its stdin:
//
//	while IFS= read -r line; do echo '{}'; done
//
// This saves the fork/exec of every firing (a millisecond or more) for hooks that fire on every
// tool call. The answer line is interpreted like the stdout of an ordinary hook (ParseOutput,
// fail_closed); exit code 2 has no meaning here, and stderr only goes to the debug log.
//
// Firings of one hook are serialised: one payload, one answer, then the next firing. A process
// that exited (crashed, or ended its loop) is restarted on the next firing with a warning. A
// firing that runs out of time, or whose context is cancelled, kills the process group and the
// next firing starts a new process. An answer longer than the output cap kills the process too:
// the rest of the line cannot be told from the next answer. Hook.Close stops the process.

// closeGrace is how long Close lets a persistent process end by itself after its stdin is
// closed, before its process group is killed.
const closeGrace = 500 * time.Millisecond

// errLineTooLong is the answer of a persistent hook longer than the output cap.
var errLineTooLong = errors.New("answer line too long")

// persistent is the state of one persistent hook: at most one process, and a semaphore that
// lets one firing at a time talk to it.
type persistent struct {
	sem chan struct{}

	mu     sync.Mutex // guards the fields below; never held while talking to the process
	proc   *proc
	closed bool
	why    string // why the previous process is gone ("" = none ended yet), for the restart warning
	starts int
}

// proc is one running process of a persistent hook.
type proc struct {
	cmd    *exec.Cmd
	stdin  *os.File // our end of the process's stdin
	stdout *os.File // our end of the process's stdout
	r      *bufio.Reader
	done   chan struct{} // closed once the process was reaped; err is set then
	err    error
	stop   sync.Once
}

// state returns the persistent state of h, creating it on first use.
func (h *Hook) state() *persistent {
	if p := h.persist.Load(); p != nil {
		return p
	}
	h.persist.CompareAndSwap(nil, &persistent{sem: make(chan struct{}, 1)})
	return h.persist.Load()
}

// Close stops the process of a persistent hook: its stdin is closed, it gets closeGrace to
// exit, then its whole process group is killed. Close returns once the process is reaped;
// later firings report an error. It does nothing for an ordinary hook and is safe to call
// more than once and concurrently with Run.
func (h *Hook) Close() {
	p := h.persist.Load()
	if p == nil {
		return
	}
	p.mu.Lock()
	pr := p.proc
	p.proc, p.closed = nil, true
	p.mu.Unlock()
	if pr != nil {
		pr.shutdown(closeGrace)
	}
}

// Starts reports how many times the process of a persistent hook was started (0 for an
// ordinary hook or one that never fired).
func (h *Hook) Starts() int {
	p := h.persist.Load()
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.starts
}

// exchange fires a persistent hook: payload is written as one line to its process, started
// if needed, and one line is read back.
func (h *Hook) exchange(ctx context.Context, payload []byte, opts RunOptions, log *slog.Logger) Result {
	timeout, limit := h.limits(opts)
	deadline := time.Now().Add(timeout)
	p := h.state()
	if res, ok := h.acquire(ctx, p, deadline, timeout); !ok {
		return res
	}
	defer func() { <-p.sem }()

	pr, err := h.ready(p, opts, log)
	if err != nil {
		return h.failed(hookspec.StatusError, err.Error())
	}
	line, err := pr.roundTrip(ctx, payload, deadline, limit)
	if isBrokenPipe(err) {
		// The process ended before reading the payload: nothing was consumed, so one
		// retry on a fresh process is safe.
		pr.shutdown(0)
		h.drop(p, pr, "exited ("+exitText(pr.err)+")", log)
		if pr, err = h.ready(p, opts, log); err != nil {
			return h.failed(hookspec.StatusError, err.Error())
		}
		line, err = pr.roundTrip(ctx, payload, deadline, limit)
	}
	if err != nil {
		return h.lost(ctx, p, pr, err, timeout, limit, log)
	}
	return h.answer(line)
}

// acquire waits for the hook's process to be free, up to the deadline or ctx.
func (h *Hook) acquire(ctx context.Context, p *persistent, deadline time.Time, timeout time.Duration) (Result, bool) {
	select {
	case p.sem <- struct{}{}:
		return Result{}, true
	default:
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case p.sem <- struct{}{}:
		return Result{}, true
	case <-t.C:
		why := fmt.Sprintf("busy: its process stayed busy with another firing for %s", timeout)
		res := Result{Status: hookspec.StatusBusy, ExitCode: -1, Err: h.errorf("%s", why)}
		h.failClosed(&res, why)
		return res, false
	case <-ctx.Done():
		return h.failed(hookspec.StatusCancelled, "not started: "+ctx.Err().Error()), false
	}
}

// ready returns the running process, starting it (with a warning when it replaces one that
// ended) if needed. The caller holds the semaphore.
func (h *Hook) ready(p *persistent, opts RunOptions, log *slog.Logger) (*proc, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("persistent hook is closed")
	}
	if pr := p.proc; pr != nil {
		select {
		case <-pr.done:
			p.proc, p.why = nil, "exited ("+exitText(pr.err)+")"
			pr.shutdown(0) // its children may still run
		default:
			return pr, nil
		}
	}
	if p.why != "" {
		log.Warn("persistent shell hook restarted", "previous", p.why, "restarts", p.starts)
	}
	pr, err := h.start(opts, log)
	if err != nil {
		return nil, err
	}
	p.proc, p.why = pr, ""
	p.starts++
	return pr, nil
}

// drop forgets pr (killing what is left of it) and records why, for the restart warning.
func (h *Hook) drop(p *persistent, pr *proc, why string, log *slog.Logger) {
	p.mu.Lock()
	if p.proc == pr {
		p.proc, p.why = nil, why
	}
	p.mu.Unlock()
	pr.shutdown(0)
	log.Debug("persistent shell hook process stopped", "why", why)
}

// lost turns a failed round trip into a Result: a timeout, a cancellation, an answer over
// the cap, or a process that ended without answering. The process is dropped in every case.
func (h *Hook) lost(ctx context.Context, p *persistent, pr *proc, err error, timeout time.Duration, limit int, log *slog.Logger) Result {
	res := Result{Status: hookspec.StatusError, ExitCode: -1}
	var why string
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() == nil:
		why, res.Status = fmt.Sprintf("timed out after %s", timeout), hookspec.StatusTimeout
		h.drop(p, pr, "timed out", log)
		res.Err = h.errorf("%s; process group killed, restarted on the next firing", why)
	case errors.Is(err, os.ErrDeadlineExceeded) || ctx.Err() != nil:
		why, res.Status = fmt.Sprintf("cancelled (%v)", context.Cause(ctx)), hookspec.StatusCancelled
		h.drop(p, pr, "cancelled", log)
		res.Err = h.errorf("%s; process group killed, restarted on the next firing", why)
	case errors.Is(err, errLineTooLong):
		why = fmt.Sprintf("unparseable stdout (answer line longer than %d bytes)", limit)
		h.drop(p, pr, "answer too long", log)
		res.Status, res.Err = hookspec.StatusOK, h.errorf("%s; process killed, restarted on the next firing", why)
	default:
		h.drop(p, pr, "exited without answering", log)
		<-pr.done
		res.ExitCode = pr.cmd.ProcessState.ExitCode()
		why = "exited without answering (" + exitText(pr.err) + ")"
		if errors.Is(err, os.ErrClosed) {
			why = "closed while firing"
		}
		res.Err = h.errorf("%s; restarted on the next firing", why)
	}
	h.failClosed(&res, why)
	return res
}

// answer interprets one answer line like the stdout of an ordinary hook.
func (h *Hook) answer(line []byte) Result {
	res := Result{Status: hookspec.StatusOK, Stdout: strings.TrimRight(string(line), "\r\n")}
	var err error
	res.Parsed, res.Answer, err = parseOutput(h.Event, line)
	malformed := ""
	if err != nil {
		malformed = "unparseable stdout (expected a JSON object)"
		res.Status, res.Err = hookspec.StatusError, h.errorf("%s", notJSON(err, res.Stdout))
	} else if unexpected(res.Parsed, res.Answer) {
		malformed = "unparseable stdout (expected a JSON object)"
	}
	if malformed != "" && res.Answer.Kind == hookspec.None {
		h.failClosed(&res, malformed)
	}
	return res
}

// start starts the hook's process in its own process group. The error says why, for people.
func (h *Hook) start(opts RunOptions, log *slog.Logger) (*proc, error) {
	cmd, err := h.newCmd(context.Background(), opts.Cwd)
	if err != nil {
		return nil, errors.New(h.spawnError(err, nil))
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, errors.New(h.spawnError(err, nil))
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, errors.New(h.spawnError(err, nil))
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	cmd.Stderr = &stderrLog{log: log}
	cmd.WaitDelay = waitGrace
	procgroup.Set(cmd)
	log.Debug("persistent shell hook starting", "program", cmd.Path, "argv", cmd.Args)
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, errors.New(h.spawnError(err, cmd))
	}
	pr := &proc{cmd: cmd, stdin: inW, stdout: outR, r: bufio.NewReaderSize(outR, 64<<10), done: make(chan struct{})}
	go func() {
		pr.err = cmd.Wait()
		close(pr.done)
	}()
	return pr, nil
}

// roundTrip writes one payload line and reads one answer line, both before deadline; a
// cancelled ctx interrupts them. The returned line is valid until the next read.
func (pr *proc) roundTrip(ctx context.Context, payload []byte, deadline time.Time, limit int) ([]byte, error) {
	if ctx.Done() != nil {
		fired := make(chan struct{})
		stop := context.AfterFunc(ctx, func() {
			pr.stdin.SetWriteDeadline(time.Unix(1, 0))
			pr.stdout.SetReadDeadline(time.Unix(1, 0))
			close(fired)
		})
		defer func() {
			if !stop() {
				<-fired // so that it cannot touch the deadlines of a later firing
			}
		}()
	}
	if err := pr.stdin.SetWriteDeadline(deadline); err != nil {
		return nil, err
	}
	if _, err := pr.stdin.Write(payload); err != nil {
		return nil, err
	}
	if err := pr.stdout.SetReadDeadline(deadline); err != nil {
		return nil, err
	}
	return readLine(pr.r, limit)
}

// readLine reads up to and including '\n'; a line (without its newline) longer than limit is
// errLineTooLong. A final line without a newline is returned with io.EOF.
func readLine(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if err == nil && line == nil && len(chunk) <= limit+1 {
			return chunk, nil // the common case: no copy
		}
		if len(line)+len(bytes.TrimSuffix(chunk, []byte{'\n'})) > limit {
			return nil, errLineTooLong
		}
		line = append(line, chunk...)
		if err == nil {
			return line, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if errors.Is(err, io.EOF) && len(bytes.TrimSpace(line)) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

// shutdown closes the process's stdin, gives it grace to exit, kills its process group and
// waits until it is reaped. Safe to call more than once.
func (pr *proc) shutdown(grace time.Duration) {
	pr.stop.Do(func() {
		pr.stdin.Close()
		if grace > 0 {
			t := time.NewTimer(grace)
			select {
			case <-pr.done:
			case <-t.C:
			}
			t.Stop()
		}
		procgroup.Kill(pr.cmd.Process) // the leader, or children it left behind
		pr.stdout.Close()
		<-pr.done
	})
}

// isBrokenPipe reports whether a write failed because the process no longer reads its stdin.
func isBrokenPipe(err error) bool {
	return err != nil && (errors.Is(err, errEPIPE) || errors.Is(err, os.ErrClosed))
}

// exitText describes how a process ended, from the error of cmd.Wait.
func exitText(err error) string {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "exit status 0"
	case errors.As(err, &ee):
		return ee.ProcessState.String()
	}
	return err.Error()
}

// stderrLog sends the stderr of a persistent process to the debug log, one record a line.
type stderrLog struct {
	log     *slog.Logger
	partial []byte
}

func (w *stderrLog) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if room := stderrMessageLimit - len(w.partial); room > 0 {
				w.partial = append(w.partial, p[:min(room, len(p))]...)
			}
			break
		}
		line := append(w.partial, p[:min(i, max(stderrMessageLimit-len(w.partial), 0))]...)
		if s := strings.TrimSpace(string(line)); s != "" {
			w.log.Debug("persistent shell hook stderr", "line", s)
		}
		w.partial, p = w.partial[:0], p[i+1:]
	}
	return n, nil
}

// persistentField parses the persistent key of a hook entry.
func (p *parser) persistentField(where string, n *yaml.Node) bool {
	if isNull(n) {
		return false
	}
	var v bool // only true or false: a string such as "yes" is a mistake, not a yes
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&v) != nil {
		p.warn(n, "%s: persistent must be true or false, got %q; using false (one process per firing)", where, n.Value)
		return false
	}
	return v
}
