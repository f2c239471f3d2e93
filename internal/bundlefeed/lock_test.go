package bundlefeed

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// roundTrip is an http.RoundTripper of a function.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Two replicas pulling into one cache at once: the second waits for the first, then finds
// the revision it activated and does nothing; the active bundle stays whole.
func TestPullsOfOneCacheTakeTurns(t *testing.T) {
	feed := testutil.NewBundleFeed(t, "1s", "")
	archive := feed.Publish(map[string]string{"plugins/guard/plugin.yaml": "name: guard\n", "plugins/guard/handler.lua": "function register(ctx) end\n"}, 1, "release")
	cache := t.TempDir()
	cfg, err := NewGiven("--bundle", "https://bundles.example/hooks.bundle", []string{filepath.Join(feed.Managed, "release.pub")}, time.Second, 0, cache)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{"Etag": {`"v1"`}}, Body: io.NopCloser(bytes.NewReader(archive)), Request: r}, nil
	})}
	synctest.Test(t, func(t *testing.T) {
		second := make(chan Result, 1)
		first, err := Pull(context.Background(), cfg, client, func(ctx context.Context, dir string) error {
			// The first pull has extracted the bundle and is checking it: a second starts.
			go func() {
				res, err := Pull(context.Background(), cfg, client, func(context.Context, string) error { return nil })
				if err != nil {
					t.Errorf("the second pull: %v", err)
				}
				second <- res
			}()
			synctest.Wait()
			select {
			case <-second:
				t.Error("a second pull of the cache ran while the first was checking its bundle")
			default:
			}
			return nil
		})
		if err != nil || !first.Activated {
			t.Fatalf("the first pull: %+v, %v", first, err)
		}
		if res := <-second; res.Activated || res.Status.Revision != 1 {
			t.Errorf("the second pull: %+v, want revision 1 found active", res)
		}
		if _, err := os.Stat(filepath.Join(first.Status.Dir, "plugins", "guard", "handler.lua")); err != nil {
			t.Errorf("the active bundle: %v", err)
		}
	})
}
