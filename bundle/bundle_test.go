package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// homeFiles are the files of the test home, by path; the ones under state/ and the
// allowlist and tokens are state, never bundled.
var homeFiles = map[string]string{
	"config.yaml":                       "hooks:\n  pre_tool_call:\n    - command: ~/.hermes/agent-hooks/guard.sh\n",
	"plugins/guard/plugin.yaml":         "name: guard\n",
	"plugins/guard/handler.lua":         "function register(ctx) end\n",
	"plugins/guard/.git/HEAD":           "ref: main\n",
	"hooks/notify/HOOK.yaml":            "events: [agent:end]\n",
	"hooks/notify/handler.lua":          "function handle(e, c) end\n",
	"agent-hooks/guard.sh":              "#!/bin/sh\nexit 0\n",
	"state/store.db":                    "state",
	"shell-hooks-allowlist.json":        "{}",
	"server-tokens.json":                "{}",
	"traces/replay.json":                "{}",
	"plugins/guard/lib/util.lua":        "return {}\n",
	"plugins/guard/lib/deep/nested.lua": "return 1\n",
}

var bundled = []string{"agent-hooks/guard.sh", "config.yaml", "hooks/notify/HOOK.yaml", "hooks/notify/handler.lua",
	"plugins/guard/handler.lua", "plugins/guard/lib/deep/nested.lua", "plugins/guard/lib/util.lua", "plugins/guard/plugin.yaml"}

func makeHome(t *testing.T) string {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	for name, body := range homeFiles {
		writeFile(t, filepath.Join(home, name), body, 0o644)
	}
	if err := os.Chmod(filepath.Join(home, "agent-hooks", "guard.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	return home
}

func writeFile(t testing.TB, path, body string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
}

// testKey is a fixed key pair (seed n), so fuzz seeds stay valid from run to run.
func testKey(t testing.TB, n byte) (*PrivateKey, *PublicKey) {
	t.Helper()
	priv := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{n}, ed25519.SeedSize))
	p8, _ := x509.MarshalPKCS8PrivateKey(priv)
	pkix, _ := x509.MarshalPKIXPublicKey(priv.Public())
	sk, err := ParsePrivateKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: p8}))
	if err != nil {
		t.Fatal(err)
	}
	pk, err := ParsePublicKey(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pkix}))
	if err != nil {
		t.Fatal(err)
	}
	return sk, pk
}

func build(t testing.TB, home string, opts Options) []byte {
	t.Helper()
	archive, _, err := Build(home, opts)
	if err != nil {
		t.Fatal(err)
	}
	return archive
}

// The manifest lists the home's hook files and nothing of its state or hidden files.
func TestBuildTakesHookFilesOnly(t *testing.T) {
	home := makeHome(t)
	_, m, err := Build(home, Options{Revision: 7})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range m.Files {
		got = append(got, f.Path)
		if f.Executable != (f.Path == "agent-hooks/guard.sh") {
			t.Errorf("%s: executable %v", f.Path, f.Executable)
		}
	}
	if diff := cmp.Diff(bundled, got); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if m.Revision != 7 || m.Name != "home" || m.Format != Format {
		t.Errorf("manifest %+v", m)
	}
	if _, _, err := Build(home, Options{}); err == nil || !strings.Contains(err.Error(), "revision 0") {
		t.Errorf("no revision: %v, want an error", err)
	}
}

