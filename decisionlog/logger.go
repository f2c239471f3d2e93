package decisionlog

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of Options.
const (
	DefaultBatch         = 100
	DefaultFlushInterval = 5 * time.Second
	DefaultBuffer        = 10000
	DefaultRetries       = 3
	DefaultBackoff       = 500 * time.Millisecond
	DefaultTimeout       = 10 * time.Second
	maxBackoff           = 30 * time.Second
)

// Entry is one decision: a firing of a hook point that has hooks.
type Entry struct {
	Time   time.Time `json:"time"`             // when the decision was made, UTC
	Event  string    `json:"event"`            // the hook point (pre_tool_call, ...)
	Caller string    `json:"caller,omitempty"` // who asked: a server token's name, the agent of `hermesctl hook`; "" when unknown
	// Outcome is the decision: "none" (no hook decided: the call goes on as it is),
	// "block", "modify", "approve", "ask", "context", "replace", "allow", "skip",
	// "rewrite", "continue", "deny" or "respond".
	Outcome string `json:"outcome"`
	Hook    string `json:"hook,omitempty"`   // the hook whose answer decided; "" for none
	Source  string `json:"source,omitempty"` // its source (plugin, shell, http, ...)
	Hooks   []Run  `json:"hooks"`            // every hook that ran, in order
	// Input is the call's arguments (the point's kwargs), masked.
	Input map[string]any `json:"input"`
	// Result is what was decided beyond the outcome, masked: "message" (a block's or ask's
	// reason), "text" (a context, a replacement), "args" (the tool's new arguments); nil
	// when there is none.
	Result map[string]any `json:"result,omitempty"`
}

// Run is one hook's part in a decision.
type Run struct {
	Hook   string `json:"hook"`
	Source string `json:"source"`
	Status string `json:"status"` // ok, error, timeout, skipped, cancelled, busy
}

// Counter is what a Logger counts with (a prometheus.Counter is one).
type Counter interface{ Add(float64) }

// Options configure a Logger. Only URL is required.
type Options struct {
	// URL is the endpoint batches are POSTed to (http or https).
	URL string
	// Headers are added to every POST (e.g. Authorization).
	Headers map[string]string
	// Mask lists the paths masked in every entry (see Masking in the package doc).
	Mask []string
	// Batch is the most entries one POST carries; 0 means DefaultBatch.
	Batch int
	// FlushInterval is the longest an entry waits for its batch to fill; 0 means
	// DefaultFlushInterval.
	FlushInterval time.Duration
	// Buffer is the most entries waiting to be sent; past it new ones are dropped. 0 means
	// DefaultBuffer.
	Buffer int
	// Retries is how many more times a batch is tried after a failure that may pass; 0
	// means DefaultRetries, a negative number none.
	Retries int
	// Backoff is the wait before the first retry, doubled for each next one (at most 30s);
	// 0 means DefaultBackoff.
	Backoff time.Duration
	// Timeout bounds one POST; 0 means DefaultTimeout.
	Timeout time.Duration
	// Client sends the POSTs; nil means a client of its own.
	Client *http.Client
	// Logger gets a warning when a batch is dropped; nil discards them.
	Logger *slog.Logger
	// Sent, Dropped and Failed, when not nil, count entries as Stats does.
	Sent, Dropped, Failed Counter
}

// Stats count entries since New.
type Stats struct {
	Sent    int64 // accepted by the endpoint (2xx)
	Dropped int64 // not taken: the buffer was full, or the Logger closed
	Failed  int64 // taken but not delivered: retries exhausted, a refusal, Close's deadline
}

// Logger buffers entries and ships them; see the package doc.
type Logger struct {
	opts   Options
	masker *Masker
	ch     chan Entry
	room   atomic.Int64 // free places of ch, taken by Reserve
	// open counts the reservations not yet logged (and Reserve calls under way), which
	// Close's final flush waits for; settled tells it one ended after Close.
	open    atomic.Int64
	settled chan struct{}
	closed  atomic.Bool
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	ctx     context.Context // of the POSTs and backoffs; cancelled when Close gives up
	cancel  context.CancelFunc

	sent, dropped, failed atomic.Int64
}

