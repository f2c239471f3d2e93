package shell

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"

	"github.com/hermes-hooks/hermes/internal/hooknames"
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
// Framing: each payload line starts with a "request_id" (a string unique to the firing), and
// an answer object that carries "request_id" must carry that one. An answer is in step when
// it carries the id of its payload, or (not for a fail_closed hook) carries none while no
// other line is waiting. Anything else is out of step: a line nobody asked for (read before
// the payload is written, or waiting after the answer), another id, a line that is not JSON,
// an answer without the id from a fail_closed hook. A process out of step is killed (restarted
// on the next firing) and the firing is a hook error that fails closed; lines after an answer
// with the right id are reported and the process restarted, but that answer stands.
//
// A goroutine per process reads its stdout line by line into a small queue, so the lines
// waiting at any moment can be seen without blocking.
//
// Firings of one process are serialised: one payload, one answer, then the next firing; a
// hook has Instances processes at most, each in a slot of its pool (pool.go). A process that
// exited (crashed, or ended its loop) is restarted on the next firing with a warning. A
// firing that runs out of time, or whose context is cancelled, kills the process group and the
// next firing starts a new process; firings that keep getting no answer open the hook's
// circuit (pool.go). An answer longer than the output cap kills the process too: the rest of
// the line cannot be told from the next answer. Hook.Close stops the processes.

// closeGrace is how long Close lets a persistent process end by itself after its stdin is
// closed, before its process group is killed.
const closeGrace = 500 * time.Millisecond

// queuedLines is how many lines of a persistent process are read ahead of the firing that
// wants them; beyond that the reader, then the process, waits.
const queuedLines = 8

// maxExtraShown is how many lines nobody asked for a problem quotes; extraLineChars caps each.
const (
	maxExtraShown  = 3
	extraLineChars = 120
)

// errLineTooLong is the answer of a persistent hook longer than the output cap.
var errLineTooLong = errors.New("answer line too long")

// proc is one running process of a persistent hook.
type proc struct {
	cmd    *exec.Cmd
	run    *procgroup.Run
	stdin  *os.File      // our end of the process's stdin
	stdout *os.File      // our end of the process's stdout, read by pr.read only
	lines  chan outLine  // its stdout, in order; closed when read returns
	held   outLine       // what came with an answer, not looked at yet; only the firing holding its slot
	served bool          // it answered a firing; only the firing holding its slot
	quit   chan struct{} // closed by shutdown: read stops sending
	done   chan struct{} // closed once the process was reaped; err is set then
	err    error
	stop   sync.Once
}

// outLine is the lines of a persistent process's stdout read together (without their
// newlines), and then, in the last message, the error that ended reading it: io.EOF,
// io.ErrUnexpectedEOF, errLineTooLong, ... Lines that arrived together stay together, so an
// extra line printed with an answer is seen with it.
type outLine struct {
	texts [][]byte
	err   error
}

// state returns the persistent state of h, creating it on first use.
func (h *Hook) state() *persistent {
	if p := h.persist.Load(); p != nil {
		return p
	}
	h.persist.CompareAndSwap(nil, newPersistent(h.Instances))
	return h.persist.Load()
}

// Close stops the processes of a persistent hook: their stdin is closed, they get closeGrace
// to exit, then their whole process groups are killed. Close returns once they are reaped;
// later firings report an error. It does nothing for an ordinary hook and is safe to call
// more than once and concurrently with Run.
func (h *Hook) Close() {
	h.closeHTTP()
	p := h.persist.Load()
	if p == nil {
		return
	}
	p.mu.Lock()
	var procs []*proc
	for _, s := range p.all {
		if s.proc != nil {
			procs = append(procs, s.proc)
		}
		s.proc = nil
	}
	p.closed = true
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, pr := range procs {
		wg.Go(func() { pr.shutdown(closeGrace) })
	}
	wg.Wait()
}

