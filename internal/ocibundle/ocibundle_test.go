package ocibundle

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"
)

// newRegistry serves an OCI registry on a loopback address and returns its host:port.
func newRegistry(t *testing.T) string {
	t.Helper()
	t.Setenv("DOCKER_CONFIG", t.TempDir()) // no credentials of the machine's
	srv := httptest.NewServer(registry.New())
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

// A pushed bundle is fetched back byte for byte; the manifest's digest is the etag, and
// a fetch with it is nothing new; a new push to the tag is a new etag.
func TestPushFetch(t *testing.T) {
	ctx := context.Background()
	url := Scheme + newRegistry(t) + "/hooks/fleet:stable"
	first := []byte("bundle one")
	pushed, err := Push(ctx, first, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, etag, err := Fetch(ctx, url, "", 1<<20, nil)
	if err != nil || !bytes.Equal(data, first) || etag != pushed {
		t.Fatalf("Fetch: %q %q %v, want the bundle and etag %s", data, etag, err, pushed)
	}
	if again, _ := Push(ctx, first, url, nil); again != pushed {
		t.Errorf("the same bundle pushed twice: manifests %s and %s, want one", pushed, again)
	}
	if data, same, err := Fetch(ctx, url, etag, 1<<20, nil); data != nil || same != etag || err != nil {
		t.Errorf("Fetch with the current etag: %q %q %v, want nothing new", data, same, err)
	}
	if _, err := Push(ctx, []byte("bundle two"), url, nil); err != nil {
		t.Fatal(err)
	}
	data, etag2, err := Fetch(ctx, url, etag, 1<<20, nil)
	if err != nil || string(data) != "bundle two" || etag2 == etag {
		t.Errorf("Fetch after a new push: %q %q %v", data, etag2, err)
	}
	if _, _, err := Fetch(ctx, url, "", 5, nil); err == nil || !strings.Contains(err.Error(), "over 5") {
		t.Errorf("Fetch with a smaller limit: %v, want the size refused", err)
	}
}

// A manifest that is not a bundle's (another artifact at the tag) is refused, naming why.
func TestFetchNotABundle(t *testing.T) {
	ctx := context.Background()
	host := newRegistry(t)
	repo, err := remote.NewRepository(host + "/hooks/other")
	if err != nil {
		t.Fatal(err)
	}
	repo.PlainHTTP = true
	layer := content.NewDescriptorFromBytes("application/octet-stream", []byte("x"))
	if err := repo.Push(ctx, layer, bytes.NewReader([]byte("x"))); err != nil {
		t.Fatal(err)
	}
	desc, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, "application/x-other", oras.PackManifestOptions{Layers: []ocispec.Descriptor{layer}})
	if err != nil {
		t.Fatal(err)
	}
	if err := repo.Tag(ctx, desc, "v1"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Fetch(ctx, Scheme+host+"/hooks/other:v1", "", 1<<20, nil); err == nil || !strings.Contains(err.Error(), "not a bundle pushed by hermesctl bundle push") {
		t.Errorf("Fetch of another artifact: %v", err)
	}
	if _, _, err := Fetch(ctx, Scheme+host+"/hooks/missing:v1", "", 1<<20, nil); err == nil {
		t.Error("Fetch of a missing tag: no error")
	}
}

// The credentials of the Docker configuration are sent to a registry that asks for them.
func TestDockerCredentials(t *testing.T) {
	inner := registry.New()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user, pass, ok := r.BasicAuth(); !ok || user != "ci" || pass != "s3cret" {
			w.Header().Set("WWW-Authenticate", `Basic realm="hooks"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	url := Scheme + host + "/hooks/fleet:stable"
	dir := t.TempDir()
	t.Setenv("DOCKER_CONFIG", dir)
	if _, err := Push(context.Background(), []byte("b"), url, nil); err == nil {
		t.Fatal("push without credentials: no error")
	}
	cfg := `{"auths": {"` + host + `": {"auth": "` + base64.StdEncoding.EncodeToString([]byte("ci:s3cret")) + `"}}}`
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Push(context.Background(), []byte("b"), url, nil); err != nil {
		t.Fatalf("push with docker login's credentials: %v", err)
	}
	if data, _, err := Fetch(context.Background(), url, "", 1<<20, nil); err != nil || string(data) != "b" {
		t.Errorf("fetch with docker login's credentials: %q %v", data, err)
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		url  string
		ok   bool
		host bool // a loopback registry
	}{
		{"oci://registry.example.com/hooks/fleet:stable", true, false},
		{"oci://127.0.0.1:5000/hooks/fleet@sha256:" + strings.Repeat("a", 64), true, true},
		{"oci://localhost:5000/hooks/fleet:1", true, true},
		{"oci://registry.example.com/hooks/fleet", false, false},
		{"oci://registry.example.com/Hooks:x", false, false},
	} {
		ref, err := Parse(c.url)
		if (err == nil) != c.ok || err == nil && Loopback(ref.Registry) != c.host {
			t.Errorf("Parse(%q) = %+v, %v", c.url, ref, err)
		}
	}
}