// Check reports what makes o unusable: a URL that is not http(s), a bad mask path.
func (o Options) Check() error {
	u, err := url.Parse(o.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("decisionlog: url %q is not an http or https URL", o.URL)
	}
	_, err = NewMasker(o.Mask)
	return err
}

// New checks opts and starts the Logger's goroutine.
func New(opts Options) (*Logger, error) {
	if err := opts.Check(); err != nil {
		return nil, err
	}
	m, _ := NewMasker(opts.Mask)
	opts = withDefaults(opts)
	l := &Logger{opts: opts, masker: m, ch: make(chan Entry, opts.Buffer), stop: make(chan struct{}), done: make(chan struct{})}
	l.room.Store(int64(opts.Buffer))
	l.ctx, l.cancel = context.WithCancel(context.Background())
	l.settled = make(chan struct{}, 1)
	go l.run()
	return l, nil
}

func withDefaults(o Options) Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	defD := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.Batch, DefaultBatch)
	def(&o.Buffer, DefaultBuffer)
	defD(&o.FlushInterval, DefaultFlushInterval)
	defD(&o.Backoff, DefaultBackoff)
	defD(&o.Timeout, DefaultTimeout)
	switch {
	case o.Retries == 0:
		o.Retries = DefaultRetries
	case o.Retries < 0:
		o.Retries = 0
	}
	if o.Client == nil {
		o.Client = &http.Client{}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Masker is the masker of Options.Mask.
func (l *Logger) Masker() *Masker { return l.masker }

// Reserve takes a place in the buffer for one entry, without waiting: false (the entry is
// counted as dropped) when the buffer is full or the Logger closed. After true, call Log
// exactly once. It lets a caller skip building an entry that would be dropped.
func (l *Logger) Reserve() bool {
	l.open.Add(1)
	if l.room.Load() > 0 && !l.closed.Load() { // a full buffer is told by a load alone
		if l.room.Add(-1) >= 0 {
			return true
		}
		l.room.Add(1)
	}
	l.release()
	l.count(&l.dropped, l.opts.Dropped, 1)
	return false
}

// release ends a reservation (logged, or refused), telling a Close that waits for it.
func (l *Logger) release() {
	if l.open.Add(-1) <= 0 && l.closed.Load() {
		select {
		case l.settled <- struct{}{}:
		default:
		}
	}
}

// Log queues e, masking a copy of its Input and Result (e's maps are not kept): call it
// after a Reserve that returned true. It never blocks.
func (l *Logger) Log(e Entry) {
	defer l.release()
	e.Input, e.Result = l.masker.Apply(e.Input), l.masker.Apply(e.Result)
	select {
	case l.ch <- e:
	default: // not reserved: never wait
		l.count(&l.dropped, l.opts.Dropped, 1)
	}
}

// Stats returns the counts so far.
func (l *Logger) Stats() Stats {
	return Stats{Sent: l.sent.Load(), Dropped: l.dropped.Load(), Failed: l.failed.Load()}
}

func (l *Logger) count(n *atomic.Int64, c Counter, k int) {
	n.Add(int64(k))
	if c != nil {
		c.Add(float64(k))
	}
}

// Close stops taking entries and sends what is buffered, and the entries reserved before
// it once they are logged, until ctx is done; what is left then is counted as failed. It returns ctx's error when it gave up, else nil. Later
// calls return at once.
func (l *Logger) Close(ctx context.Context) error {
	l.once.Do(func() {
		l.closed.Store(true)
		close(l.stop)
	})
	select {
	case <-l.done:
		return nil
	case <-ctx.Done():
		l.cancel()
		<-l.done
		return ctx.Err()
	}
}

// run batches the buffer's entries and ships them until Close.
func (l *Logger) run() {
	defer close(l.done)
	defer l.cancel()
	batch := make([]Entry, 0, l.opts.Batch)
	timer := time.NewTimer(l.opts.FlushInterval)
	timer.Stop()
	down := false // Close began and a batch failed: the rest fail without a try
	flush := func() {
		timer.Stop()
		switch {
		case len(batch) == 0:
		case down:
			l.count(&l.failed, l.opts.Failed, len(batch))
		default:
			down = !l.ship(batch) && l.closed.Load()
		}
		batch = batch[:0]
	}
	take := func(e Entry) {
		l.room.Add(1)
		if len(batch) == 0 {
			timer.Reset(l.opts.FlushInterval)
		}
		if batch = append(batch, e); len(batch) >= l.opts.Batch {
			flush()
		}
	}
	for {
		select {
		case e := <-l.ch:
			take(e)
		case <-timer.C:
			flush()
		case <-l.stop:
			// Every entry reserved before Close is sent with the rest: wait for the
			// reservations under way to be logged (a caller between Reserve and Log),
			// until Close gives up.
			for {
				select {
				case e := <-l.ch:
					take(e)
					continue
				default:
				}
				if l.open.Load() <= 0 { // below 0 only after a Log without its Reserve
					flush()
					return
				}
				select {
				case e := <-l.ch:
					take(e)
				case <-l.settled:
				case <-l.ctx.Done():
					flush()
					return
				}
			}
		}
	}
}

// ship posts batch, retrying what may pass (until Close), and counts its entries; false
// when they failed.
func (l *Logger) ship(batch []Entry) bool {
	body, n := encode(batch)
	if bad := len(batch) - n; bad > 0 {
		l.count(&l.failed, l.opts.Failed, bad)
	}
	wait := l.opts.Backoff
	for attempt := 0; ; attempt++ {
		again, err := l.post(body)
		if err == nil {
			l.count(&l.sent, l.opts.Sent, n)
			return true
		}
		if !again || attempt >= l.opts.Retries || l.sleep(wait) != nil {
			l.count(&l.failed, l.opts.Failed, n)
			l.opts.Logger.Warn("decision log: a batch was dropped", "entries", n, "attempts", attempt+1, "error", err)
			return false
		}
		wait = min(2*wait, maxBackoff)
	}
}

// sleep waits d; an error when Close began (no backoff then: Close does not wait out a
// failing endpoint) or gave up.
func (l *Logger) sleep(d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-l.stop:
		return errors.New("decisionlog: closing")
	case <-l.ctx.Done():
		return l.ctx.Err()
	}
}

