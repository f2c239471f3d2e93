package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"time"
)

// Caps on what an archive may expand to when it is read.
const (
	// DefaultMaxFileBytes is the largest file Build takes when Options.MaxFileBytes is 0.
	DefaultMaxFileBytes = 8 << 20
	// MaxBytes bounds the sum of an archive's entries as it is read (and so a gzip bomb).
	MaxBytes = 64 << 20
	// maxEntries bounds the number of its entries.
	maxEntries = 10000
)

// entry is one regular file of an archive.
type entry struct {
	name string
	data []byte
	exec bool
}

// writeArchive writes entries, in the order given, as a reproducible tar.gz.
func writeArchive(entries []entry) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		mode := int64(0o644)
		if e.exec {
			mode = 0o755
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: e.name, Size: int64(len(e.data)), Mode: mode,
			ModTime: time.Unix(0, 0), Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// readArchive reads every entry of a tar.gz, refusing anything but regular files with
// clean, unrepeated names, and more than MaxBytes in all.
func readArchive(archive []byte) ([]entry, error) {
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return nil, fmt.Errorf("bundle: not a bundle (a gzip-compressed tar archive): %w", err)
	}
	zr.Multistream(false)
	tr := tar.NewReader(zr)
	var entries []entry
	seen := map[string]bool{}
	var total int64
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return entries, nil
		}
		if err != nil {
			return nil, fmt.Errorf("bundle: not a readable archive: %w", err)
		}
		if err := checkHeader(hdr, seen, len(entries)); err != nil {
			return nil, err
		}
		seen[hdr.Name] = true
		total += hdr.Size
		if total > MaxBytes {
			return nil, &FileError{Path: hdr.Name, Msg: fmt.Sprintf("the archive holds more than %d MiB", MaxBytes>>20)}
		}
		data, err := io.ReadAll(io.LimitReader(tr, hdr.Size))
		if err != nil || int64(len(data)) != hdr.Size {
			return nil, &FileError{Path: hdr.Name, Msg: fmt.Sprintf("truncated in the archive (%v)", err)}
		}
		entries = append(entries, entry{name: hdr.Name, data: data, exec: hdr.Mode&0o111 != 0})
	}
}

// checkHeader refuses an entry that is not a regular file, has a name that could write
// outside the directory it is extracted into, or repeats a name.
func checkHeader(hdr *tar.Header, seen map[string]bool, n int) error {
	if hdr.Typeflag != tar.TypeReg {
		return &FileError{Path: hdr.Name, Msg: fmt.Sprintf("not a regular file in the archive (%s); a bundle holds regular files only", typeName(hdr.Typeflag))}
	}
	if hdr.Name != ManifestName && hdr.Name != SignatureName {
		if why := validPath(hdr.Name); why != "" {
			return &FileError{Path: hdr.Name, Msg: why}
		}
	}
	if seen[hdr.Name] {
		return &FileError{Path: hdr.Name, Msg: "twice in the archive"}
	}
	if n >= maxEntries {
		return &FileError{Path: hdr.Name, Msg: fmt.Sprintf("more than %d files in the archive", maxEntries)}
	}
	if hdr.Size < 0 || hdr.Size > MaxBytes {
		return &FileError{Path: hdr.Name, Msg: fmt.Sprintf("larger than %d MiB", MaxBytes>>20)}
	}
	return nil
}

func typeName(t byte) string {
	switch t {
	case tar.TypeSymlink:
		return "a symbolic link"
	case tar.TypeLink:
		return "a hard link"
	case tar.TypeDir:
		return "a directory"
	}
	return fmt.Sprintf("type %q", t)
}
