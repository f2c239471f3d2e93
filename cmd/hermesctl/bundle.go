package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/hermes-hooks/hermes/bundle"
	"github.com/hermes-hooks/hermes/internal/atomicfile"
	"github.com/hermes-hooks/hermes/internal/safefile"
)

var bundleCommands = []*command{bundleBuildCommand, bundleSignCommand, bundleVerifyCommand, bundleInspectCommand, bundleKeygenCommand, bundlePullCommand, bundlePushCommand}

var bundleBuildCommand = &command{
	name: "bundle build",
	json: true,
	args: "<home>",
	help: "archive a home's hook files (config.yaml, plugins/, hooks/, agent-hooks/, never its state) with a manifest of their digests and a revision, reproducibly; --key signs it too",
	examples: []string{"hermesctl bundle build ./fleet-home -o hooks.bundle --revision 12",
		"hermesctl bundle build ./fleet-home -o hooks.bundle --revision 13 --key release.key  # build and sign"},
	flags: func(fs *flag.FlagSet) runFunc {
		var out, key string
		var revision int64
		fs.StringVar(&out, "o", "", "write the bundle to `FILE` (required)")
		fs.Int64Var(&revision, "revision", 0, "the bundle's revision `N`, higher than the last one shipped (required)")
		fs.StringVar(&key, "key", "", "sign with the private key in `FILE`")
		return func(ctx context.Context, c *cli, args []string) int {
			return runBundleBuild(c, args, out, key, revision)
		}
	},
}

var bundleSignCommand = &command{
	name:     "bundle sign",
	json:     true,
	args:     "<bundle>",
	help:     "add a signature by a private key to a bundle, after checking its files against its manifest; signatures it has are kept",
	examples: []string{"hermesctl bundle sign hooks.bundle --key release.key", "hermesctl bundle sign hooks.bundle --key second.key -o signed.bundle"},
	flags: func(fs *flag.FlagSet) runFunc {
		var out, key string
		fs.StringVar(&key, "key", "", "the private key `FILE` (required)")
		fs.StringVar(&out, "o", "", "write the signed bundle to `FILE` (default: replace the bundle)")
		return func(ctx context.Context, c *cli, args []string) int { return runBundleSign(c, args, out, key) }
	},
}

var bundleVerifyCommand = &command{
	name:     "bundle verify",
	json:     true,
	args:     "<bundle>",
	help:     "check a bundle's signature against public keys and every file against its manifest (exit 3 when it does not hold)",
	examples: []string{"hermesctl bundle verify hooks.bundle --key release.key.pub", "hermesctl bundle verify hooks.bundle --key old.pub --key new.pub  # either key"},
	flags: func(fs *flag.FlagSet) runFunc {
		var keys stringList
		fs.Var(&keys, "key", "a public key `FILE`; repeat it to accept any of several")
		return func(ctx context.Context, c *cli, args []string) int { return runBundleVerify(c, args, keys) }
	},
}

var bundleInspectCommand = &command{
	name:     "bundle inspect",
	json:     true,
	args:     "<bundle>",
	help:     "show a bundle's revision, files, digests and the ids of the keys that claim to have signed it (not verified: see bundle verify)",
	examples: []string{"hermesctl bundle inspect hooks.bundle --json"},
	run:      runBundleInspect,
}

var bundleKeygenCommand = &command{
	name:     "bundle keygen",
	json:     true,
	help:     "make an Ed25519 key pair for signing bundles: PREFIX (private, mode 0600) and PREFIX.pub (public, for the machines that verify)",
	examples: []string{"hermesctl bundle keygen -o release.key  # writes release.key and release.key.pub"},
	flags: func(fs *flag.FlagSet) runFunc {
		var out string
		fs.StringVar(&out, "o", "", "the `PREFIX` of the two key files (required)")
		return func(ctx context.Context, c *cli, args []string) int { return runBundleKeygen(c, args, out) }
	},
}

