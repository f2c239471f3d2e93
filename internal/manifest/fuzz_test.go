package manifest

import (
	"errors"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const fuzzFile = "plugins/fuzz/plugin.yaml"

var fuzzKeys = []string{"name", "description", "events", "enabled", "priority", "timeout", "memory", "fail_closed", "config", "permissions"}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "\n", "~", "null", "name: audit\npriority: 3\ntimeout: 2.5\n",
		"events: [agent:start, 'command:*']\nenabled: false\n",
		"permissions: {fs: [~/.hermes/logs], net: [127.0.0.1], exec: [black], env: ['*']}\n",
		"config: {a: &a [1, 2, {b: c}], b: *a}\ntimeout: .nan\n", "timeout: -3\n", "timeout: 1e9\n",
		"- a\n- b\n", "just a string", "a: [\n", "a: b\n---\nc: d\n", "\xff\xfe", "?\n", "{a: 1, a: 2}",
		"permissions: [fs]\n", "permissions: {fs: x, net: [1]}\n", "priority: 99999999999999999999\n",
		"enabled: yes\nfail_closed: !!bool true\n", "config: !!binary aGVsbG8=\n", "x: &x [*x]\n",
		"memory: 64MiB\n", "memory: 256 MiB\n", "memory: 99999999999999999999GiB\n", "memory: -0\n", "memory: ' 1 B '\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := Parse(fuzzFile, data)
		if err != nil {
			checkError(t, err)
			if root != nil {
				t.Fatalf("Parse returned a node and the error %v", err)
			}
			return
		}
		if root == nil || root.Kind != yaml.MappingNode {
			t.Fatalf("Parse returned %v without an error, want a mapping", root)
		}
		fields, warns := Fields(fuzzFile, root, fuzzKeys)
		for _, w := range warns {
			if w.File != fuzzFile || !strings.HasPrefix(w.String(), fuzzFile) {
				t.Fatalf("warning %q does not name %s", w.String(), fuzzFile)
			}
		}
		for key, n := range fields {
			decodeEvery(t, key, n)
		}
	})
}

// decodeEvery runs every decoder on n: none may panic, every error names the file.
func decodeEvery(t *testing.T, key string, n *yaml.Node) {
	t.Helper()
	errs := []error{}
	keep := func(err error) { errs = append(errs, err) }
	_, err := String(fuzzFile, n, key)
	keep(err)
	_, err = Bool(fuzzFile, n, key)
	keep(err)
	_, err = Int(fuzzFile, n, key)
	keep(err)
	_, err = Number(fuzzFile, n, key)
	keep(err)
	_, err = StringList(fuzzFile, n, key)
	keep(err)
	_, err = Any(fuzzFile, n, key)
	keep(err)
	_, warns, err := Permissions(fuzzFile, n)
	keep(err)
	for _, w := range warns {
		if w.File != fuzzFile {
			t.Fatalf("permissions warning %q does not name %s", w.String(), fuzzFile)
		}
	}
	size, warns, err := Size(fuzzFile, n, key, 256<<20, MinMemory, MaxMemory)
	keep(err)
	if err == nil && !(size >= MinMemory && size <= MaxMemory) {
		t.Fatalf("Size(%q) = %v with no error, want a value in [MinMemory, MaxMemory]", n.Value, size)
	}
	for _, w := range warns {
		if w.File != fuzzFile {
			t.Fatalf("size warning %q does not name %s", w.String(), fuzzFile)
		}
	}
	timeout, warns, err := Timeout(fuzzFile, n, 5, 300)
	keep(err)
	if err == nil && !(timeout > 0 && timeout <= 300) {
		t.Fatalf("Timeout(%q) = %v with no error, want a value in (0, 300]", n.Value, timeout)
	}
	for _, w := range warns {
		if w.File != fuzzFile {
			t.Fatalf("timeout warning %q does not name %s", w.String(), fuzzFile)
		}
	}
	for _, err := range errs {
		if err != nil {
			checkError(t, err)
		}
	}
}

// checkError fails unless err is an *Error that names the file.
func checkError(t *testing.T, err error) {
	t.Helper()
	var me *Error
	if !errors.As(err, &me) {
		t.Fatalf("error %v (%T) is not a *manifest.Error", err, err)
	}
	if me.File != fuzzFile || !strings.HasPrefix(err.Error(), fuzzFile+":") || me.Msg == "" {
		t.Fatalf("error %q does not start with %s and a message", err, fuzzFile)
	}
}
