// Package ocibundle keeps hook bundles in OCI registries (oci://registry/repository:tag): a
// bundle is the one layer of an OCI image manifest of artifact type ArtifactType, its
// media type LayerMediaType. It moves bytes only: the bundle's signature, revision and
// policy are checked by its caller (internal/bundlefeed), as for a bundle fetched over
// HTTPS.
//
// It speaks the OCI distribution API itself, over net/http, and parses references by
// hand: a hook runs hermesctl as a new process per tool call, and a registry client's
// package initialisation (compiled regular expressions) would be paid by every one.
//
// A registry on a loopback address is reached over plain HTTP (a local mirror, a test),
// any other over HTTPS, and plain HTTP to anything else (a token service, a redirect) is
// refused. Requests go anonymously first; a 401 is answered with the credentials of the
// Docker configuration (~/.docker/config.json or $DOCKER_CONFIG, docker login: auths, or
// the credential helper of credHelpers or credsStore), as basic auth or for a bearer token
// of the challenge's token service, kept for the process per registry and scope.
package ocibundle

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Media types of a bundle in a registry.
const (
	ArtifactType   = "application/vnd.hermes.bundle.v1"
	LayerMediaType = "application/vnd.hermes.bundle.v1.tar+gzip"
	Scheme         = "oci://"
)

// Media types of the OCI image spec and of Docker's, and the annotation of creation time.
const (
	mediaTypeManifest       = "application/vnd.oci.image.manifest.v1+json"
	mediaTypeIndex          = "application/vnd.oci.image.index.v1+json"
	mediaTypeDockerManifest = "application/vnd.docker.distribution.manifest.v2+json"
	mediaTypeDockerList     = "application/vnd.docker.distribution.manifest.list.v2+json"
	mediaTypeEmptyJSON      = "application/vnd.oci.empty.v1+json"
	annotationCreated       = "org.opencontainers.image.created"
)

// manifestAccept is the Accept header of a manifest request.
const manifestAccept = mediaTypeManifest + ", " + mediaTypeIndex + ", " + mediaTypeDockerManifest + ", " + mediaTypeDockerList

// maxManifest bounds a manifest's size.
const maxManifest = 4 << 20

// descriptor and manifest are the OCI image spec's, their fields in its order, so that a
// manifest is encoded as other OCI clients encode it.
type descriptor struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
	Size      int64  `json:"size"`
	Data      []byte `json:"data,omitempty"`
}

type manifest struct {
	SchemaVersion int               `json:"schemaVersion"`
	MediaType     string            `json:"mediaType,omitempty"`
	ArtifactType  string            `json:"artifactType,omitempty"`
	Config        descriptor        `json:"config"`
	Layers        []descriptor      `json:"layers"`
	Annotations   map[string]string `json:"annotations,omitempty"`
}

// digestOf is the sha256 digest of data, sha256:<hex>.
func digestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// IsRef reports whether url names a registry (oci://...).
func IsRef(url string) bool { return strings.HasPrefix(url, Scheme) }

// Parse reads oci://registry/repository:tag (or @sha256:...); a reference without a tag
// or digest is an error.
func Parse(url string) (Reference, error) {
	ref, err := parseReference(strings.TrimPrefix(url, Scheme))
	if err != nil {
		return ref, fmt.Errorf("%q is not oci://registry/repository:tag: %w", url, err)
	}
	if ref.Reference == "" {
		return ref, fmt.Errorf("%q names no tag: oci://registry/repository:tag", url)
	}
	return ref, nil
}

