package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/netguard"
)

// Defaults of Options.
const (
	DefaultQueueSize   = 256
	DefaultMaxAttempts = 4
	DefaultBackoff     = time.Second
	maxAnswer          = 64 << 10 // what is read of an answer (shown by webhooks test)
	dropWarnEvery      = 10 * time.Second
)

// Observer is told what deliveries do (engine.Metrics implements it); every method must be
// safe for concurrent use and quick.
type Observer interface {
	WebhookDelivered(name, event string, attempts int, took time.Duration)
	WebhookAttemptFailed(name, event string, retry bool)
	WebhookDropped(name, event string, reason hookspec.DropReason)
}

// Options configure a Dispatcher; the zero value works.
type Options struct {
	Logger      *slog.Logger        // delivery logs and the audit line of each delivery; nil discards
	Getenv      func(string) string // reads secret_env; nil = os.Getenv
	QueueSize   int                 // per endpoint; 0 = DefaultQueueSize
	MaxAttempts int                 // attempts per delivery, the first included; 0 = DefaultMaxAttempts
	Backoff     time.Duration       // wait before the first retry, doubled each time; 0 = DefaultBackoff
	AllowedURLs []string            // the managed policy's allowed_http_urls (netguard.Options.AllowedURLs)
	Observer    Observer            // nil observes nothing
	Resolver    *net.Resolver       // resolves endpoint hosts; nil = the system's (tests point names elsewhere)
}

// Dispatcher delivers to a fixed set of endpoints.
type Dispatcher struct {
	opts    Options
	log     *slog.Logger
	workers []*worker
	mu      sync.RWMutex // Notify holds it shared; Close exclusively to stop accepting
	closed  bool
	wg      sync.WaitGroup
	abandon atomic.Bool
	stop    context.Context // done when Close gives up waiting: attempts and backoffs in flight end
	stopNow context.CancelFunc
}

type worker struct {
	ep       *Endpoint
	key      []byte // nil: secret missing or invalid, every delivery dropped
	keyErr   string
	queue    chan delivery
	client   *http.Client
	lastWarn atomic.Int64
}

type delivery struct {
	id, event string
	body      []byte
}

// New starts one worker per endpoint. An endpoint whose secret is missing or not a whsec_
// secret is kept, but drops every delivery (hookspec.DropNoSecret) with a warning now: nothing is
// ever sent unsigned.
func New(endpoints []*Endpoint, opts Options) *Dispatcher {
	d := &Dispatcher{opts: opts, log: opts.Logger}
	d.stop, d.stopNow = context.WithCancel(context.Background())
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	size := opts.QueueSize
	if size <= 0 {
		size = DefaultQueueSize
	}
	for _, ep := range endpoints {
		w := &worker{ep: ep, queue: make(chan delivery, size)}
		var err error
		if w.key, err = DecodeSecret(getenv(ep.SecretEnv)); err != nil {
			w.keyErr = fmt.Sprintf("$%s: %v", ep.SecretEnv, err)
			d.log.Warn("webhook disabled: no usable secret; deliveries are dropped", "webhook", ep.Name, "file", ep.File, "line", ep.Line, "err", w.keyErr)
		}
		guard := netguard.Options{AllowPrivate: ep.AllowPrivate, AllowedURLs: opts.AllowedURLs, Timeout: ep.Timeout, Resolver: opts.Resolver}
		w.client = guard.Client(ep.URL)
		d.workers = append(d.workers, w)
		d.wg.Add(1)
		go d.run(w)
	}
	return d
}

// Endpoints are the dispatcher's endpoints, in config order.
func (d *Dispatcher) Endpoints() []*Endpoint {
	out := make([]*Endpoint, len(d.workers))
	for i, w := range d.workers {
		out[i] = w.ep
	}
	return out
}

// Wants reports whether an endpoint subscribes to event; callers skip building data when not.
func (d *Dispatcher) Wants(event string) bool { return d.WantsTool(event, "") }

// WantsTool is Wants for a call of tool ("" = any), the endpoints' matchers applied.
func (d *Dispatcher) WantsTool(event, tool string) bool {
	if d == nil {
		return false
	}
	for _, w := range d.workers {
		if w.ep.Wants(event, tool) {
			return true
		}
	}
	return false
}