// Two builds of one home are byte-identical, also after the files' times and non-exec
// modes changed; a signed build is too.
func TestBuildReproducible(t *testing.T) {
	home := makeHome(t)
	key, _ := testKey(t, 1)
	first, signed := build(t, home, Options{Revision: 1}), build(t, home, Options{Revision: 1, Key: key})
	old := time.Date(2001, 2, 3, 4, 5, 6, 7, time.UTC)
	for _, name := range bundled {
		p := filepath.Join(home, name)
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(home, "config.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, build(t, home, Options{Revision: 1})) {
		t.Error("a second build differs from the first")
	}
	if !bytes.Equal(signed, build(t, home, Options{Revision: 1, Key: key})) {
		t.Error("a second signed build differs from the first")
	}
	if signedLater, err := Sign(first, key); err != nil || !bytes.Equal(signed, signedLater) {
		t.Errorf("signing a build (%v) differs from signing at build", err)
	}
	writeFile(t, filepath.Join(home, "plugins/guard/handler.lua"), "-- changed\n", 0o644)
	if bytes.Equal(first, build(t, home, Options{Revision: 1})) {
		t.Error("a changed file gives the same archive")
	}
}

// rewrite reads an archive's entries, lets edit change them, and writes them again
// (keeping the manifest and signature as they are, unless edit changes them).
func rewrite(t *testing.T, archive []byte, edit func([]entry) []entry) []byte {
	t.Helper()
	entries, err := readArchive(archive)
	if err != nil {
		t.Fatal(err)
	}
	out, err := writeArchive(edit(entries))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func replace(name string, f func(entry) entry) func([]entry) []entry {
	return func(es []entry) []entry {
		for i, e := range es {
			if e.name == name {
				es[i] = f(e)
			}
		}
		return es
	}
}

func TestVerifyRefusesTampering(t *testing.T) {
	home := makeHome(t)
	key, pub := testKey(t, 1)
	good := build(t, home, Options{Revision: 3, Key: key})
	if m, err := Verify(good, []*PublicKey{pub}); err != nil || m.Revision != 3 {
		t.Fatalf("the bundle as built: %v, %v", m, err)
	}
	lua := "plugins/guard/handler.lua"
	tests := []struct {
		name string
		edit func([]entry) []entry
		path string // of the *FileError, or "" for want
		want string
	}{
		{"content changed", replace(lua, func(e entry) entry { e.data = []byte("function register(ctx) os.exit() end\n"); return e }), lua, "does not match"},
		{"made executable", replace(lua, func(e entry) entry { e.exec = true; return e }), lua, "executable"},
		{"file added", func(es []entry) []entry {
			return append(es, entry{name: "plugins/evil/handler.lua", data: []byte("x")})
		}, "plugins/evil/handler.lua", "not in the manifest"},
		{"file removed", func(es []entry) []entry {
			return slices.DeleteFunc(es, func(e entry) bool { return e.name == lua })
		}, lua, "missing"},
		{"manifest edited", replace(ManifestName, func(e entry) entry {
			e.data = bytes.Replace(e.data, []byte(`"revision": 3`), []byte(`"revision": 4`), 1)
			return e
		}), "", "changed after it was signed"},
		{"signature removed", func(es []entry) []entry {
			return slices.DeleteFunc(es, func(e entry) bool { return e.name == SignatureName })
		}, "", "not signed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Verify(rewrite(t, good, tt.edit), []*PublicKey{pub})
			var fe *FileError
			switch {
			case err == nil:
				t.Fatal("verified")
			case !strings.Contains(err.Error(), tt.want):
				t.Errorf("error %q, want it to say %q", err, tt.want)
			case tt.path != "" && (!errors.As(err, &fe) || fe.Path != tt.path):
				t.Errorf("error %q does not name %s", err, tt.path)
			}
		})
	}
}

// Files tampered with and the manifest's digests updated to match: the signature fails.
func TestVerifyRefusesManifestMatchingTamperedFiles(t *testing.T) {
	home := makeHome(t)
	key, pub := testKey(t, 1)
	good := build(t, home, Options{Revision: 1, Key: key})
	writeFile(t, filepath.Join(home, "plugins/guard/handler.lua"), "-- evil\n", 0o644)
	evil := build(t, home, Options{Revision: 1})
	evilEntries, _ := readArchive(evil)
	mixed := rewrite(t, good, replace(ManifestName, func(e entry) entry { e.data = evilEntries[0].data; return e }))
	mixed = rewrite(t, mixed, replace("plugins/guard/handler.lua", func(e entry) entry { e.data = []byte("-- evil\n"); return e }))
	if _, err := Verify(mixed, []*PublicKey{pub}); err == nil || !strings.Contains(err.Error(), "changed after it was signed") {
		t.Errorf("got %v, want the manifest refused", err)
	}
}

func TestVerifyKeys(t *testing.T) {
	home := makeHome(t)
	key1, pub1 := testKey(t, 1)
	key2, pub2 := testKey(t, 2)
	_, pub3 := testKey(t, 3)
	unsigned := build(t, home, Options{Revision: 1})
	if _, err := Verify(unsigned, []*PublicKey{pub1}); !errors.Is(err, ErrUnsigned) {
		t.Errorf("unsigned: %v, want ErrUnsigned", err)
	}
	one, err := Sign(unsigned, key1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(one, []*PublicKey{pub2}); !errors.Is(err, ErrSignature) || !strings.Contains(err.Error(), pub1.ID()) {
		t.Errorf("wrong key: %v, want ErrSignature naming the signer", err)
	}
	if _, err := Verify(one, []*PublicKey{pub2, pub1, pub1}); err != nil {
		t.Errorf("one of the keys signed: %v", err)
	}
	two, err := Sign(one, key2)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []*PublicKey{pub1, pub2} {
		if _, err := Verify(two, []*PublicKey{k}); err != nil {
			t.Errorf("signed by both, verified with %s: %v", k.ID(), err)
		}
	}
	if _, err := Verify(two, []*PublicKey{pub3}); !errors.Is(err, ErrSignature) {
		t.Errorf("signed by others: %v", err)
	}
	info, err := Inspect(two)
	if err != nil || !info.Signed || len(info.KeyIDs) != 2 {
		t.Errorf("inspect: %+v, %v", info, err)
	}
	again, _ := Sign(two, key1) // signing again with a key replaces its signature
	if info, _ := Inspect(again); len(info.KeyIDs) != 2 {
		t.Errorf("re-signed: key ids %v", info.KeyIDs)
	}
}

// rawArchive is a tar.gz of the given headers, each with its body, as an attacker writes it.
func rawArchive(t *testing.T, hdrs []*tar.Header, bodies []string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for i, h := range hdrs {
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(bodies[i]))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(bodies[i]))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func TestReadRefusesCraftedEntries(t *testing.T) {
	reg := func(name string) *tar.Header { return &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644} }
	tests := []struct {
		name string
		hdrs []*tar.Header
		path string
	}{
		{"dot-dot", []*tar.Header{reg("plugins/../../evil.lua")}, "plugins/../../evil.lua"},
		{"absolute", []*tar.Header{reg("/etc/cron.d/x")}, "/etc/cron.d/x"},
		{"backslash", []*tar.Header{reg(`plugins\..\..\x`)}, `plugins\..\..\x`},
		{"outside the hook files", []*tar.Header{reg("state/store.db")}, "state/store.db"},
		{"symlink", []*tar.Header{{Typeflag: tar.TypeSymlink, Name: "plugins/x/handler.lua", Linkname: "/etc/passwd"}}, "plugins/x/handler.lua"},
		{"hard link", []*tar.Header{{Typeflag: tar.TypeLink, Name: "plugins/x/handler.lua", Linkname: "config.yaml"}}, "plugins/x/handler.lua"},
		{"directory", []*tar.Header{{Typeflag: tar.TypeDir, Name: "plugins/", Mode: 0o755}}, "plugins/"},
		{"twice", []*tar.Header{reg("config.yaml"), reg("config.yaml")}, "config.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bodies := make([]string, len(tt.hdrs))
			_, err := Verify(rawArchive(t, tt.hdrs, bodies), nil)
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != tt.path {
				t.Errorf("got %v, want an error naming %s", err, tt.path)
			}
		})
	}
	// An entry that says it expands past the cap is refused before it is read.
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tar.NewWriter(zw).WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "config.yaml", Size: MaxBytes + 1, Mode: 0o644})
	zw.Close()
	if _, err := Verify(buf.Bytes(), nil); err == nil || !strings.Contains(err.Error(), "config.yaml: larger than 64 MiB") {
		t.Errorf("an entry over the cap: %v", err)
	}
	if _, err := Verify([]byte("not gzip"), nil); err == nil || !strings.Contains(err.Error(), "not a bundle") {
		t.Errorf("junk: %v", err)
	}
}