// Loopback reports whether a registry's host (host or host:port) is a loopback address.
func Loopback(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Fetch resolves url to its manifest and, unless the manifest's digest is etag (nothing
// new: nil data), returns the bundle layer's bytes, at most max of them, checked against
// their digest, with the manifest's digest as the new etag.
func Fetch(ctx context.Context, url, etag string, max int64, client *http.Client) ([]byte, string, error) {
	ref, err := Parse(url)
	if err != nil {
		return nil, "", err
	}
	s := newSession(ref, client, "pull")
	if etag != "" {
		current, err := s.resolve(ctx)
		if err != nil {
			return nil, "", err
		}
		if current == etag {
			return nil, etag, nil
		}
	}
	data, dgst, mediaType, err := s.manifest(ctx)
	if err != nil {
		return nil, "", err
	}
	if etag != "" && dgst == etag {
		return nil, etag, nil
	}
	var m manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, "", fmt.Errorf("the manifest of %s: %w", url, err)
	}
	if m.MediaType == "" {
		m.MediaType = mediaType
	}
	if m.MediaType != mediaTypeManifest && m.MediaType != mediaTypeDockerManifest {
		return nil, "", fmt.Errorf("%s is a %s, not an image manifest: it is not a bundle pushed by hermesctl bundle push", url, m.MediaType)
	}
	layer, err := bundleLayer(m)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", url, err)
	}
	if layer.Size > max {
		return nil, "", fmt.Errorf("%s: the bundle is %d bytes, over %d", url, layer.Size, max)
	}
	blob, err := s.blob(ctx, layer)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", url, err)
	}
	return blob, dgst, nil
}

// bundleLayer is the one layer of m of LayerMediaType.
func bundleLayer(m manifest) (descriptor, error) {
	var found []descriptor
	for _, l := range m.Layers {
		if l.MediaType == LayerMediaType {
			found = append(found, l)
		}
	}
	if len(found) != 1 {
		return descriptor{}, fmt.Errorf("the manifest has %d layers of type %s, not one: it is not a bundle pushed by hermesctl bundle push", len(found), LayerMediaType)
	}
	if !validDigest(found[0].Digest) || found[0].Size < 0 {
		return descriptor{}, fmt.Errorf("the bundle's layer has digest %q and size %d: want sha256:<64 hex digits> and a size", found[0].Digest, found[0].Size)
	}
	return found[0], nil
}

// resolve is the digest of the manifest the reference names, from a HEAD request: "" when
// the registry does not say (the manifest's GET will).
func (s *session) resolve(ctx context.Context) (string, error) {
	resp, err := s.do(ctx, http.MethodHead, s.url("/manifests/"+s.ref.Reference), http.Header{"Accept": {manifestAccept}}, nil)
	if err != nil {
		return "", err
	}
	drain(resp)
	if d := resp.Header.Get("Docker-Content-Digest"); resp.StatusCode == http.StatusOK && validDigest(d) {
		return d, nil
	}
	return "", nil
}

// manifest GETs the manifest the reference names and returns it with its digest, checked
// against the reference when it is one and against the registry's Docker-Content-Digest,
// and its media type as served.
func (s *session) manifest(ctx context.Context) (data []byte, dgst, mediaType string, err error) {
	resp, err := s.do(ctx, http.MethodGet, s.url("/manifests/"+s.ref.Reference), http.Header{"Accept": {manifestAccept}}, nil)
	if err != nil {
		return nil, "", "", err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, "", "", statusError(resp)
	}
	defer resp.Body.Close()
	what := s.ref.Registry + "/" + s.ref.Repository + ":" + s.ref.Reference
	if resp.ContentLength > maxManifest {
		return nil, "", "", fmt.Errorf("the manifest of %s is %d bytes, over %d", what, resp.ContentLength, maxManifest)
	}
	data, err = io.ReadAll(io.LimitReader(resp.Body, maxManifest+1))
	if err != nil {
		return nil, "", "", err
	}
	if len(data) > maxManifest {
		return nil, "", "", fmt.Errorf("the manifest of %s is over %d bytes", what, maxManifest)
	}
	dgst = digestOf(data)
	if s.ref.IsDigest() && dgst != s.ref.Reference {
		return nil, "", "", fmt.Errorf("the manifest of %s has digest %s, not the one asked for", what, dgst)
	}
	if d := resp.Header.Get("Docker-Content-Digest"); strings.HasPrefix(d, "sha256:") && d != dgst {
		return nil, "", "", fmt.Errorf("the manifest of %s has digest %s, not %s as the registry says", what, dgst, d)
	}
	mediaType, _, _ = mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return data, dgst, mediaType, nil
}