// post sends one body; again says whether the failure may pass.
func (l *Logger) post(body []byte) (again bool, err error) {
	ctx, cancel := context.WithTimeout(l.ctx, l.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.opts.URL, bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/x-ndjson")
	req.Header.Set("Content-Encoding", "gzip")
	for k, v := range l.opts.Headers {
		req.Header.Set(k, v)
	}
	resp, err := l.opts.Client.Do(req)
	if err != nil {
		return !errors.Is(l.ctx.Err(), context.Canceled), err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return false, nil
	case c == http.StatusRequestTimeout || c == http.StatusTooManyRequests || c >= 500:
		return true, fmt.Errorf("decisionlog: %s answered %s", l.opts.URL, resp.Status)
	default:
		return false, fmt.Errorf("decisionlog: %s refused the batch: %s", l.opts.URL, resp.Status)
	}
}

// encode is batch as gzip'd NDJSON and the number of entries in it (an entry that cannot
// be encoded is left out).
func encode(batch []Entry) ([]byte, int) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	n := 0
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	for _, e := range batch {
		line.Reset()
		if enc.Encode(e) != nil {
			continue
		}
		zw.Write(line.Bytes())
		n++
	}
	zw.Close()
	return buf.Bytes(), n
}

// ReadBatch reads one batch as a Logger sends it (the body of its POST: gzip'd NDJSON, an
// Entry a line), for a receiver written in Go. A body that is not gzip, or a line that is
// not an entry, is an error naming the line.
func ReadBatch(body io.Reader) ([]Entry, error) {
	zr, err := gzip.NewReader(body)
	if err != nil {
		return nil, fmt.Errorf("a decision-log batch is gzip'd NDJSON: %w", err)
	}
	var out []Entry
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return out, fmt.Errorf("line %d of the batch is not an entry: %w", n, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}
