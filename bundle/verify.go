package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// contents is an archive read and checked against its manifest.
type contents struct {
	manifestData []byte
	manifest     *Manifest
	sig          []byte // nil when unsigned
	files        []entry
}

// read reads an archive and checks its files against its manifest: each one listed, with
// its digest, size and mode, and none missing. It checks no signature.
func read(archive []byte) (*contents, error) {
	entries, err := readArchive(archive)
	if err != nil {
		return nil, err
	}
	c := &contents{}
	byName := map[string]entry{}
	for _, e := range entries {
		switch e.name {
		case ManifestName:
			c.manifestData = e.data
		case SignatureName:
			c.sig = e.data
		default:
			byName[e.name] = e
		}
	}
	if c.manifestData == nil {
		return nil, fmt.Errorf("bundle: no %s in the archive: not a bundle (build one with hermesctl bundle build)", ManifestName)
	}
	if c.manifest, err = parseManifest(c.manifestData); err != nil {
		return nil, err
	}
	for _, f := range c.manifest.Files {
		e, ok := byName[f.Path]
		if !ok {
			return nil, &FileError{Path: f.Path, Msg: "listed in the manifest but missing from the archive"}
		}
		if err := checkFile(f, e); err != nil {
			return nil, err
		}
		delete(byName, f.Path)
		c.files = append(c.files, e)
	}
	for _, e := range entries { // in the archive's order, for a stable message
		if _, extra := byName[e.name]; extra {
			return nil, &FileError{Path: e.name, Msg: "in the archive but not in the manifest (added after the bundle was built)"}
		}
	}
	return c, nil
}

// checkFile compares a file of the archive with its manifest entry.
func checkFile(f File, e entry) error {
	sum := sha256.Sum256(e.data)
	if hex.EncodeToString(sum[:]) != f.SHA256 || int64(len(e.data)) != f.Size {
		return &FileError{Path: f.Path, Msg: "content does not match the manifest's digest (changed after the bundle was built)"}
	}
	if e.exec != f.Executable {
		return &FileError{Path: f.Path, Msg: "mode does not match the manifest (executable changed after the bundle was built)"}
	}
	return nil
}

// Verify checks archive completely (see the package doc) against keys, and returns its
// manifest. A bundle is good when at least one of keys signed it.
func Verify(archive []byte, keys []*PublicKey) (*Manifest, error) {
	c, err := read(archive)
	if err != nil {
		return nil, err
	}
	if _, err := c.verifySignature(keys); err != nil {
		return nil, err
	}
	return c.manifest, nil
}

// verifySignature checks bundle.sig against keys and returns the ids of the keys that
// signed, of those given.
func (c *contents) verifySignature(keys []*PublicKey) ([]string, error) {
	if c.sig == nil {
		return nil, ErrUnsigned
	}
	env, err := parseEnvelope(c.sig, c.manifestData)
	if err != nil {
		return nil, err
	}
	var unique []*PublicKey
	seen := map[string]bool{}
	for _, k := range keys {
		if !seen[k.ID()] { // each key once, however often it is given
			seen[k.ID()] = true
			unique = append(unique, k)
		}
	}
	if len(unique) == 0 {
		return nil, errors.New("bundle: no public key given to verify with")
	}
	ids, err := env.verify(unique)
	if err != nil || len(ids) == 0 {
		return nil, fmt.Errorf("%w (signed by %s)", ErrSignature, signerIDs(env))
	}
	return ids, nil
}

func signerIDs(env *envelope) string {
	var b bytes.Buffer
	for i, s := range env.Signatures {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s.KeyID)
	}
	if b.Len() == 0 {
		return "no key"
	}
	return b.String()
}

// Extract verifies archive against keys, as Verify does, and writes its files into dir,
// which must not exist: the files are written into a new directory beside it, which is
// renamed to dir once complete. On an error nothing is left at dir.
func Extract(archive []byte, keys []*PublicKey, dir string) (*Manifest, error) {
	c, err := read(archive)
	if err != nil {
		return nil, err
	}
	if _, err := c.verifySignature(keys); err != nil {
		return nil, err
	}
	if _, err := os.Lstat(dir); err == nil {
		return nil, fmt.Errorf("bundle: %s exists; extract into a new directory", dir)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".tmp-*")
	if err != nil {
		return nil, err
	}
	if err := c.writeFiles(tmp); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return c.manifest, nil
}

// writeFiles writes the files into dir, a directory only this call knows.
func (c *contents) writeFiles(dir string) error {
	if err := os.Chmod(dir, 0o755); err != nil {
		return err
	}
	root, err := os.OpenRoot(dir) // no file lands outside dir, whatever its name
	if err != nil {
		return err
	}
	defer root.Close()
	for _, e := range c.files {
		if err := root.MkdirAll(filepath.Dir(filepath.FromSlash(e.name)), 0o755); err != nil {
			return err
		}
		mode := os.FileMode(0o644)
		if e.exec {
			mode = 0o755
		}
		if err := root.WriteFile(filepath.FromSlash(e.name), e.data, mode); err != nil {
			return err
		}
		if err := root.Chmod(filepath.FromSlash(e.name), mode); err != nil { // whatever the umask
			return err
		}
	}
	return nil
}

// Info is what Inspect tells of a bundle without keys.
type Info struct {
	Manifest *Manifest `json:"manifest"`
	Signed   bool      `json:"signed"`
	// KeyIDs are the ids of the keys whose signatures the envelope holds, not verified.
	KeyIDs []string `json:"key_ids"`
}

// Inspect reads a bundle and checks its files against its manifest, but not its
// signatures (Verify does): it says who claims to have signed it.
func Inspect(archive []byte) (*Info, error) {
	c, err := read(archive)
	if err != nil {
		return nil, err
	}
	info := &Info{Manifest: c.manifest, Signed: c.sig != nil, KeyIDs: []string{}}
	if c.sig != nil {
		env, err := parseEnvelope(c.sig, c.manifestData)
		if err != nil {
			return nil, err
		}
		for _, s := range env.Signatures {
			info.KeyIDs = append(info.KeyIDs, s.KeyID)
		}
	}
	return info, nil
}
