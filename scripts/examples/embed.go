// Package examples bundles the example hooks and the demo conversation, so that
// `hermesctl demo` runs from anywhere with no setup.
package examples

import (
	"embed"
	"io/fs"
)

//go:embed all:demo
var demoFS embed.FS

// Demo holds the demo: home/ (a hermes home with plugins, gateway hooks and shell hooks)
// and transcript.jsonl (the conversation replayed against it).
var Demo fs.FS

func init() {
	sub, err := fs.Sub(demoFS, "demo")
	if err != nil {
		panic(err)
	}
	Demo = sub
}
