package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hermes-hooks/hermes/internal/safefile"
)

// Options says how to build a bundle.
type Options struct {
	// Revision is the bundle's revision; it must be positive (zero is an error): a machine
	// that pulls bundles refuses one older than the one it runs.
	Revision int64
	// Name is written into the manifest as what the bundle was built from; "" means the base
	// name of the home.
	Name string
	// MaxFileBytes is the largest file taken; 0 means DefaultMaxFileBytes.
	MaxFileBytes int64
	// Key, when not nil, signs the bundle; nil builds it unsigned (see Sign).
	Key *PrivateKey
}

// Build archives the files of home that define hooks (see the package doc) and returns the
// archive and its manifest. The same home and options give the same bytes.
func Build(home string, opts Options) ([]byte, *Manifest, error) {
	if opts.Revision < 1 {
		return nil, nil, fmt.Errorf("bundle: revision %d: give a positive revision, higher than the last one shipped", opts.Revision)
	}
	if opts.MaxFileBytes == 0 {
		opts.MaxFileBytes = DefaultMaxFileBytes
	}
	if opts.Name == "" {
		abs, err := filepath.Abs(home)
		if err != nil {
			return nil, nil, err
		}
		opts.Name = filepath.Base(abs)
	}
	files, err := collect(home, opts.MaxFileBytes)
	if err != nil {
		return nil, nil, err
	}
	m := &Manifest{Format: Format, Revision: opts.Revision, Name: opts.Name, Files: []File{}}
	for _, e := range files {
		sum := sha256.Sum256(e.data)
		m.Files = append(m.Files, File{Path: e.name, Size: int64(len(e.data)), SHA256: hex.EncodeToString(sum[:]), Executable: e.exec})
	}
	manifest, err := m.encode()
	if err != nil {
		return nil, nil, err
	}
	var sig []byte
	if opts.Key != nil {
		if sig, err = signManifest(manifest, nil, opts.Key); err != nil {
			return nil, nil, err
		}
	}
	archive, err := writeArchive(layout(manifest, sig, files))
	return archive, m, err
}

// layout is the archive's entries in their order: the manifest, the signature when there
// is one, the files.
func layout(manifest, sig []byte, files []entry) []entry {
	out := []entry{{name: ManifestName, data: manifest}}
	if sig != nil {
		out = append(out, entry{name: SignatureName, data: sig})
	}
	return append(out, files...)
}

// collect reads the files of home that a bundle holds, sorted by path.
func collect(home string, max int64) ([]entry, error) {
	root, err := filepath.EvalSymlinks(home)
	if err != nil {
		return nil, fmt.Errorf("bundle: home %s: %w", home, err)
	}
	var files []entry
	for _, top := range homePaths {
		name := strings.TrimSuffix(top, "/")
		err := filepath.WalkDir(filepath.Join(root, name), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) && path == filepath.Join(root, name) {
					return nil // a home without this part
				}
				return err
			}
			rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
			if strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() {
				return nil
			}
			e, err := readFile(root, path, rel, max)
			if err != nil {
				return err
			}
			files = append(files, e)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(files, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	return files, nil
}

// readFile reads one file of the home: a regular file, or a link to one inside the home.
func readFile(home, path, rel string, max int64) (entry, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return entry{}, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return entry{}, &FileError{Path: rel, Msg: fmt.Sprintf("a symbolic link that cannot be followed (%v)", err)}
		}
		if !strings.HasPrefix(target, home+string(filepath.Separator)) {
			return entry{}, &FileError{Path: rel, Msg: "a symbolic link to " + target + ", outside the home; copy the file into the home"}
		}
		path = target
	}
	f, err := safefile.Open(path)
	if err != nil {
		return entry{}, &FileError{Path: rel, Msg: strings.TrimPrefix(err.Error(), path+": ")}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return entry{}, &FileError{Path: rel, Msg: err.Error()}
	}
	if int64(len(data)) > max {
		return entry{}, &FileError{Path: rel, Msg: fmt.Sprintf("larger than the cap of %d bytes; hooks should not carry data this large", max)}
	}
	st, err := f.Stat()
	if err != nil {
		return entry{}, err
	}
	return entry{name: rel, data: data, exec: st.Mode()&0o111 != 0}, nil
}
