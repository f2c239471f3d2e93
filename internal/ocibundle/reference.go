package ocibundle

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ErrInvalidReference is the error of a reference that is not
// registry/repository[:tag|@sha256:digest].
var ErrInvalidReference = errors.New("invalid reference")

// Reference names a manifest in a registry: Registry (host or host:port), Repository
// (a/b/c) and Reference, its tag or digest (sha256:...).
type Reference struct {
	Registry   string
	Repository string
	Reference  string
}

// IsDigest reports whether r names its manifest by digest rather than by tag.
func (r Reference) IsDigest() bool { return strings.HasPrefix(r.Reference, "sha256:") }

// host is the address requests go to: Docker Hub's registry is docker.io by name.
func (r Reference) host() string {
	if r.Registry == "docker.io" {
		return "registry-1.docker.io"
	}
	return r.Registry
}

// parseReference reads registry/repository[:tag|@digest], the reference part optional,
// with the rules of the OCI distribution spec for repository names and tags.
func parseReference(s string) (Reference, error) {
	registry, path, ok := strings.Cut(s, "/")
	if !ok {
		return Reference{}, fmt.Errorf("%w: missing registry or repository", ErrInvalidReference)
	}
	ref := Reference{Registry: registry, Repository: path}
	isTag := false
	if repo, dgst, ok := strings.Cut(path, "@"); ok {
		repo, _, _ = strings.Cut(repo, ":") // repository:tag@digest: the digest wins
		ref.Repository, ref.Reference = repo, dgst
	} else if repo, tag, ok := strings.Cut(path, ":"); ok {
		ref.Repository, ref.Reference, isTag = repo, tag, true
	}
	if u, err := url.ParseRequestURI("dummy://" + ref.Registry); err != nil || u.Host == "" || u.Host != ref.Registry {
		return Reference{}, fmt.Errorf("%w: invalid registry %q", ErrInvalidReference, ref.Registry)
	}
	if !validRepository(ref.Repository) {
		return Reference{}, fmt.Errorf("%w: invalid repository %q", ErrInvalidReference, ref.Repository)
	}
	switch {
	case ref.Reference == "":
	case isTag && !validTag(ref.Reference):
		return Reference{}, fmt.Errorf("%w: invalid tag %q", ErrInvalidReference, ref.Reference)
	case !isTag && !validDigest(ref.Reference):
		return Reference{}, fmt.Errorf("%w: invalid digest %q: not sha256: and 64 lower-case hexadecimal digits", ErrInvalidReference, ref.Reference)
	}
	return ref, nil
}

// validRepository reports whether s is path components separated by "/", each lower-case
// letters and digits joined by one ".", one or two "_", or dashes.
func validRepository(s string) bool {
	for c := range strings.SplitSeq(s, "/") {
		if c == "" || !alnum(c[0]) || !alnum(c[len(c)-1]) {
			return false
		}
		for i := 0; i < len(c); {
			if alnum(c[i]) {
				i++
				continue
			}
			j := i
			for j < len(c) && !alnum(c[j]) {
				j++
			}
			if sep := c[i:j]; sep != "." && sep != "_" && sep != "__" && strings.Trim(sep, "-") != "" {
				return false
			}
			i = j
		}
	}
	return true
}

func alnum(b byte) bool { return 'a' <= b && b <= 'z' || '0' <= b && b <= '9' }

// validTag reports whether s is a word character then at most 127 of word characters,
// "." and "-".
func validTag(s string) bool {
	if s == "" || len(s) > 128 || s[0] == '.' || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !alnum(b) && !('A' <= b && b <= 'Z') && b != '_' && b != '.' && b != '-' {
			return false
		}
	}
	return true
}

// validDigest reports whether s is sha256: and 64 lower-case hexadecimal digits.
func validDigest(s string) bool {
	hex, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(hex) != 64 {
		return false
	}
	for i := 0; i < len(hex); i++ {
		if !('0' <= hex[i] && hex[i] <= '9' || 'a' <= hex[i] && hex[i] <= 'f') {
			return false
		}
	}
	return true
}