// Notify queues a delivery of event with data (a value encoded as JSON, or a Payload) to every
// endpoint that wants it. It never blocks: a full queue drops the delivery.
func (d *Dispatcher) Notify(event string, data any) {
	d.notify(event, toolName(data), func() (any, error) { return data, nil })
}

// NotifyLazy is Notify with the payload built by build only when an endpoint has room for
// the delivery (at most once): when every queue is full, as when an endpoint is down, a call
// pays nothing but the drop. tool is the tool name for the endpoints' matchers.
func (d *Dispatcher) NotifyLazy(event, tool string, build func() ([]byte, error)) {
	d.notify(event, tool, func() (any, error) {
		b, err := build()
		return Payload{Tool: tool, JSON: b}, err
	})
}

func (d *Dispatcher) notify(event, tool string, data func() (any, error)) {
	if d == nil {
		return
	}
	var body []byte
	d.mu.RLock()
	defer d.mu.RUnlock()
	for _, w := range d.workers {
		if !w.ep.Wants(event, tool) {
			continue
		}
		if d.closed {
			d.drop(w, event, hookspec.DropClosed)
			continue
		}
		if len(w.queue) == cap(w.queue) { // full now: no need to build what would be dropped
			d.drop(w, event, hookspec.DropQueueFull)
			continue
		}
		if body == nil {
			v, err := data()
			if err == nil {
				body, err = envelope(event, v, time.Now())
			}
			if err != nil {
				d.log.Warn("webhook payload cannot be encoded; not sent", "event", event, "err", err)
				return
			}
		}
		select {
		case w.queue <- delivery{id: newID(), event: event, body: body}:
		default:
			d.drop(w, event, hookspec.DropQueueFull)
		}
	}
}

// Payload is data already encoded: JSON goes into the delivery as it is, and Tool is the
// tool name the endpoints' matchers see.
type Payload struct {
	Tool string
	JSON []byte
}

// toolName is data's tool_name, for matchers.
func toolName(data any) string {
	switch v := data.(type) {
	case map[string]any:
		s, _ := v["tool_name"].(string)
		return s
	case Payload:
		return v.Tool
	}
	return ""
}

// envelope is the body of a delivery.
func envelope(event string, data any, now time.Time) ([]byte, error) {
	if p, ok := data.(Payload); ok { // already JSON: wrapped as it is, not re-encoded
		head, err := json.Marshal(struct {
			Type      string `json:"type"`
			Timestamp string `json:"timestamp"`
		}{event, now.UTC().Format(time.RFC3339Nano)})
		if err != nil || !json.Valid(p.JSON) {
			return nil, fmt.Errorf("webhook: payload of %s is not JSON", event)
		}
		out := append(head[:len(head)-1:len(head)-1], `,"data":`...)
		out = append(out, bytes.TrimSpace(p.JSON)...)
		return append(out, '}'), nil
	}
	return json.Marshal(struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		Data      any    `json:"data"`
	}{event, now.UTC().Format(time.RFC3339Nano), data})
}

func (d *Dispatcher) drop(w *worker, event string, reason hookspec.DropReason) {
	if o := d.opts.Observer; o != nil {
		o.WebhookDropped(w.ep.Name, event, reason)
	}
	now := time.Now().UnixNano()
	if last := w.lastWarn.Load(); now-last >= int64(dropWarnEvery) && w.lastWarn.CompareAndSwap(last, now) {
		d.log.Warn("webhook delivery dropped", "webhook", w.ep.Name, "event", event, "reason", reason)
	}
}

// run delivers w's queue until it is closed.
func (d *Dispatcher) run(w *worker) {
	defer d.wg.Done()
	for dl := range w.queue {
		if d.abandon.Load() {
			d.drop(w, dl.event, hookspec.DropClosed)
			continue
		}
		d.deliver(w, dl)
	}
	w.client.CloseIdleConnections()
}

// Close stops accepting deliveries, lets the queues drain until ctx is done, then drops
// what is left. It returns ctx's error when it gave up waiting.
func (d *Dispatcher) Close(ctx context.Context) error {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	if !d.closed {
		d.closed = true
		for _, w := range d.workers {
			close(w.queue)
		}
	}
	d.mu.Unlock()
	done := make(chan struct{})
	go func() { d.wg.Wait(); close(done) }()
	select {
	case <-done:
		d.stopNow()
		return nil
	case <-ctx.Done():
		d.abandon.Store(true)
		d.stopNow()
		return ctx.Err()
	}
}