// Starts reports how many times a process of a persistent hook was started, all instances
// together (0 for an ordinary hook or one that never fired).
func (h *Hook) Starts() int {
	p := h.persist.Load()
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.starts
}

// exchange fires a persistent hook: payload is written as one line, with a request id, to the
// process of a free slot, started if needed, and one line is read back and checked against
// the id. While the hook's circuit is open (pool.go) it fails at once.
func (h *Hook) exchange(ctx context.Context, payload []byte, opts RunOptions, log *slog.Logger) (res Result) {
	timeout, limit := h.limits(opts)
	deadline := time.Now().Add(timeout)
	p := h.state()
	if _, why := h.allow(p, false); why != "" { // no waiting for a slot either
		return h.failed(hookspec.StatusError, why)
	}
	waitStart := time.Now()
	s, res, ok := h.acquire(ctx, p, deadline, timeout)
	wait := time.Since(waitStart)
	defer func() { res.Wait = wait }() // runs last: settle sees the firing's own result
	if !ok {
		return res
	}
	defer p.release(s)
	probe, why := h.allow(p, true) // the circuit may have opened while this firing waited
	if why != "" {
		return h.failed(hookspec.StatusError, why)
	}
	var failure string // why no answer came, for the circuit
	defer func() { h.settle(p, probe, res, failure, log) }()
	res, failure = h.fire(ctx, s, payload, deadline, timeout, opts, limit, log)
	return res
}

// fire is one round trip with the process of slot s; failure says why no answer came ("" when
// one did, or the firing was cancelled).
func (h *Hook) fire(ctx context.Context, s *slot, payload []byte, deadline time.Time, timeout time.Duration, opts RunOptions, limit int, log *slog.Logger) (Result, string) {
	pr, err := h.ready(s, opts, limit, log)
	if err != nil {
		return h.failed(hookspec.StatusError, err.Error()), err.Error()
	}
	id := newRequestID(s.p.seq.Add(1))
	if extra := pr.waiting(); extra.printed() {
		return h.outOfStep(s, pr, Result{}, fmt.Sprintf("out of step: printed %s before request %s, which nobody asked for; "+
			"print logs to stderr (>&2) and exactly one answer line per payload line", extra, id), log), ""
	} else if extra.end != nil {
		// It closed its stdout and printed nothing more: it ended its loop. This firing
		// goes to a new process.
		pr.shutdown(closeGrace)
		h.drop(s, pr, "exited ("+exitText(pr.err)+")", log)
		if pr, err = h.ready(s, opts, limit, log); err != nil {
			return h.failed(hookspec.StatusError, err.Error()), err.Error()
		}
	}
	if h.py != nil && !pr.served { // its first call waits for the import of the hook too
		deadline = deadline.Add(pythonImportGrace)
	}
	line := withRequestID(payload, id)
	err = pr.send(ctx, line, deadline)
	if isBrokenPipe(err) {
		// The process ended before reading the payload: nothing was consumed, so one
		// retry on a fresh process is safe.
		pr.shutdown(0)
		h.drop(s, pr, "exited ("+exitText(pr.err)+")", log)
		if pr, err = h.ready(s, opts, limit, log); err != nil {
			return h.failed(hookspec.StatusError, err.Error()), err.Error()
		}
		err = pr.send(ctx, line, deadline)
	}
	var answer []byte
	if err == nil {
		answer, err = pr.receive(ctx, deadline)
	}
	if err != nil {
		return h.lost(ctx, s, pr, err, timeout, limit, log)
	}
	pr.served = true
	return h.answer(s, pr, answer, id, log), ""
}

// newRequestID is the request id of the seq-th firing of a hook: the number, for people
// reading logs, and a random part, so that no line can guess the id of a later firing.
func newRequestID(seq uint64) string {
	return strconv.FormatUint(seq, 10) + "-" + rand.Text()[:12]
}

