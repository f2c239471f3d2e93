package ocibundle

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// writeDockerConfig writes config.json in a new DOCKER_CONFIG directory.
func writeDockerConfig(t *testing.T, cfg string) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("DOCKER_CONFIG", dir)
	if cfg != "" {
		if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// A pushed manifest is byte for byte the image spec's encoding of an artifact manifest
// (the empty config, the one layer, the fixed creation time), as other OCI clients write
// it: a bundle pushed again by any of them is the same manifest, so nothing new.
func TestPushedManifestIsImageSpecs(t *testing.T) {
	host := newRegistry(t)
	data := []byte("bundle one")
	dgst, err := Push(context.Background(), data, Scheme+host+"/hooks/fleet:stable", nil)
	if err != nil {
		t.Fatal(err)
	}
	var layer ocispec.Descriptor
	if err := json.Unmarshal([]byte(`{"mediaType": "`+LayerMediaType+`", "digest": "sha256:`+sha256Hex(data)+`", "size": 10}`), &layer); err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(ocispec.Manifest{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: ArtifactType,
		Config:       ocispec.DescriptorEmptyJSON,
		Layers:       []ocispec.Descriptor{layer},
		Annotations:  map[string]string{ocispec.AnnotationCreated: "1970-01-01T00:00:00Z"},
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + host + "/v2/hooks/fleet/manifests/stable")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	if string(got) != string(want) || dgst != "sha256:"+sha256Hex(want) {
		t.Errorf("pushed manifest %s (%s),\nwant %s", got, dgst, want)
	}
}

func sha256Hex(b []byte) string { return strings.TrimPrefix(digestOf(b), "sha256:") }

// A registry that answers 401 with a bearer challenge gets a token from its token service,
// asked with the Docker configuration's user and password; the token is reused by the
// next fetch. Without credentials the push is refused, saying what to do.
func TestBearerToken(t *testing.T) {
	inner := registry.New()
	var tokenRequests atomic.Int32
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/token" {
			tokenRequests.Add(1)
			if user, pass, ok := r.BasicAuth(); !ok || user != "ci" || pass != "s3cret" || r.URL.Query().Get("service") != "hooks" {
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			// the token is the scopes granted, so that the registry can check them
			granted := base64.StdEncoding.EncodeToString([]byte(strings.Join(r.URL.Query()["scope"], " ")))
			json.NewEncoder(w).Encode(map[string]string{"access_token": granted})
			return
		}
		scope := "repository:hooks/fleet:pull"
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			scope += ",push"
		}
		granted, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") || !strings.Contains(" "+string(granted)+" ", " "+scope+" ") {
			w.Header().Set("WWW-Authenticate", `Bearer realm="`+srv.URL+`/token",service="hooks",scope="`+scope+`"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	url := Scheme + host + "/hooks/fleet:stable"
	ctx := context.Background()

	writeDockerConfig(t, "")
	if _, err := Push(ctx, []byte("b"), url, nil); err == nil || !strings.Contains(err.Error(), "docker login "+host) {
		t.Fatalf("push without credentials: %v, want refused naming docker login", err)
	}
	writeDockerConfig(t, `{"auths": {"`+host+`": {"username": "ci", "password": "s3cret"}}}`)
	if _, err := Push(ctx, []byte("b"), url, nil); err != nil {
		t.Fatalf("push with a token: %v", err)
	}
	if data, _, err := Fetch(ctx, url, "", 1<<20, nil); err != nil || string(data) != "b" {
		t.Fatalf("fetch with a token: %q %v", data, err)
	}
	before := tokenRequests.Load()
	if data, _, err := Fetch(ctx, url, "", 1<<20, nil); err != nil || string(data) != "b" {
		t.Fatalf("second fetch: %q %v", data, err)
	}
	if n := tokenRequests.Load() - before; n != 0 {
		t.Errorf("second fetch asked for %d new tokens, want the first reused", n)
	}
}

// The credentials of a credential helper (credHelpers) are those sent.
func TestCredentialHelper(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the helper is a shell script")
	}
	srv := basicAuthRegistry(t, "ci", "from-helper")
	host := strings.TrimPrefix(srv.URL, "http://")
	bin := t.TempDir()
	script := "#!/bin/sh\n[ \"$1\" = get ] && [ \"$(cat)\" = \"" + host + "\" ] && echo '{\"Username\":\"ci\",\"Secret\":\"from-helper\"}' && exit 0\necho 'credentials not found in native keychain'; exit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "docker-credential-hermestest"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	writeDockerConfig(t, `{"credHelpers": {"`+host+`": "hermestest"}}`)
	if _, err := Push(context.Background(), []byte("b"), Scheme+host+"/hooks/fleet:stable", nil); err != nil {
		t.Fatalf("push with the helper's credentials: %v", err)
	}
}

// fakeRegistry serves a bundle manifest at hooks/fleet:stable whose layer is layer, its
// blob answered by blob, and returns the oci:// URL.
func fakeRegistry(t *testing.T, layer descriptor, blob http.HandlerFunc) string {
	t.Helper()
	writeDockerConfig(t, "")
	m, err := json.Marshal(manifest{SchemaVersion: 2, MediaType: mediaTypeManifest, ArtifactType: ArtifactType,
		Config: descriptor{MediaType: mediaTypeEmptyJSON, Digest: digestOf([]byte("{}")), Size: 2}, Layers: []descriptor{layer}})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/v2/hooks/fleet/manifests/stable", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", mediaTypeManifest)
		w.Write(m)
	})
	mux.HandleFunc("/v2/hooks/fleet/blobs/"+layer.Digest, blob)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return Scheme + strings.TrimPrefix(srv.URL, "http://") + "/hooks/fleet:stable"
}

// A layer served with other bytes than its manifest's digest names is refused.
func TestLayerDigestMismatch(t *testing.T) {
	good := []byte("good bundle")
	url := fakeRegistry(t, descriptor{MediaType: LayerMediaType, Digest: digestOf(good), Size: int64(len(good))}, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("evil bundle"))
	})
	if data, _, err := Fetch(context.Background(), url, "", 1<<20, nil); err == nil || data != nil || !strings.Contains(err.Error(), "not the "+digestOf(good)+" of its manifest") {
		t.Errorf("Fetch of a tampered layer: %q %v, want refused", data, err)
	}
}

// A layer served with more bytes than its manifest says is refused without reading them
// all: at most one byte more than the size is read, whether the length is announced or not.
func TestLayerOversize(t *testing.T) {
	small := []byte("0123456789")
	layer := descriptor{MediaType: LayerMediaType, Digest: digestOf(small), Size: int64(len(small))}
	t.Run("announced", func(t *testing.T) {
		url := fakeRegistry(t, layer, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(1<<30))
			w.Write(small)
		})
		if _, _, err := Fetch(context.Background(), url, "", 1<<20, nil); err == nil || !strings.Contains(err.Error(), "served with 1073741824 bytes, not the 10") {
			t.Errorf("Fetch of a layer announced at 1 GiB: %v, want refused", err)
		}
	})
	t.Run("streamed", func(t *testing.T) {
		const total = 256 << 20
		var written atomic.Int64
		done := make(chan struct{})
		url := fakeRegistry(t, layer, func(w http.ResponseWriter, r *http.Request) {
			defer close(done)
			chunk := make([]byte, 32<<10)
			for written.Load() < total {
				n, err := w.Write(chunk)
				written.Add(int64(n))
				if err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		})
		if _, _, err := Fetch(context.Background(), url, "", 1<<20, nil); err == nil || !strings.Contains(err.Error(), "more or fewer bytes than the 10") {
			t.Errorf("Fetch of an endless layer: %v, want refused", err)
		}
		<-done
		if n := written.Load(); n >= total/4 {
			t.Errorf("the server wrote %d bytes before the client hung up, want the client to stop at 11", n)
		}
	})
}

// Plain HTTP goes to loopback addresses only: a token service or a redirect to another
// host over http is refused, no credentials sent.
func TestPlainHTTPRefused(t *testing.T) {
	ctx := context.Background()
	t.Run("token service", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="http://auth.example.com/token",service="hooks"`)
			w.WriteHeader(http.StatusUnauthorized)
		}))
		defer srv.Close()
		host := strings.TrimPrefix(srv.URL, "http://")
		writeDockerConfig(t, `{"auths": {"`+host+`": {"username": "ci", "password": "s3cret"}}}`)
		if _, _, err := Fetch(ctx, Scheme+host+"/hooks/fleet:stable", "", 1<<20, nil); err == nil || !strings.Contains(err.Error(), "refusing http://auth.example.com") {
			t.Errorf("Fetch with a token service over http: %v, want refused", err)
		}
	})
	t.Run("redirect", func(t *testing.T) {
		small := []byte("0123456789")
		url := fakeRegistry(t, descriptor{MediaType: LayerMediaType, Digest: digestOf(small), Size: 10}, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://cdn.example.com/blob", http.StatusTemporaryRedirect)
		})
		if _, _, err := Fetch(ctx, url, "", 1<<20, nil); err == nil || !strings.Contains(err.Error(), "refusing http://cdn.example.com") {
			t.Errorf("Fetch of a blob redirected over http: %v, want refused", err)
		}
	})
}

func TestParseChallenge(t *testing.T) {
	scheme, params := parseChallenge(`Bearer realm="https://auth.example.com/token",service="registry.example.com",scope="repository:a/b:pull,push", error=insufficient_scope`)
	if scheme != "bearer" || params["realm"] != "https://auth.example.com/token" || params["service"] != "registry.example.com" || params["scope"] != "repository:a/b:pull,push" || params["error"] != "insufficient_scope" {
		t.Errorf("parseChallenge: %q %v", scheme, params)
	}
}