// blob GETs the blob of desc, reading at most one byte more than its size, and checks
// its size and digest.
func (s *session) blob(ctx context.Context, desc descriptor) ([]byte, error) {
	resp, err := s.do(ctx, http.MethodGet, s.url("/blobs/"+desc.Digest), nil, nil)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, statusError(resp)
	}
	defer resp.Body.Close()
	if resp.ContentLength >= 0 && resp.ContentLength != desc.Size {
		return nil, fmt.Errorf("the bundle's layer %s is served with %d bytes, not the %d of its manifest", desc.Digest, resp.ContentLength, desc.Size)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, desc.Size+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != desc.Size {
		return nil, fmt.Errorf("the bundle's layer %s is served with more or fewer bytes than the %d of its manifest", desc.Digest, desc.Size)
	}
	if got := digestOf(data); got != desc.Digest {
		return nil, fmt.Errorf("the bundle's layer is served with digest %s, not the %s of its manifest", got, desc.Digest)
	}
	return data, nil
}

// Push uploads the bundle archive data to url, as the one layer of a manifest of
// ArtifactType tagged with url's tag, and returns the manifest's digest.
func Push(ctx context.Context, data []byte, url string, client *http.Client) (string, error) {
	ref, err := Parse(url)
	if err != nil {
		return "", err
	}
	if ref.IsDigest() {
		return "", errors.New("push to a tag (oci://registry/repository:tag), not a digest")
	}
	s := newSession(ref, client, "pull,push")
	layer, err := s.pushBlob(ctx, LayerMediaType, data)
	if err != nil {
		return "", err
	}
	// the config is the empty descriptor, as the image spec asks of an artifact
	config, err := s.pushBlob(ctx, mediaTypeEmptyJSON, []byte("{}"))
	if err != nil {
		return "", err
	}
	config.Data = []byte("{}")
	m := manifest{
		SchemaVersion: 2,
		MediaType:     mediaTypeManifest,
		ArtifactType:  ArtifactType,
		Config:        config,
		Layers:        []descriptor{layer},
		// a fixed creation time: the same bundle gives the same manifest
		Annotations: map[string]string{annotationCreated: "1970-01-01T00:00:00Z"},
	}
	return s.putManifest(ctx, m)
}

// pushBlob uploads data unless the repository has it already (a POST starting an upload,
// then a PUT of the bytes with their digest) and returns its descriptor.
func (s *session) pushBlob(ctx context.Context, mediaType string, data []byte) (descriptor, error) {
	desc := descriptor{MediaType: mediaType, Digest: digestOf(data), Size: int64(len(data))}
	resp, err := s.do(ctx, http.MethodHead, s.url("/blobs/"+desc.Digest), nil, nil)
	if err != nil {
		return desc, err
	}
	if drain(resp); resp.StatusCode == http.StatusOK {
		return desc, nil
	}
	resp, err = s.do(ctx, http.MethodPost, s.url("/blobs/uploads/"), nil, nil)
	if err != nil {
		return desc, err
	}
	if resp.StatusCode != http.StatusAccepted {
		return desc, statusError(resp)
	}
	drain(resp)
	loc, err := resp.Request.URL.Parse(resp.Header.Get("Location"))
	if err != nil || resp.Header.Get("Location") == "" {
		return desc, fmt.Errorf("POST %s: no upload location", redact(resp.Request.URL))
	}
	q := loc.Query()
	q.Set("digest", desc.Digest)
	loc.RawQuery = q.Encode()
	header := http.Header{"Content-Type": {"application/octet-stream"}}
	resp, err = s.do(ctx, http.MethodPut, loc.String(), header, data)
	if err != nil {
		return desc, err
	}
	if resp.StatusCode != http.StatusCreated {
		return desc, statusError(resp)
	}
	drain(resp)
	return desc, nil
}

// putManifest PUTs m under the reference's tag and returns its digest.
func (s *session) putManifest(ctx context.Context, m manifest) (string, error) {
	data, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	resp, err := s.do(ctx, http.MethodPut, s.url("/manifests/"+url.PathEscape(s.ref.Reference)), http.Header{"Content-Type": {m.MediaType}}, data)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusCreated {
		return "", statusError(resp)
	}
	drain(resp)
	return digestOf(data), nil
}