// ready returns the running process of slot s, starting it (with a warning when it replaces
// one that ended) if needed. The caller holds the slot.
func (h *Hook) ready(s *slot, opts RunOptions, limit int, log *slog.Logger) (*proc, error) {
	p := s.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("persistent hook is closed")
	}
	if pr := s.proc; pr != nil {
		select {
		case <-pr.done:
			s.proc, s.why = nil, "exited ("+exitText(pr.err)+")"
			pr.shutdown(0) // its children may still run
		default:
			return pr, nil
		}
	}
	if s.why != "" {
		log.Warn("persistent shell hook restarted", "previous", s.why, "restarts", p.starts)
	}
	pr, err := h.start(opts, limit, log)
	if err != nil {
		return nil, err
	}
	s.proc, s.why = pr, ""
	p.starts++
	return pr, nil
}

// drop forgets pr (killing what is left of it) and records why, for the restart warning.
func (h *Hook) drop(s *slot, pr *proc, why string, log *slog.Logger) {
	s.p.mu.Lock()
	if s.proc == pr {
		s.proc, s.why = nil, why
	}
	s.p.mu.Unlock()
	pr.shutdown(0)
	log.Debug("persistent shell hook process stopped", "why", why)
}

// lost turns a failed round trip into a Result: a timeout, a cancellation, an answer over
// the cap, or a process that ended without answering. The process is dropped in every case.
// failure says why no answer came, for the circuit ("" for a cancellation or an answer over
// the cap).
func (h *Hook) lost(ctx context.Context, s *slot, pr *proc, err error, timeout time.Duration, limit int, log *slog.Logger) (res Result, failure string) {
	res = Result{Status: hookspec.StatusError, ExitCode: -1}
	var why string
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() == nil:
		why, res.Status = fmt.Sprintf("timed out after %s", timeout), hookspec.StatusTimeout
		h.drop(s, pr, "timed out", log)
		res.Err = h.errorf("%s; process group killed, restarted on the next firing", why)
		failure = why
	case errors.Is(err, os.ErrDeadlineExceeded) || ctx.Err() != nil:
		why, res.Status = fmt.Sprintf("cancelled (%v)", context.Cause(ctx)), hookspec.StatusCancelled
		h.drop(s, pr, "cancelled", log)
		res.Err = h.errorf("%s; process group killed, restarted on the next firing", why)
	case errors.Is(err, errLineTooLong):
		why = fmt.Sprintf("unparseable stdout (answer line longer than %d bytes)", limit)
		h.drop(s, pr, "answer too long", log)
		res.Status, res.Err = hookspec.StatusOK, h.errorf("%s; process killed, restarted on the next firing", why)
	default:
		h.drop(s, pr, "exited without answering", log)
		<-pr.done
		res.ExitCode = pr.cmd.ProcessState.ExitCode()
		why = "exited without answering (" + exitText(pr.err) + ")"
		if errors.Is(err, os.ErrClosed) {
			why = "closed while firing"
		}
		res.Err = h.errorf("%s; restarted on the next firing", why)
		failure = why
	}
	h.failClosed(&res, why)
	return res, failure
}

