package decisionlog

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// receiver is an endpoint that decodes every batch it gets.
type receiver struct {
	mu      sync.Mutex
	entries []Entry
	headers []http.Header
	batches chan int // the size of each batch, as it arrives
}

func newReceiver(t *testing.T) (*receiver, *httptest.Server) {
	r := &receiver{batches: make(chan int, 100)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		got, err := ReadBatch(req.Body)
		if err != nil {
			t.Error(err)
			w.WriteHeader(400)
			return
		}
		r.mu.Lock()
		r.entries = append(r.entries, got...)
		r.headers = append(r.headers, req.Header.Clone())
		r.mu.Unlock()
		r.batches <- len(got)
	}))
	t.Cleanup(srv.Close)
	return r, srv
}

func logOne(l *Logger, e Entry) bool {
	if !l.Reserve() {
		return false
	}
	l.Log(e)
	return true
}

// Entries arrive gzip'd as NDJSON, in batches of at most Batch, masked, with the headers;
// the caller's maps are not changed.
func TestShipsMaskedBatches(t *testing.T) {
	r, srv := newReceiver(t)
	l, err := New(Options{URL: srv.URL, Batch: 2, FlushInterval: time.Hour, Mask: []string{"args.token", "args.env.*"},
		Headers: map[string]string{"Authorization": "Bearer x"}})
	if err != nil {
		t.Fatal(err)
	}
	var want []Entry
	for i := range 5 {
		in := map[string]any{"tool_name": "terminal", "args": map[string]any{"token": "s3cret", "n": float64(i), "env": map[string]any{"A": "1"}}}
		if !logOne(l, Entry{Event: "pre_tool_call", Outcome: "none", Input: in, Hooks: []Run{}}) {
			t.Fatal("an entry was dropped with room in the buffer")
		}
		if in["args"].(map[string]any)["token"] != "s3cret" {
			t.Fatal("Log masked the caller's map")
		}
		want = append(want, Entry{Event: "pre_tool_call", Outcome: "none", Hooks: []Run{}, Time: time.Time{},
			Input: map[string]any{"tool_name": "terminal", "args": map[string]any{"token": Marker, "n": float64(i), "env": map[string]any{"A": Marker}}}})
	}
	if n := <-r.batches; n != 2 { // full batches go at once, without waiting for the interval
		t.Errorf("first batch has %d entries, want 2", n)
	}
	if err := l.Close(context.Background()); err != nil { // flushes the rest
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if d := cmp.Diff(want, r.entries); d != "" {
		t.Errorf("entries (-want +got):\n%s", d)
	}
	for _, h := range r.headers {
		if h.Get("Content-Encoding") != "gzip" || h.Get("Content-Type") != "application/x-ndjson" || h.Get("Authorization") != "Bearer x" {
			t.Errorf("headers = %v", h)
		}
	}
	if s := l.Stats(); s != (Stats{Sent: 5}) {
		t.Errorf("stats = %+v, want 5 sent", s)
	}
}

// A batch the endpoint keeps failing (503) is tried 1+Retries times, then dropped and
// counted as failed; a refusal (400) is not tried again.
func TestRetriesAreBounded(t *testing.T) {
	for _, tc := range []struct {
		code, want int
	}{{503, 3}, {400, 1}} {
		var mu sync.Mutex
		attempts := 0
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			attempts++
			mu.Unlock()
			w.WriteHeader(tc.code)
		}))
		failed := countingCounter{added: make(chan struct{}, 1)}
		l, err := New(Options{URL: srv.URL, Batch: 2, Retries: 2, Backoff: time.Millisecond, Failed: &failed})
		if err != nil {
			t.Fatal(err)
		}
		logOne(l, Entry{Event: "e"})
		logOne(l, Entry{Event: "e"})
		<-failed.added // the batch is given up
		l.Close(context.Background())
		srv.Close()
		if attempts != tc.want {
			t.Errorf("%d: %d attempts, want %d", tc.code, attempts, tc.want)
		}
		if s := l.Stats(); s != (Stats{Failed: 2}) || failed.n != 2 {
			t.Errorf("%d: stats = %+v, counter %v; want 2 failed", tc.code, s, failed.n)
		}
	}
}

type countingCounter struct {
	mu    sync.Mutex
	n     float64
	added chan struct{} // gets a value at each Add, if it has room
}

func (c *countingCounter) Add(f float64) {
	c.mu.Lock()
	c.n += f
	c.mu.Unlock()
	select {
	case c.added <- struct{}{}:
	default:
	}
}

