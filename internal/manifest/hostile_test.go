package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

func TestAliasBombIsRefused(t *testing.T) {
	data := []byte(testutil.BillionLaughs("config"))
	var err error
	testutil.Bounded(t, 20*time.Second, 64<<20, func() {
		root := must(Parse("plugin.yaml", data))
		fields, _ := Fields("plugin.yaml", root, []string{"config"})
		_, err = Any("plugin.yaml", fields["config"], "config")
	})
	var me *Error
	if !errors.As(err, &me) || me.File != "plugin.yaml" || me.Line != 2 || !strings.Contains(err.Error(), "excessive aliasing") {
		t.Errorf("Any on a billion laughs: error %v, want plugin.yaml:2 and excessive aliasing", err)
	}
}

func must(root *yaml.Node, err error) *yaml.Node {
	if err != nil {
		panic(err)
	}
	return root
}

func TestReadRefusesLargeFiles(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name string
		size int
		ok   bool
	}{
		{"exactly the limit", MaxSize, true},
		{"one byte over", MaxSize + 1, false},
		{"50 MB", 50 << 20, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "config.yaml")
			content := "a: 1\n#" + strings.Repeat("x", tt.size-7) + "\n"
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			var err error
			maxAlloc := uint64(8 << 20) // refused: only the first MiB and a byte are read
			if tt.ok {
				maxAlloc = 64 << 20 // parsed
			}
			testutil.Bounded(t, 20*time.Second, maxAlloc, func() { _, err = Read(path) })
			if tt.ok {
				if err != nil {
					t.Errorf("Read of %d bytes: %v", tt.size, err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), "larger than") {
				t.Errorf("Read of %d bytes: error %v, want one naming the file and the size limit", tt.size, err)
			}
		})
	}
}

func TestAliasesAreFollowed(t *testing.T) {
	root, err := Parse("HOOK.yaml", []byte("x-common: &ev [agent:start, agent:end]\nevents: *ev\ndesc: &d hello\ndescription: *d\n"))
	if err != nil {
		t.Fatal(err)
	}
	fields, _ := Fields("HOOK.yaml", root, []string{"events", "description", "x-common", "desc"})
	got, err := StringList("HOOK.yaml", fields["events"], "events")
	if err != nil || len(got) != 2 || got[1] != "agent:end" {
		t.Errorf("events = %v, %v", got, err)
	}
	if s, err := String("HOOK.yaml", fields["description"], "description"); err != nil || s != "hello" {
		t.Errorf("description = %q, %v", s, err)
	}
}
