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
	ref, err := Parse(Scheme + host + "/hooks/other:v1")
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(ref, nil, "pull,push")
	layer, err := s.pushBlob(ctx, "application/octet-stream", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	config, err := s.pushBlob(ctx, mediaTypeEmptyJSON, []byte("{}"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.putManifest(ctx, manifest{SchemaVersion: 2, MediaType: mediaTypeManifest, ArtifactType: "application/x-other", Config: config, Layers: []descriptor{layer}}); err != nil {
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
	srv := basicAuthRegistry(t, "ci", "s3cret")
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
		{"oci://registry.example.com/a__b/c.d/e--f_g:v1.0-rc_1", true, false},
		{"oci://registry.example.com/a___b:x", false, false},
		{"oci://registry.example.com/a-:x", false, false},
		{"oci://registry.example.com/a//b:x", false, false},
		{"oci://registry.example.com/a:.x", false, false},
		{"oci://registry.example.com/a:" + strings.Repeat("x", 128), true, false},
		{"oci://registry.example.com/a:" + strings.Repeat("x", 129), false, false},
		{"oci://registry.example.com/a@sha256:" + strings.Repeat("A", 64), false, false},
		{"oci://registry.example.com/a@sha256:abc", false, false},
		{"oci://registry.example.com:x/a:b", false, false},
		{"oci://registry.example.com", false, false},
	} {
		ref, err := Parse(c.url)
		if (err == nil) != c.ok || err == nil && Loopback(ref.Registry) != c.host {
			t.Errorf("Parse(%q) = %+v, %v", c.url, ref, err)
		}
	}
}

// A bad reference's error names the part that is wrong.
func TestParseErrors(t *testing.T) {
	for url, want := range map[string]string{
		"oci://registry.example.com/Hooks:x":     `invalid reference: invalid repository "Hooks"`,
		"oci://registry.example.com/hooks:-x":    `invalid reference: invalid tag "-x"`,
		"oci://registry.example.com/hooks@md5:x": `invalid reference: invalid digest "md5:x"`,
		"oci://registry.example.com":             "invalid reference: missing registry or repository",
		"oci://registry.example.com/hooks":       "names no tag",
	} {
		if _, err := Parse(url); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want %q", url, err, want)
		}
	}
	if ref, err := Parse("oci://registry.example.com/hooks:v1@sha256:" + strings.Repeat("a", 64)); err != nil || !ref.IsDigest() || ref.Repository != "hooks" {
		t.Errorf("a tag and a digest: %+v %v, want the digest", ref, err)
	}
}

// What Parse takes is what the registry API's paths can carry: a repository and a
// reference without characters a URL path would change.
func FuzzParse(f *testing.F) {
	f.Add("oci://registry.example.com/hooks/fleet:stable")
	f.Add("oci://127.0.0.1:5000/a__b@sha256:" + strings.Repeat("a", 64))
	f.Fuzz(func(t *testing.T, url string) {
		ref, err := Parse(url)
		if err != nil {
			return
		}
		if strings.ContainsAny(ref.Repository, "?#% \t\n") || strings.ContainsAny(ref.Reference, "/?#% \t\n") {
			t.Errorf("Parse(%q) took %+v", url, ref)
		}
	})
}

// basicAuthRegistry is an in-process registry that answers only requests with the basic
// credentials user and pass, and asks for them otherwise.
func basicAuthRegistry(t *testing.T, user, pass string) *httptest.Server {
	inner := registry.New()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != user || p != pass {
			w.Header().Set("WWW-Authenticate", `Basic realm="hooks"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}
