package bundlefeed

import (
	"testing"

	"github.com/hermes-hooks/hermes/internal/manifest"
	"gopkg.in/yaml.v3"
)

// Parse never panics, and a feed it accepts has a URL checkURL accepts, keys and a poll
// interval within bounds.
func FuzzParse(f *testing.F) {
	f.Add("bundles:\n  url: https://h.example.com/b\n  keys: [k.pub]\n  poll: 5m\n  max_age: 1h\nbundle_cache: c\n")
	f.Add("bundles: {url: http://127.0.0.1:1/b, keys: [/k.pub], poll: 100ms}\n")
	f.Add("bundles: [1]\nbundle_cache: [x]\n")
	f.Fuzz(func(t *testing.T, text string) {
		root, err := manifest.Parse("config.yaml", []byte(text))
		if err != nil {
			return
		}
		var n, cache *yaml.Node
		for i := 0; i+1 < len(root.Content); i += 2 {
			switch root.Content[i].Value {
			case "bundles":
				n = manifest.Resolve(root.Content[i+1])
			case "bundle_cache":
				cache = manifest.Resolve(root.Content[i+1])
			}
		}
		c, _, err := Parse("config.yaml", "/etc/hermes", 1, n, cache)
		if err != nil || c == nil {
			return
		}
		if checkURL(c.URL) != "" || len(c.Keys) == 0 || c.Poll < MinPoll || c.MaxAge < 0 || c.Cache == "" {
			t.Fatalf("accepted %+v from %q", c, text)
		}
	})
}