// An endpoint that never answers never holds up Log: once the buffer is full new entries
// are dropped and counted; Close gives up at its deadline and counts what it held as failed.
func TestBlockedEndpointNeverBlocks(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	l, err := New(Options{URL: srv.URL, Batch: 1, Buffer: 3, Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	logOne(l, Entry{Event: "first"})
	<-arrived // the goroutine is stuck in its POST: nothing leaves the buffer now
	const n = 100
	for range n {
		logOne(l, Entry{Event: "e"})
	}
	if s := l.Stats(); s.Dropped != n-3 {
		t.Errorf("dropped %d, want %d (the buffer holds 3)", s.Dropped, n-3)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Close(ctx); err == nil {
		t.Error("Close of a stuck endpoint said everything was sent")
	}
	if s := l.Stats(); s.Sent != 0 || s.Failed != 4 || s.Dropped != n-3 {
		t.Errorf("stats = %+v, want 4 failed (the one in flight and the buffer), %d dropped", s, n-3)
	}
	if logOne(l, Entry{Event: "late"}) {
		t.Error("a closed Logger took an entry")
	}
}

// Many goroutines logging while the Logger ships and closes: every entry is counted once.
func TestConcurrentLog(t *testing.T) {
	_, srv := newReceiver(t)
	l, err := New(Options{URL: srv.URL, Batch: 7, Buffer: 16})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				logOne(l, Entry{Event: "e", Input: map[string]any{"a": []any{1.0}}})
			}
		})
	}
	wg.Wait()
	l.Close(context.Background())
	if s := l.Stats(); s.Sent+s.Dropped+s.Failed != 1600 || s.Failed != 0 {
		t.Errorf("stats = %+v, want 1600 entries counted, none failed", s)
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	for _, o := range []Options{{URL: "ftp://x"}, {URL: "http://"}, {URL: "http://x", Mask: []string{"args..x"}}} {
		if l, err := New(o); err == nil {
			l.Close(context.Background())
			t.Errorf("New(%+v) took it", o)
		}
	}
}

// Close does not wait out an endpoint that is down: each batch is tried once at most, and
// after one fails the rest are counted as failed without a try.
func TestCloseGivesUpOnADownEndpoint(t *testing.T) {
	var mu sync.Mutex
	attempts := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		attempts++
		mu.Unlock()
		w.WriteHeader(503)
	}))
	defer srv.Close()
	l, err := New(Options{URL: srv.URL, Batch: 1, FlushInterval: time.Hour, Backoff: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		logOne(l, Entry{Event: "e"})
	}
	if err := l.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if s := l.Stats(); s.Failed != 10 || attempts > 2 {
		t.Errorf("stats = %+v after %d attempts; want 10 failed after one or two", s, attempts)
	}
}

// ReadBatch reads what a Logger sends back into its entries, and names what it cannot read.
func TestReadBatch(t *testing.T) {
	sent := []Entry{{Event: "pre_tool_call", Outcome: "block", Hook: "guard"}, {Event: "pre_llm_call", Outcome: "none"}}
	body, n := encode(sent)
	got, err := ReadBatch(bytes.NewReader(body))
	if err != nil || n != 2 || len(got) != 2 || got[0].Hook != "guard" || got[1].Event != "pre_llm_call" {
		t.Fatalf("ReadBatch = %+v, %v", got, err)
	}
	if _, err := ReadBatch(strings.NewReader(`{"event":"x"}`)); err == nil || !strings.Contains(err.Error(), "gzip'd NDJSON") {
		t.Errorf("a body that is not gzip: %v", err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("{\"event\":\"x\"}\nnot json\n"))
	zw.Close()
	if _, err := ReadBatch(&gz); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a line that is not an entry: %v", err)
	}
}

// roundTrip is an http.RoundTripper of a function.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// An entry reserved before Close and logged while Close runs is sent with the rest, not
// left in the buffer uncounted.
func TestCloseSendsWhatWasReservedBeforeIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var got []Entry
		client := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
			batch, err := ReadBatch(r.Body)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			got = append(got, batch...)
			mu.Unlock()
			return &http.Response{StatusCode: 200, Body: http.NoBody, Request: r}, nil
		})}
		l, err := New(Options{URL: "http://logs.example/v1", Client: client, FlushInterval: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if !l.Reserve() {
			t.Fatal("an empty buffer refused a reservation")
		}
		closed := make(chan error, 1)
		go func() { closed <- l.Close(context.Background()) }()
		synctest.Wait() // Close has done all it can without the entry
		if l.Reserve() {
			t.Error("a reservation after Close began was taken")
		}
		l.Log(Entry{Event: "pre_tool_call", Outcome: "block"})
		if err := <-closed; err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(got) != 1 || got[0].Event != "pre_tool_call" {
			t.Errorf("sent %+v, want the entry reserved before Close", got)
		}
		if s := l.Stats(); s.Sent != 1 || s.Dropped != 1 || s.Failed != 0 {
			t.Errorf("stats %+v, want 1 sent, 1 dropped (the reservation after Close)", s)
		}
	})
}
