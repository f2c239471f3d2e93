package testutil

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-hooks/hermes/bundle"
)

// BundleFeed is a local bundle server for tests: it serves one archive with an ETag (its
// SHA-256) and answers If-None-Match with 304. Two key pairs, "release" and "other", have
// their public halves in Managed, a managed home whose config.yaml names the feed.
type BundleFeed struct {
	tb      testing.TB
	Srv     *httptest.Server
	Managed string // the managed home
	keys    map[string]*bundle.PrivateKey

	mu          sync.Mutex
	archive     []byte
	Fetches     int // answers with a body
	NotModified int // 304 answers
}

// NewBundleFeed starts the server and writes Managed/config.yaml with bundles: {url,
// keys: [release.pub], poll} and extra (more keys of the managed config: a policy:).
func NewBundleFeed(tb testing.TB, poll, extra string) *BundleFeed {
	f := &BundleFeed{tb: tb, keys: map[string]*bundle.PrivateKey{}, Managed: tb.TempDir()}
	f.Srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		etag := fmt.Sprintf(`"%x"`, sha256.Sum256(f.archive))
		if r.Header.Get("If-None-Match") == etag {
			f.NotModified++
			w.WriteHeader(http.StatusNotModified)
			return
		}
		f.Fetches++
		w.Header().Set("ETag", etag)
		w.Write(f.archive)
	}))
	tb.Cleanup(f.Srv.Close)
	for _, name := range []string{"release", "other"} {
		priv, pub, err := bundle.GenerateKey()
		if err != nil {
			tb.Fatal(err)
		}
		if f.keys[name], err = bundle.ParsePrivateKey(priv); err != nil {
			tb.Fatal(err)
		}
		WriteFiles(tb, f.Managed, map[string]string{name + ".pub": string(pub)})
	}
	f.Config("[release.pub]\n  poll: "+poll, extra)
	return f
}

// Config rewrites the managed config.yaml: bundles: with the feed's URL and keys (the
// rest of the bundles: mapping's text may follow them, indented by two), then extra.
func (f *BundleFeed) Config(keys, extra string) {
	WriteFiles(f.tb, f.Managed, map[string]string{"config.yaml": "bundles:\n  url: " + f.Srv.URL + "/hooks.bundle\n  keys: " + keys + "\n" + extra})
}

// Publish builds a bundle of files (paths in a home; a name ending in .sh is executable)
// at revision rev, signed by key ("release" or "other"), serves it and returns it.
func (f *BundleFeed) Publish(files map[string]string, rev int64, key string) []byte {
	f.tb.Helper()
	src := f.tb.TempDir()
	for name, body := range files {
		p := filepath.Join(src, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			f.tb.Fatal(err)
		}
	}
	archive, _, err := bundle.Build(src, bundle.Options{Revision: rev, Key: f.keys[key]})
	if err != nil {
		f.tb.Fatal(err)
	}
	f.Serve(archive)
	return archive
}

// Serve serves archive from now on.
func (f *BundleFeed) Serve(archive []byte) {
	f.mu.Lock()
	f.archive = archive
	f.mu.Unlock()
}

// Counts returns how many answers had a body, and how many were 304.
func (f *BundleFeed) Counts() (fetches, notModified int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.Fetches, f.NotModified
}
