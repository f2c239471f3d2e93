package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func sha(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// FuzzVerify: no archive makes the reader panic or hang, and one that verifies holds only
// clean paths whose contents match its manifest.
func FuzzVerify(f *testing.F) {
	key, pub := testKey(f, 1)
	home := f.TempDir()
	for name, body := range map[string]string{"config.yaml": "hooks: {}\n", "plugins/p/handler.lua": "function register(ctx) end\n"} {
		writeFile(f, home+"/"+name, body, 0o644)
	}
	unsigned := build(f, home, Options{Revision: 1})
	signed := build(f, home, Options{Revision: 1, Key: key})
	f.Add(unsigned)
	f.Add(signed)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, archive []byte) {
		m, err := Verify(archive, []*PublicKey{pub})
		if err != nil {
			return
		}
		c, err := read(archive)
		if err != nil {
			t.Fatalf("verified, then unreadable: %v", err)
		}
		for i, f := range m.Files {
			if validPath(f.Path) != "" || c.files[i].name != f.Path || sha(c.files[i].data) != f.SHA256 {
				t.Fatalf("verified a bundle with %q", f.Path)
			}
		}
	})
}
