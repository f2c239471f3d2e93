package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/hermes-hooks/hermes/bundle"
	"github.com/hermes-hooks/hermes/internal/safefile"
)

// bundleInspectResult is what bundle inspect prints, the same in text and JSON.
type bundleInspectResult struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
	*bundle.Info
}

func runBundleInspect(ctx context.Context, c *cli, args []string) int {
	if !c.wantArgs(args, 1) {
		return exitUsage
	}
	archive, code := c.readBundle(args[0])
	if archive == nil {
		return code
	}
	info, err := bundle.Inspect(archive)
	if err != nil {
		return c.fail(exitFailed, "%s: %v", args[0], err)
	}
	if c.json {
		return c.printJSON(bundleInspectResult{File: args[0], SHA256: digest(archive), Info: info})
	}
	m := info.Manifest
	signed := "no (hermesctl bundle sign --key adds a signature)"
	if info.Signed {
		signed = "by " + strings.Join(info.KeyIDs, ", ") + " (not verified here: hermesctl bundle verify --key)"
	}
	fmt.Fprintf(c.stdout, "bundle:    %s\nsha256:    %s\nname:      %s\nrevision:  %d\nsigned:    %s\nfiles:\n",
		printable(args[0]), digest(archive), printable(m.Name), m.Revision, signed)
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	for _, f := range m.Files {
		fmt.Fprintf(tw, "  %s\t%d\t%s", printable(f.Path), f.Size, f.SHA256)
		if f.Executable {
			fmt.Fprint(tw, "\texecutable")
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	return exitOK
}

func runBundleKeygen(c *cli, args []string, prefix string) int {
	if !c.wantArgs(args, 0) {
		return exitUsage
	}
	if prefix == "" {
		return c.fail(exitUsage, "bundle keygen needs -o PREFIX: it writes PREFIX and PREFIX.pub")
	}
	priv, pub, err := bundle.GenerateKey()
	if err != nil {
		return c.fail(exitInternal, "%v", err)
	}
	k, err := bundle.ParsePublicKey(pub)
	if err != nil {
		return c.fail(exitInternal, "%v", err)
	}
	for _, f := range []struct {
		path string
		data []byte
		mode os.FileMode
	}{{prefix, priv, 0o600}, {prefix + ".pub", pub, 0o644}} {
		if err := writeNew(f.path, f.data, f.mode); err != nil {
			return c.fail(exitFailed, "%v", err)
		}
	}
	if c.json {
		return c.printJSON(map[string]string{"private": prefix, "public": prefix + ".pub", "key_id": k.ID()})
	}
	fmt.Fprintf(c.stdout, "wrote %s (private: keep it with whoever signs) and %s (public: for bundle verify)\nkey id: %s\n",
		printable(prefix), printable(prefix+".pub"), k.ID())
	return exitOK
}

// writeNew writes a file that must not exist yet: a key is never overwritten.
func writeNew(path string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s exists; a key is never overwritten: choose another -o or remove it", path)
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readBundle reads a bundle file; nil and the exit code when it cannot.
func (c *cli) readBundle(path string) ([]byte, int) {
	data, err := safefile.ReadFile(path, bundle.MaxBytes)
	if err != nil {
		return nil, c.fail(exitConfig, "cannot read the bundle: %v", err)
	}
	return data, exitOK
}

// privateKey reads a private key file; nil and the exit code when it cannot.
func (c *cli) privateKey(path string) (*bundle.PrivateKey, int) {
	data, err := safefile.ReadFile(path, 64<<10)
	if err != nil {
		return nil, c.fail(exitConfig, "key %v", err)
	}
	k, err := bundle.ParsePrivateKey(data)
	if err != nil {
		return nil, c.fail(exitConfig, "key %s: %v", path, err)
	}
	return k, exitOK
}

// printBundle prints what build or sign wrote.
func (c *cli) printBundle(path string, archive []byte, m *bundle.Manifest, did string) int {
	info, err := bundle.Inspect(archive)
	if err != nil {
		return c.fail(exitInternal, "%v", err)
	}
	res := bundleResult{File: path, SHA256: digest(archive), Revision: m.Revision, Files: len(m.Files), Signed: info.Signed, KeyIDs: info.KeyIDs}
	if c.json {
		return c.printJSON(res)
	}
	signed := "unsigned (hermesctl bundle sign --key signs it)"
	if info.Signed {
		signed = "signed by " + strings.Join(info.KeyIDs, ", ")
	}
	fmt.Fprintf(c.stdout, "%s %s: revision %d, %d files, %s\n", did, printable(path), m.Revision, len(m.Files), signed)
	return exitOK
}

// digest is the hex SHA-256 of data.
func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