// answer interprets the answer line to request id like the stdout of an ordinary hook, once
// it is known to be in step (see the framing above); an answer out of step is a failed firing
// and the process is dropped.
func (h *Hook) answer(s *slot, pr *proc, line []byte, id string, log *slog.Logger) Result {
	res := Result{Status: hookspec.StatusOK, Stdout: strings.TrimRight(string(line), "\r\n")}
	shown := func() string { return strconv.Quote(truncateChars(res.Stdout, extraLineChars)) }
	parsed, err := decodeAnswer(line, id)
	got, hasID := takeRequestID(parsed)
	gotID, isString := got.(string)
	after := pr.waiting()
	switch {
	case err != nil:
		return h.outOfStep(s, pr, res, fmt.Sprintf("out of step: the answer to request %s is not JSON (%v): %s; "+
			"print logs to stderr (>&2): stdout holds only the answer lines", id, err, shown()), log)
	case hasID && (!isString || gotID != id):
		return h.outOfStep(s, pr, res, fmt.Sprintf("out of step: the answer to request %s carries request_id %s: %s; "+
			"answer each payload line with its own request_id", id, jsonText(got), shown()), log)
	case !hasID && (h.py != nil || h.FailClosed && h.Event == hooknames.PreToolCall):
		return h.outOfStep(s, pr, res, fmt.Sprintf("out of step: the answer to request %s has no request_id: %s; "+
			"a fail_closed persistent hook must echo the request_id of each payload line", id, shown()), log)
	case !hasID && after.printed():
		return h.outOfStep(s, pr, res, fmt.Sprintf("out of step: printed more than one line for request %s (%s, then %s) "+
			"and an answer without request_id cannot be matched to its request; "+
			"print logs to stderr (>&2), or echo the request_id of each payload line", id, shown(), after), log)
	}
	if h.py != nil {
		res = h.pythonAnswer(res, parsed)
	} else {
		res.Parsed = parsed
		res.Answer = answerOf(h.Event, parsed)
		if unexpected(res.Parsed, res.Answer) && res.Answer.Kind == hookspec.None {
			h.failClosed(&res, "unparseable stdout (expected a JSON object)")
		}
	}
	if after.printed() {
		// The answer carries its request's id, so it stands; what follows it is reported and
		// the process started again, in step.
		h.drop(s, pr, "out of step", log)
		res.Err = h.errorf("out of step: printed %s after its answer to request %s, which nobody asked for; "+
			"process killed, restarted on the next firing; print logs to stderr (>&2)", after, id)
	}
	return res
}

// outOfStep fails a firing whose process is out of step: the process is killed (the next
// firing starts a new one), the problem is the firing's error, and a fail_closed hook blocks.
func (h *Hook) outOfStep(s *slot, pr *proc, res Result, why string, log *slog.Logger) Result {
	h.drop(s, pr, "out of step", log)
	res.Status, res.ExitCode, res.Parsed, res.Answer = hookspec.StatusError, -1, nil, hookspec.Answer{}
	res.Err = h.errorf("%s; process killed, restarted on the next firing", why)
	h.failClosed(&res, why)
	return res
}

// jsonText renders a decoded JSON value for a message.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// extraOutput is what a process printed that no firing asked for, read without waiting.
type extraOutput struct {
	lines [][]byte
	end   error // why reading its stdout stopped, if it did
}

// waiting takes the lines the process printed that are already read, without waiting for
// more. A process that keeps printing is cut short: it is out of step anyway.
func (pr *proc) waiting() extraOutput {
	x := extraOutput{lines: pr.held.texts, end: pr.held.err}
	pr.held = outLine{}
	for x.end == nil && len(x.lines) < 4*queuedLines {
		select {
		case m, ok := <-pr.lines:
			x.lines = append(x.lines, m.texts...)
			switch {
			case !ok:
				x.end = os.ErrClosed
			case m.err != nil:
				x.end = m.err
			default:
				continue
			}
		default:
		}
		break
	}
	return x
}

// printed reports whether the process printed anything: a line, an unfinished last line, a
// line over the cap. Its stdout ending cleanly is not printing.
func (x extraOutput) printed() bool {
	return len(x.lines) > 0 || x.end != nil && !errors.Is(x.end, io.EOF) && !errors.Is(x.end, os.ErrClosed)
}

// String names the lines for a message: the first few, quoted and cut.
func (x extraOutput) String() string {
	var parts []string
	for i, l := range x.lines {
		if i == maxExtraShown {
			parts = append(parts, fmt.Sprintf("%d more", len(x.lines)-i))
			break
		}
		parts = append(parts, strconv.Quote(truncateChars(strings.TrimRight(string(l), "\r"), extraLineChars)))
	}
	switch {
	case x.end == nil || errors.Is(x.end, io.EOF) || errors.Is(x.end, os.ErrClosed):
	case errors.Is(x.end, errLineTooLong):
		parts = append(parts, "a line over the output cap")
	case errors.Is(x.end, io.ErrUnexpectedEOF):
		parts = append(parts, "an unfinished last line")
	default:
		parts = append(parts, "unreadable output ("+x.end.Error()+")")
	}
	noun := "the line"
	if len(x.lines) > 1 || len(parts) > 1 {
		noun = "the lines"
	}
	return noun + " " + strings.Join(parts, ", ")
}