// Attempt is the outcome of one request.
type Attempt struct {
	ID, Timestamp string
	Status        int    // HTTP status; 0 when no answer came
	Body          string // the answer, capped
	Err           string // why it failed; "" for a 2xx
	Retry         bool   // whether a failure is worth another attempt
	Took          time.Duration
}

// deliver makes the attempts of one delivery.
func (d *Dispatcher) deliver(w *worker, dl delivery) {
	if w.key == nil {
		d.drop(w, dl.event, hookspec.DropNoSecret)
		return
	}
	start := time.Now()
	max := d.opts.MaxAttempts
	if max <= 0 {
		max = DefaultMaxAttempts
	}
	backoff := d.opts.Backoff
	if backoff <= 0 {
		backoff = DefaultBackoff
	}
	for n := 1; ; n++ {
		a := w.attempt(d.stop, dl)
		if a.Err == "" {
			if o := d.opts.Observer; o != nil {
				o.WebhookDelivered(w.ep.Name, dl.event, n, time.Since(start))
			}
			d.log.Info("webhook delivered", "audit", "webhook", "webhook", w.ep.Name, "event", dl.event, "id", dl.id, "status", a.Status, "attempts", n)
			return
		}
		retry := a.Retry && n < max && !d.abandon.Load()
		if o := d.opts.Observer; o != nil {
			o.WebhookAttemptFailed(w.ep.Name, dl.event, retry)
		}
		d.log.Debug("webhook attempt failed", "webhook", w.ep.Name, "event", dl.event, "id", dl.id, "attempt", n, "err", a.Err, "retry", retry)
		if !retry {
			d.log.Warn("webhook delivery failed", "audit", "webhook", "webhook", w.ep.Name, "event", dl.event, "id", dl.id, "attempts", n, "err", a.Err)
			d.drop(w, dl.event, hookspec.DropFailed)
			return
		}
		t := time.NewTimer(backoff << (n - 1))
		select {
		case <-t.C:
		case <-d.stop.Done():
			t.Stop()
		}
	}
}

// attempt sends dl once, signed now.
func (w *worker) attempt(ctx context.Context, dl delivery) Attempt {
	now := time.Now()
	a := Attempt{ID: dl.id, Timestamp: strconv.FormatInt(now.Unix(), 10)}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.ep.URL, bytes.NewReader(dl.body))
	if err != nil {
		a.Err = netguard.Describe(err, w.ep.URL, w.ep.Timeout)
		return a
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "hermes-hooks")
	req.Header.Set(HeaderID, dl.id)
	req.Header.Set(HeaderTimestamp, a.Timestamp)
	req.Header.Set(HeaderSignature, Sign(w.key, dl.id, time.Unix(now.Unix(), 0), dl.body))
	resp, err := w.client.Do(req)
	a.Took = time.Since(now)
	if err != nil {
		a.Err, a.Retry = netguard.Describe(err, w.ep.URL, w.ep.Timeout), !errors.Is(err, netguard.ErrRefused)
		return a
	}
	defer resp.Body.Close()
	body, _ := netguard.ReadBody(resp.Body, maxAnswer)
	a.Status, a.Body = resp.StatusCode, string(body)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		a.Err = "answered " + resp.Status
		if loc := resp.Header.Get("Location"); loc != "" {
			a.Err += " (redirect to " + netguard.RedactURL(loc) + " not followed)"
		}
		a.Retry = resp.StatusCode >= 500 || resp.StatusCode == 408 || resp.StatusCode == 429
	}
	return a
}

// Test sends one sample delivery to the endpoint named name, now and once, and returns
// what came back (hermesctl webhooks test). ErrUnknown when no endpoint has that name.
func (d *Dispatcher) Test(ctx context.Context, name string, event string, data any) (Attempt, error) {
	for _, w := range d.workers {
		if w.ep.Name != name {
			continue
		}
		if w.key == nil {
			return Attempt{}, fmt.Errorf("webhook %q has no usable secret (%s)", name, w.keyErr)
		}
		body, err := envelope(event, data, time.Now())
		if err != nil {
			return Attempt{}, err
		}
		return w.attempt(ctx, delivery{id: newID(), event: event, body: body}), nil
	}
	return Attempt{}, ErrUnknown
}

// ErrUnknown is returned by Test for a name no endpoint has.
var ErrUnknown = errors.New("webhook: no webhook of that name")
