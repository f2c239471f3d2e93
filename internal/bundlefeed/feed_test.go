package bundlefeed

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCheckURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://hooks.example.com/b": true, "http://127.0.0.1:8080/b": true, "http://localhost/b": true, "http://[::1]/b": true,
		"http://hooks.example.com/b": false, "http://10.0.0.1/b": false, "ftp://127.0.0.1/b": false, "/srv/b": false, "": false,
	} {
		if got := checkURL(raw) == ""; got != ok {
			t.Errorf("checkURL(%q) = %q, want accepted %v", raw, checkURL(raw), ok)
		}
	}
}

// An answer over the size cap and an answer other than 200 are errors recorded in the
// status, and nothing is activated.
func TestFetchRefusals(t *testing.T) {
	oldMax, oldTimeout := maxArchive, timeout
	maxArchive, timeout = 1000, 200*time.Millisecond
	t.Cleanup(func() { maxArchive, timeout = oldMax, oldTimeout })
	for _, c := range []struct {
		name, want string
		h          http.HandlerFunc
	}{
		{"over the cap", "answer body too large", func(w http.ResponseWriter, r *http.Request) { w.Write(make([]byte, 1001)) }},
		{"a server that does not answer in time", "no answer from", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }},
		{"not found", "404 Not Found", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }},
		{"a 304 without If-None-Match", "304 Not Modified", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNotModified) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(c.h)
			defer srv.Close()
			dir := t.TempDir()
			cfg := &Config{URL: srv.URL, Cache: filepath.Join(dir, "cache"), Poll: DefaultPoll}
			res, err := Pull(context.Background(), cfg, srv.Client(), func(context.Context, string) error { return nil })
			if err == nil || !strings.Contains(err.Error(), c.want) || res.Activated || res.Status.LastError != err.Error() {
				t.Fatalf("pull: %+v %v, want an error with %q", res, err, c.want)
			}
			st, _ := ReadStatus(cfg.Cache)
			if st.LastError != err.Error() || st.LastCheck.IsZero() || !st.LastSuccess.IsZero() || st.Revision != 0 {
				t.Errorf("status %+v", st)
			}
		})
	}
}

// prune removes the cache's bundles but those kept, and nothing else.
func TestPrune(t *testing.T) {
	cache := t.TempDir()
	names := []string{"r1-0123456789abcdef", "r1-0123456789abcdef.bundle", "r2-0123456789abcdef", "r2-0123456789abcdef.bundle",
		"r3-0123456789abcdef", "r3-0123456789abcdef.bundle", "status.json", "readme.txt", "r4-notadigest"}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(cache, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	prune(cache, filepath.Join(cache, "r3-0123456789abcdef"), filepath.Join(cache, "r2-0123456789abcdef"))
	for _, n := range names {
		_, err := os.Stat(filepath.Join(cache, n))
		if gone := err != nil; gone != strings.HasPrefix(n, "r1-") {
			t.Errorf("%s: removed %v", n, gone)
		}
	}
}
