//go:build unix

package serverbench

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// rawRun is run over plain HTTP/1.1 keep-alive connections: each of `clients` connections
// sends the peer's requests (the inputs in turn) one after the other, each when the last was
// answered, until d has passed or phaseRequests were sent. Written for a load generator
// that costs a server's core far less than vegeta's client (whose net/http client, results
// and channels cost about as much as the servers measured), so that the servers, not the
// load, are what is measured. It adds what it measured to into (nil: a warm-up).
func rawRun(p peer, clients int, d time.Duration, into *load) {
	u, err := url.Parse(p.url)
	if err != nil {
		panic(err)
	}
	reqs := make([][]byte, len(inputs))
	for i, in := range inputs {
		body := p.body(in)
		var b bytes.Buffer
		fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", u.RequestURI(), u.Host, len(body))
		for k, vs := range p.header {
			for _, v := range vs {
				fmt.Fprintf(&b, "%s: %s\r\n", k, v)
			}
		}
		b.WriteString("\r\n")
		b.Write(body)
		reqs[i] = b.Bytes()
	}
	var (
		sent     atomic.Int64
		mu       sync.Mutex
		wg       sync.WaitGroup
		deadline = time.Now().Add(d)
	)
	start, cpu := time.Now(), cpuTime()
	for client := range clients {
		wg.Go(func() {
			lat := make([]time.Duration, 0, 4096)
			var errs int
			var firstErr string
			var conn net.Conn
			var r *bufio.Reader
			for i := client; sent.Add(1) <= phaseRequests && time.Now().Before(deadline); i++ {
				if conn == nil {
					c, err := net.DialTimeout("tcp", u.Host, requestTimeout)
					if err != nil {
						errs++
						firstErr = cmp.Or(firstErr, err.Error())
						continue
					}
					conn, r = c, bufio.NewReaderSize(c, 8<<10)
				}
				t := time.Now()
				conn.SetDeadline(t.Add(requestTimeout))
				_, err := conn.Write(reqs[i%len(reqs)])
				code := 0
				keep := true
				if err == nil {
					code, keep, err = readResponse(r)
				}
				if err != nil || code != 200 {
					errs++
					firstErr = cmp.Or(firstErr, fmt.Sprintf("%d %v", code, err))
				} else {
					lat = append(lat, time.Since(t))
				}
				if err != nil || !keep {
					conn.Close()
					conn = nil
				}
			}
			if conn != nil {
				conn.Close()
			}
			if into == nil {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			into.ok += len(lat)
			into.errors += errs
			into.firstErr = cmp.Or(into.firstErr, firstErr)
			into.latencies = append(into.latencies, lat...)
		})
	}
	wg.Wait()
	if into != nil {
		into.elapsed += time.Since(start)
		into.cpu += cpuTime() - cpu
	}
}

// readResponse reads one HTTP/1.1 response and its body, and returns its status code and
// whether the connection stays open.
func readResponse(r *bufio.Reader) (code int, keep bool, err error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return 0, false, err
	}
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.1 ")) {
		return 0, false, fmt.Errorf("not an HTTP/1.1 status line: %q", line)
	}
	if code, err = strconv.Atoi(string(line[9:12])); err != nil {
		return 0, false, fmt.Errorf("status line %q: %v", line, err)
	}
	length, chunked, keep := -1, false, true
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return code, false, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		k, v, _ := bytes.Cut(line, []byte(":"))
		v = bytes.TrimSpace(v)
		switch {
		case bytes.EqualFold(k, []byte("Content-Length")):
			if length, err = strconv.Atoi(string(v)); err != nil {
				return code, false, fmt.Errorf("Content-Length %q", v)
			}
		case bytes.EqualFold(k, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(v, []byte("chunked"))
		case bytes.EqualFold(k, []byte("Connection")):
			keep = !bytes.EqualFold(v, []byte("close"))
		}
	}
	switch {
	case chunked:
		for {
			line, err := r.ReadSlice('\n')
			if err != nil {
				return code, false, err
			}
			size, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 16, 64)
			if err != nil {
				return code, false, fmt.Errorf("chunk size %q", line)
			}
			if _, err := r.Discard(int(size) + 2); err != nil { // the chunk and its CRLF
				return code, false, err
			}
			if size == 0 {
				return code, keep, nil
			}
		}
	case length >= 0:
		_, err = r.Discard(length)
		return code, keep, err
	default: // the body runs to the connection's end
		_, err = io.Copy(io.Discard, r)
		return code, false, err
	}
}

// TestRawLoadReadsEveryAnswer holds rawRun to what the benchmarks rely on: every request is
// answered and counted once, over kept-alive connections, whether the answer has a length,
// is chunked or closes the connection.
func TestRawLoadReadsEveryAnswer(t *testing.T) {
	var served, conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		in, _ := io.ReadAll(r.Body)
		switch {
		case bytes.Contains(in, []byte("git status")): // chunked
			io.WriteString(w, `{"outcome":`)
			w.(http.Flusher).Flush()
			io.WriteString(w, `null}`)
		case bytes.Contains(in, []byte("ls -la")):
			w.Header().Set("Connection", "close")
			io.WriteString(w, `{"outcome":null}`)
		default:
			io.WriteString(w, `{"outcome":null}`)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	var l load
	rawRun(peer{url: srv.URL + "/v1/hooks/pre_tool_call", header: http.Header{"Content-Type": {"application/json"}},
		body: func(kwargs string) []byte { return []byte(kwargs) }}, 4, 200*time.Millisecond, &l)
	if l.errors != 0 || l.ok == 0 {
		t.Fatalf("%d answered, %d failed (the first: %s)", l.ok, l.errors, l.firstErr)
	}
	if int64(l.ok) != served.Load() || len(l.latencies) != l.ok {
		t.Fatalf("counted %d answers (%d latencies), the server answered %d", l.ok, len(l.latencies), served.Load())
	}
	// One input in eight closes its connection: about that many connections, not one per request.
	if n := conns.Load(); n > int64(l.ok/8+8) {
		t.Fatalf("%d connections for %d requests: not kept alive", n, l.ok)
	}
}
