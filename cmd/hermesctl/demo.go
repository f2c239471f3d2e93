package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hermes-hooks/hermes/scripts/examples"
)

var demoCommand = &command{
	name: "demo",
	help: "replay the bundled example conversation against the bundled example hooks (no setup needed)",
	run:  runDemo,
}

// runDemo copies the bundled demo home into a temporary directory (so nothing is written
// anywhere else), approves its shell hooks there, and replays the bundled transcript.
func runDemo(c *cli, args []string) int {
	if !c.wantArgs(args, 0) {
		return exitUsage
	}
	dir, err := os.MkdirTemp("", "hermes-demo-")
	if err != nil {
		return c.fail(exitInternal, "demo: %v", err)
	}
	defer os.RemoveAll(dir)
	if err := copyFS(dir, examples.Demo); err != nil {
		return c.fail(exitInternal, "demo: %v", err)
	}
	home := filepath.Join(dir, "home")
	if !c.json {
		fmt.Fprintf(c.stdout, "Demo: replaying %s against the example hooks in a temporary home.\n", "scripts/examples/demo/transcript.jsonl")
		fmt.Fprintf(c.stdout, "Try it on your own: hermesctl replay <transcript.jsonl> --home <dir>\n\n")
	}
	c.acceptHooks = true
	return c.replay(filepath.Join(dir, "transcript.jsonl"), home)
}

// copyFS writes the tree of fsys into dir, marking scripts executable and pointing the
// demo config.yaml at the copy.
func copyFS(dir string, fsys fs.FS) error {
	return fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, path)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := fs.ReadFile(fsys, path)
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
