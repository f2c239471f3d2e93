// Package ocibundle keeps hook bundles in OCI registries (oci://registry/repository:tag): a
// bundle is the one layer of an OCI image manifest of artifact type ArtifactType, its
// media type LayerMediaType. It moves bytes only: the bundle's signature, revision and
// policy are checked by its caller (internal/bundlefeed), as for a bundle fetched over
// HTTPS.
//
// A registry on a loopback address is reached over plain HTTP (a local mirror, a test),
// any other over HTTPS. Credentials are those of the Docker configuration
// (~/.docker/config.json, docker login), when it has some for the registry.
package ocibundle

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
)

// Media types of a bundle in a registry.
const (
	ArtifactType   = "application/vnd.hermes.bundle.v1"
	LayerMediaType = "application/vnd.hermes.bundle.v1.tar+gzip"
	Scheme         = "oci://"
)

// maxManifest bounds a manifest's size.
const maxManifest = 4 << 20

// IsRef reports whether url names a registry (oci://...).
func IsRef(url string) bool { return strings.HasPrefix(url, Scheme) }

// Parse reads oci://registry/repository:tag (or @sha256:...); a reference without a tag
// or digest is an error.
func Parse(url string) (registry.Reference, error) {
	ref, err := registry.ParseReference(strings.TrimPrefix(url, Scheme))
	if err != nil {
		return ref, fmt.Errorf("%q is not oci://registry/repository:tag: %w", url, err)
	}
	if ref.Reference == "" {
		return ref, fmt.Errorf("%q names no tag: oci://registry/repository:tag", url)
	}
	return ref, nil
}

// repository opens the repository of ref, with client (nil: http.DefaultClient) and the
// Docker configuration's credentials.
func repository(ref registry.Reference, client *http.Client) (*remote.Repository, error) {
	repo, err := remote.NewRepository(ref.Registry + "/" + ref.Repository)
	if err != nil {
		return nil, err
	}
	if client == nil {
		client = http.DefaultClient
	}
	ac := &auth.Client{Client: client, Cache: auth.NewCache()}
	if store, err := credentials.NewStoreFromDocker(credentials.StoreOptions{}); err == nil {
		ac.Credential = credentials.Credential(store)
	}
	repo.Client, repo.PlainHTTP = ac, Loopback(ref.Registry)
	return repo, nil
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
	repo, err := repository(ref, client)
	if err != nil {
		return nil, "", err
	}
	desc, err := repo.Resolve(ctx, ref.Reference)
	if err != nil {
		return nil, "", err
	}
	if etag != "" && desc.Digest.String() == etag {
		return nil, etag, nil
	}
	if desc.Size > maxManifest {
		return nil, "", fmt.Errorf("the manifest of %s is %d bytes, over %d", url, desc.Size, maxManifest)
	}
	data, err := content.FetchAll(ctx, repo, desc)
	if err != nil {
		return nil, "", err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, "", fmt.Errorf("the manifest of %s: %w", url, err)
	}
	layer, err := bundleLayer(m)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", url, err)
	}
	if layer.Size > max {
		return nil, "", fmt.Errorf("%s: the bundle is %d bytes, over %d", url, layer.Size, max)
	}
	blob, err := content.FetchAll(ctx, repo, layer)
	if err != nil {
		return nil, "", err
	}
	return blob, desc.Digest.String(), nil
}

// bundleLayer is the one layer of m of LayerMediaType.
func bundleLayer(m ocispec.Manifest) (ocispec.Descriptor, error) {
	var found []ocispec.Descriptor
	for _, l := range m.Layers {
		if l.MediaType == LayerMediaType {
			found = append(found, l)
		}
	}
	if len(found) != 1 {
		return ocispec.Descriptor{}, fmt.Errorf("the manifest has %d layers of type %s, not one: it is not a bundle pushed by hermesctl bundle push", len(found), LayerMediaType)
	}
	return found[0], nil
}

// Push uploads the bundle archive data to url, as the one layer of a manifest of
// ArtifactType tagged with url's tag, and returns the manifest's digest.
func Push(ctx context.Context, data []byte, url string, client *http.Client) (string, error) {
	ref, err := Parse(url)
	if err != nil {
		return "", err
	}
	if _, err := ref.Digest(); err == nil {
		return "", errors.New("push to a tag (oci://registry/repository:tag), not a digest")
	}
	repo, err := repository(ref, client)
	if err != nil {
		return "", err
	}
	layer := content.NewDescriptorFromBytes(LayerMediaType, data)
	if err := repo.Push(ctx, layer, bytes.NewReader(data)); err != nil {
		return "", err
	}
	desc, err := oras.PackManifest(ctx, repo, oras.PackManifestVersion1_1, ArtifactType, oras.PackManifestOptions{
		Layers: []ocispec.Descriptor{layer},
		// a fixed creation time: the same bundle gives the same manifest
		ManifestAnnotations: map[string]string{ocispec.AnnotationCreated: "1970-01-01T00:00:00Z"},
	})
	if err != nil {
		return "", err
	}
	if err := repo.Tag(ctx, desc, ref.Reference); err != nil {
		return "", err
	}
	return desc.Digest.String(), nil
}