func TestBuildRefusesFiles(t *testing.T) {
	t.Run("symlink out of the home", func(t *testing.T) {
		home := makeHome(t)
		outside := filepath.Join(t.TempDir(), "secret")
		writeFile(t, outside, "secret", 0o644)
		if err := os.Symlink(outside, filepath.Join(home, "plugins/guard/secret.lua")); err != nil {
			t.Fatal(err)
		}
		wantFileError(t, home, Options{Revision: 1}, "plugins/guard/secret.lua", "outside the home")
	})
	t.Run("symlink inside the home", func(t *testing.T) {
		home := makeHome(t)
		if err := os.Symlink("../../agent-hooks/guard.sh", filepath.Join(home, "plugins/guard/guard.sh")); err != nil {
			t.Fatal(err)
		}
		archive, m, err := Build(home, Options{Revision: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(m.Files, func(f File) bool { return f.Path == "plugins/guard/guard.sh" && f.Executable }) {
			t.Errorf("the linked file is not in the manifest: %+v", m.Files)
		}
		if _, err := Inspect(archive); err != nil {
			t.Error(err)
		}
	})
	t.Run("symlink to a directory", func(t *testing.T) {
		home := makeHome(t)
		if err := os.Symlink("../../hooks", filepath.Join(home, "plugins/guard/more")); err != nil {
			t.Fatal(err)
		}
		wantFileError(t, home, Options{Revision: 1}, "plugins/guard/more", "directory")
	})
	t.Run("size cap", func(t *testing.T) {
		home := makeHome(t)
		writeFile(t, filepath.Join(home, "plugins/guard/big.lua"), strings.Repeat("x", 101), 0o644)
		wantFileError(t, home, Options{Revision: 1, MaxFileBytes: 100}, "plugins/guard/big.lua", "larger than the cap of 100 bytes")
		writeFile(t, filepath.Join(home, "plugins/guard/big.lua"), strings.Repeat("x", 100), 0o644)
		build(t, home, Options{Revision: 1, MaxFileBytes: 100})
	})
}

func wantFileError(t *testing.T, home string, opts Options, path, msg string) {
	t.Helper()
	_, _, err := Build(home, opts)
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != path || !strings.Contains(err.Error(), msg) || strings.Contains(err.Error(), "\n") {
		t.Errorf("got %v, want one line naming %s: %s", err, path, msg)
	}
}

func TestExtract(t *testing.T) {
	home := makeHome(t)
	key, pub := testKey(t, 1)
	_, other := testKey(t, 2)
	good := build(t, home, Options{Revision: 2, Key: key})
	dir := filepath.Join(t.TempDir(), "active")
	m, err := Extract(good, []*PublicKey{pub}, dir)
	if err != nil || m.Revision != 2 {
		t.Fatalf("extract: %v, %v", m, err)
	}
	for _, name := range bundled {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != homeFiles[name] {
			t.Errorf("%s: %q, %v", name, got, err)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "agent-hooks/guard.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("the script's mode: %v, %v", fi, err)
	}
	if _, err := Extract(good, []*PublicKey{pub}, dir); err == nil {
		t.Error("extracted over an existing directory")
	}
	bad := filepath.Join(t.TempDir(), "bad")
	tampered := rewrite(t, good, replace("config.yaml", func(e entry) entry { e.data = []byte("x"); return e }))
	for _, tt := range []struct {
		archive []byte
		key     *PublicKey
	}{{tampered, pub}, {good, other}} {
		if _, err := Extract(tt.archive, []*PublicKey{tt.key}, bad); err == nil {
			t.Error("extracted a bundle that does not verify")
		}
		if left, _ := os.ReadDir(filepath.Dir(bad)); len(left) != 0 {
			t.Errorf("left behind: %v", left)
		}
	}
}

// A file and a directory of one name: the extraction fails and leaves nothing.
func TestExtractConflictLeavesNothing(t *testing.T) {
	key, pub := testKey(t, 1)
	files := []entry{{name: "plugins/a", data: []byte("x")}, {name: "plugins/a/b", data: []byte("y")}}
	m := &Manifest{Format: Format, Revision: 1, Name: "x"}
	for _, f := range files {
		m.Files = append(m.Files, File{Path: f.name, Size: 1, SHA256: sha(f.data)})
	}
	data, _ := m.encode()
	sig, err := signManifest(data, nil, key)
	if err != nil {
		t.Fatal(err)
	}
	archive, _ := writeArchive(layout(data, sig, files))
	dir := filepath.Join(t.TempDir(), "x")
	if _, err := Extract(archive, []*PublicKey{pub}, dir); err == nil {
		t.Fatal("extracted a file and a directory of one name")
	}
	if left, _ := os.ReadDir(filepath.Dir(dir)); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
