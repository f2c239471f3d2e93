// Package examples bundles the example hooks and the demo conversation, so that
// `hermesctl demo` runs from anywhere with no setup.
package examples

import (
	"bytes"
	"embed"
	"io/fs"
	"os"
	"path/filepath"
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

// CopyDemo writes Demo into dir: scripts executable, and $DEMO_HOME in home/config.yaml
// replaced by the copy's home, so that the copy runs where it is.
func CopyDemo(dir string) error {
	return fs.WalkDir(Demo, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, path)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := fs.ReadFile(Demo, path)
		if err != nil {
			return err
		}
		if path == "home/config.yaml" {
			data = bytes.ReplaceAll(data, []byte("$DEMO_HOME"), []byte(filepath.Join(dir, "home")))
		}
		mode := os.FileMode(0o644)
		if ext := filepath.Ext(path); ext == ".sh" || ext == ".py" {
			mode = 0o755
		}
		return os.WriteFile(target, data, mode)
	})
}
