package bundle

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// The names of the archive's own entries.
const (
	ManifestName  = "bundle.json"
	SignatureName = "bundle.sig"
)

// Format is the version of the manifest this package writes and reads.
const Format = 1

// PayloadType is the DSSE payload type of a bundle's signature envelope.
const PayloadType = "application/vnd.hermes.bundle.manifest+json"

// Manifest is what bundle.json says: the revision and every file with its digest.
type Manifest struct {
	Format   int    `json:"format"`
	Revision int64  `json:"revision"` // given by the builder; a higher one is newer
	Name     string `json:"name"`     // what it was built from: the home directory's name
	Files    []File `json:"files"`    // sorted by path
}

// File is one file of a bundle.
type File struct {
	Path       string `json:"path"` // slash-separated, relative to the home
	Size       int64  `json:"size"`
	SHA256     string `json:"sha256"` // hex
	Executable bool   `json:"executable,omitempty"`
}

// homePaths are the top-level names of a home that a bundle may hold: a directory (ending
// in "/") or a file.
var homePaths = []string{"config.yaml", "plugins/", "hooks/", "agent-hooks/"}

// validPath reports why p cannot be a file of a bundle, or "" when it can.
func validPath(p string) string {
	if !fs.ValidPath(p) || p == "." || strings.Contains(p, `\`) {
		return "not a clean relative path (no \"..\", no leading \"/\", no \"\\\")"
	}
	for _, h := range homePaths {
		if p == h || strings.HasSuffix(h, "/") && strings.HasPrefix(p, h) {
			return ""
		}
	}
	return "outside the files a bundle holds (config.yaml, plugins/, hooks/, agent-hooks/)"
}

// encode is the manifest as bundle.json holds it.
func (m *Manifest) encode() ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	return append(b, '\n'), err
}

// parseManifest reads bundle.json strictly: known fields only, this format, a positive
// revision, valid paths sorted without repeats, hex digests.
func parseManifest(data []byte) (*Manifest, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("bundle: %s: %w", ManifestName, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("bundle: %s: data after the manifest", ManifestName)
	}
	if m.Format != Format {
		return nil, fmt.Errorf("bundle: %s: format %d, want %d (built by another version of hermesctl?)", ManifestName, m.Format, Format)
	}
	if m.Revision < 1 {
		return nil, fmt.Errorf("bundle: %s: revision %d, want a positive number", ManifestName, m.Revision)
	}
	for i, f := range m.Files {
		if why := validPath(f.Path); why != "" {
			return nil, &FileError{Path: f.Path, Msg: "in the manifest: " + why}
		}
		if i > 0 && f.Path <= m.Files[i-1].Path {
			return nil, &FileError{Path: f.Path, Msg: "in the manifest: not sorted, or listed twice"}
		}
		if d, err := hex.DecodeString(f.SHA256); err != nil || len(d) != 32 || f.Size < 0 {
			return nil, &FileError{Path: f.Path, Msg: "in the manifest: not a SHA-256 digest and size"}
		}
	}
	return &m, nil
}

// FileError is a file of a home or of a bundle that is refused, and why.
type FileError struct {
	Path string
	Msg  string
}

func (e *FileError) Error() string { return "bundle: " + e.Path + ": " + e.Msg }

// Errors of Verify.
var (
	// ErrUnsigned is a bundle without bundle.sig.
	ErrUnsigned = errors.New("bundle: not signed (sign it with hermesctl bundle sign --key)")
	// ErrSignature is a bundle signed by none of the keys given, or with a signature that
	// does not hold.
	ErrSignature = errors.New("bundle: no valid signature by any of the keys given")
)
