package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/cli.md describes every command and every flag the commands define, from the same
// definitions `help` prints: a command or flag added without its documentation fails here.
func TestCLIDocsCoverEveryCommandAndFlag(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, cmd := range commands {
		if !strings.Contains(doc, "`"+cmd.name) {
			t.Errorf("docs/cli.md does not describe %q", cmd.name)
		}
		fs, _ := newFlagSet(cmd, &cli{})
		fs.VisitAll(func(f *flag.Flag) {
			name := flagName(f.Name)
			if !strings.Contains(doc, "`"+name) {
				t.Errorf("docs/cli.md does not describe %s of %q", name, cmd.name)
			}
		})
	}
}

// The package doc (go doc ./cmd/hermesctl) names every command too.
func TestPackageDocNamesEveryCommand(t *testing.T) {
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range commands {
		if !strings.Contains(string(b), "//\t"+cmd.name+" ") {
			t.Errorf("doc.go does not name %q in its usage", cmd.name)
		}
	}
}
