package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

var versionCommand = &command{
	name:     "version",
	help:     "print hermesctl's version and the Go version that built it (also --version)",
	examples: []string{"hermesctl --version"},
	run:      runVersion,
}

// runVersion prints the main module's version (a tag, or "(devel)" with the commit when
// built from a checkout). The Lua interpreter hooks run on is a fork kept inside the module
// (luabind/internal/lua), so this version names it too.
func runVersion(ctx context.Context, c *cli, args []string) int {
	if !c.wantArgs(args, 0) {
		return exitUsage
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintf(c.stdout, "hermesctl (unknown version) %s\n", runtime.Version())
		return exitOK
	}
	version := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			version += " " + s.Value[:12]
		}
	}
	fmt.Fprintf(c.stdout, "hermesctl %s %s %s/%s\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return exitOK
}
