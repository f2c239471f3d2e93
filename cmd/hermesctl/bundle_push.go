package main

import (
	"context"
	"fmt"

	"github.com/hermes-hooks/hermes/bundle"
	"github.com/hermes-hooks/hermes/internal/ocibundle"
)

var bundlePushCommand = &command{
	name: "bundle push",
	json: true,
	args: "<bundle> <oci://registry/repository:tag>",
	help: "publish a signed bundle to an OCI registry, as the one layer of a manifest of type " + ocibundle.ArtifactType +
		", for machines whose bundles.url is that oci:// reference (credentials: docker login)",
	examples: []string{"hermesctl bundle push hooks.bundle oci://registry.example.com/hooks/fleet:stable"},
	run:      runBundlePush,
}

// bundlePushResult is what bundle push prints, the same in text and JSON.
type bundlePushResult struct {
	File     string `json:"file"`
	URL      string `json:"url"`
	Revision int64  `json:"revision"`
	Manifest string `json:"manifest"` // the digest of the manifest pushed
}

func runBundlePush(ctx context.Context, c *cli, args []string) int {
	if !c.wantArgs(args, 2) {
		return exitUsage
	}
	if !ocibundle.IsRef(args[1]) {
		return c.fail(exitUsage, "bundle push publishes to an OCI registry: oci://registry/repository:tag, got %q", args[1])
	}
	archive, code := c.readBundle(args[0])
	if archive == nil {
		return code
	}
	info, err := bundle.Inspect(archive)
	if err != nil {
		return c.fail(exitFailed, "%s: %v", args[0], err)
	}
	if !info.Signed {
		return c.fail(exitFailed, "%s is not signed: every machine would refuse it; sign it first (hermesctl bundle sign --key)", args[0])
	}
	manifest, err := ocibundle.Push(ctx, archive, args[1], nil)
	if err != nil {
		return c.fail(exitFailed, "pushing %s to %s: %v", args[0], args[1], err)
	}
	res := bundlePushResult{File: args[0], URL: args[1], Revision: info.Manifest.Revision, Manifest: manifest}
	if c.json {
		return c.printJSON(res)
	}
	fmt.Fprintf(c.stdout, "pushed %s to %s: revision %d, manifest %s\n", printable(args[0]), printable(args[1]), res.Revision, manifest)
	return exitOK
}