// start starts the hook's process in its own process group, and the goroutine that reads its
// stdout (lines up to limit bytes). The error says why, for people.
func (h *Hook) start(opts RunOptions, limit int, log *slog.Logger) (*proc, error) {
	if h.py != nil && h.py.spec.Check != nil {
		if err := h.py.spec.Check(); err != nil {
			return nil, fmt.Errorf("not started: %w", err)
		}
	}
	cmd, err := h.newCmd(context.Background(), opts.Cwd, "")
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
	run := procgroup.Mark(cmd) // its process group, and on Linux what it starts with setsid
	log.Debug("persistent shell hook starting", "program", cmd.Path, "argv", cmd.Args)
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, errors.New(h.spawnError(err, cmd))
	}
	pr := &proc{cmd: cmd, run: run, stdin: inW, stdout: outR, lines: make(chan outLine, queuedLines),
		quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		pr.err = cmd.Wait()
		close(pr.done)
	}()
	go pr.read(limit)
	return pr, nil
}

// read sends the process's stdout to pr.lines until it ends, a line is longer than limit (the
// rest of it cannot be told from the next line), or pr is shut down. The complete lines
// already read with a line go in its message.
func (pr *proc) read(limit int) {
	defer close(pr.lines)
	r := bufio.NewReaderSize(pr.stdout, 64<<10)
	for {
		var m outLine
		for {
			line, err := readLine(r, limit)
			if err != nil {
				m.err = err
				break
			}
			m.texts = append(m.texts, bytes.Clone(bytes.TrimSuffix(line, []byte{'\n'})))
			if buf, _ := r.Peek(r.Buffered()); bytes.IndexByte(buf, '\n') < 0 {
				break
			}
		}
		select {
		case pr.lines <- m:
		case <-pr.quit:
			return
		}
		if m.err != nil {
			return
		}
	}
}

// send writes one payload line before deadline; a cancelled ctx interrupts it.
func (pr *proc) send(ctx context.Context, line []byte, deadline time.Time) error {
	if err := pr.stdin.SetWriteDeadline(deadline); err != nil {
		return err
	}
	if ctx.Done() != nil {
		fired := make(chan struct{})
		stop := context.AfterFunc(ctx, func() {
			pr.stdin.SetWriteDeadline(time.Unix(1, 0))
			close(fired)
		})
		defer func() {
			if !stop() {
				<-fired // so that it cannot touch the deadline of a later firing
			}
		}()
	}
	_, err := pr.stdin.Write(line)
	return err
}

// receive waits for the next line of the process, up to deadline or until ctx is done; the
// lines that came with it are held for waiting. The caller saw no line waiting before.
func (pr *proc) receive(ctx context.Context, deadline time.Time) ([]byte, error) {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case m, ok := <-pr.lines:
		switch {
		case !ok:
			return nil, os.ErrClosed
		case len(m.texts) == 0:
			return nil, m.err
		}
		pr.held = outLine{texts: m.texts[1:], err: m.err}
		return m.texts[0], nil
	case <-t.C:
		return nil, os.ErrDeadlineExceeded
	case <-ctx.Done():
		return nil, ctx.Err()
	}
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
		close(pr.quit)
		pr.stdin.Close()
		if grace > 0 {
			t := time.NewTimer(grace)
			select {
			case <-pr.done:
			case <-t.C:
			}
			t.Stop()
		}
		pr.run.Kill() // the leader, children it left behind, daemons it started
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