// stringList is a flag that may be given several times.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// bundleResult is what build, sign and verify print, the same in text and JSON.
type bundleResult struct {
	File     string   `json:"file"`
	SHA256   string   `json:"sha256"` // of the archive
	Revision int64    `json:"revision"`
	Files    int      `json:"files"`
	Signed   bool     `json:"signed"`
	KeyIDs   []string `json:"key_ids"` // build, sign: every signature's; verify: the keys given that signed
	Verified bool     `json:"verified,omitempty"`
}

func runBundleBuild(c *cli, args []string, out, keyFile string, revision int64) int {
	if !c.wantArgs(args, 1) {
		return exitUsage
	}
	if out == "" || revision < 1 {
		return c.fail(exitUsage, "bundle build needs -o FILE and --revision N (a positive number, higher than the last one shipped)")
	}
	opts := bundle.Options{Revision: revision}
	if keyFile != "" {
		k, code := c.privateKey(keyFile)
		if k == nil {
			return code
		}
		opts.Key = k
	}
	archive, m, err := bundle.Build(args[0], opts)
	if err != nil {
		return c.fail(exitFailed, "%v", err)
	}
	if err := atomicfile.Write(out, archive, 0o644, nil); err != nil {
		return c.fail(exitInternal, "cannot write the bundle: %v", err)
	}
	return c.printBundle(out, archive, m, "wrote")
}

func runBundleSign(c *cli, args []string, out, keyFile string) int {
	if !c.wantArgs(args, 1) {
		return exitUsage
	}
	if keyFile == "" {
		return c.fail(exitUsage, "bundle sign needs --key FILE, a private key (hermesctl bundle keygen makes one)")
	}
	archive, code := c.readBundle(args[0])
	if archive == nil {
		return code
	}
	key, code := c.privateKey(keyFile)
	if key == nil {
		return code
	}
	signed, err := bundle.Sign(archive, key)
	if err != nil {
		return c.fail(exitFailed, "%s: %v", args[0], err)
	}
	if out == "" {
		out = args[0]
	}
	if err := atomicfile.Write(out, signed, 0o644, nil); err != nil {
		return c.fail(exitInternal, "cannot write the bundle: %v", err)
	}
	info, err := bundle.Inspect(signed)
	if err != nil {
		return c.fail(exitInternal, "%v", err)
	}
	return c.printBundle(out, signed, info.Manifest, "signed")
}

func runBundleVerify(c *cli, args []string, keyFiles []string) int {
	if !c.wantArgs(args, 1) {
		return exitUsage
	}
	if len(keyFiles) == 0 {
		return c.fail(exitUsage, "bundle verify needs --key FILE, a public key (repeat it to accept several)")
	}
	var keys []*bundle.PublicKey
	for _, f := range keyFiles {
		data, err := safefile.ReadFile(f, 64<<10)
		if err != nil {
			return c.fail(exitConfig, "key %v", err)
		}
		k, err := bundle.ParsePublicKey(data)
		if err != nil {
			return c.fail(exitConfig, "key %s: %v", f, err)
		}
		keys = append(keys, k)
	}
	archive, code := c.readBundle(args[0])
	if archive == nil {
		return code
	}
	m, err := bundle.Verify(archive, keys)
	if err != nil {
		return c.fail(exitFailed, "%s does not verify: %v", args[0], err)
	}
	res := bundleResult{File: args[0], SHA256: digest(archive), Revision: m.Revision, Files: len(m.Files), Signed: true, Verified: true, KeyIDs: []string{}}
	for _, k := range keys { // which of the keys given signed
		if _, err := bundle.Verify(archive, []*bundle.PublicKey{k}); err == nil {
			res.KeyIDs = append(res.KeyIDs, k.ID())
		}
	}
	if c.json {
		return c.printJSON(res)
	}
	fmt.Fprintf(c.stdout, "%s: verified: revision %d, %d files, signed by %s\n", printable(args[0]), m.Revision, len(m.Files), strings.Join(res.KeyIDs, ", "))
	return exitOK
}
