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
	json:     true,
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
	v := versionInfo{Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if info, ok := debug.ReadBuildInfo(); ok {
		v.Version = info.Main.Version
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v.Revision = s.Value[:12]
			}
		}
	}
	if c.json {
		return c.printJSON(v)
	}
	switch {
	case v.Version == "":
		fmt.Fprintf(c.stdout, "hermesctl (unknown version) %s\n", v.Go)
	case v.Revision != "":
		fmt.Fprintf(c.stdout, "hermesctl %s %s %s %s/%s\n", v.Version, v.Revision, v.Go, v.OS, v.Arch)
	default:
		fmt.Fprintf(c.stdout, "hermesctl %s %s %s/%s\n", v.Version, v.Go, v.OS, v.Arch)
	}
	return exitOK
}

// versionInfo is what version prints.
type versionInfo struct {
	Version  string `json:"version"`            // the module's version: a tag, or "(devel)"; "" when unknown
	Revision string `json:"revision,omitempty"` // the commit it was built from, when built from a checkout
	Go       string `json:"go"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
}
