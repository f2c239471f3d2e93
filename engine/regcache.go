package engine

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/atomicfile"
	"github.com/hermes-hooks/hermes/internal/safefile"
	"github.com/hermes-hooks/hermes/store"
)

// The registration cache lets an engine that fires only some hooks (Options.Fires, a
// process per call such as hermesctl hook) skip the plugins that register none of them: it
// remembers, for each plugin of the user's home, the hooks it registered when it last
// loaded from the same files, under the same host. Only what cannot vary is remembered: a
// plugin whose loading read anything from outside its files (luabind.Plugin.Pure), a
// Python plugin and every plugin of the managed layer are always loaded.

// regCacheFile is the cache's file in the home's state directory; a larger one is no cache.
const (
	regCacheFile = "plugin-hooks.json"
	maxRegCache  = 1 << 20
)

// regCache is the registration cache of one load.
type regCache struct {
	file  string
	fires []string
	host  []byte // what identifies the host: the engine's build and its host functions

	mu    sync.Mutex
	known map[string][]string // read from file: the hooks, by key
	seen  map[string][]string // this load's: skipped with what known says, or loaded
}

// newRegCache is the cache of an engine that fires only fires, nil for one that may fire
// any hook (then every plugin loads and nothing is kept).
func newRegCache(home string, fires []hookspec.Hook, hostFuncs map[string]hookspec.Func) *regCache {
	if fires == nil {
		return nil
	}
	c := &regCache{file: filepath.Join(store.StateDir(home), regCacheFile), seen: map[string][]string{}}
	for _, h := range fires {
		c.fires = append(c.fires, h.String())
	}
	names := make([]string, 0, len(hostFuncs))
	for name := range hostFuncs {
		names = append(names, name)
	}
	slices.Sort(names)
	c.host = fmt.Appendf(nil, "%s\x00%q", buildID(), names)
	if data, err := safefile.ReadFile(c.file, maxRegCache); err == nil && json.Unmarshal(data, &c.known) != nil {
		c.known = nil // a file that cannot be read is no cache, not even in part: every plugin loads
	}
	return c
}

// buildID identifies the engine's build: another build may load plugins differently.
var buildID = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	id := info.GoVersion + " " + info.Main.Path + "@" + info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
			id += " " + s.Key + "=" + s.Value
		}
	}
	return id
})

// key identifies what the plugin in d of layer l registers: its files and the host.
func (c *regCache) key(d *dirFiles, l pluginLayer) string {
	sum := dirSum([][]byte{d.sum[:], []byte(l.layer), []byte(l.home), []byte(d.dir), c.host})
	return hex.EncodeToString(sum[:])
}

// skip returns the hooks the plugin with key registered and true when it registered none of
// the hooks fired: it need not load.
func (c *regCache) skip(key string) ([]string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	hooks, ok := c.known[key]
	if !ok || slices.ContainsFunc(hooks, func(h string) bool { return slices.Contains(c.fires, h) }) {
		return nil, false
	}
	c.seen[key] = hooks
	return slices.Clone(hooks), true
}

// record remembers the hooks a plugin that loaded registered.
func (c *regCache) record(key string, hooks []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen[key] = slices.Clone(hooks)
}

// save writes what this load saw when it differs from the file: the plugins of other
// versions go. A failure to write costs only the next call's time.
func (c *regCache) save() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if maps.EqualFunc(c.seen, c.known, slices.Equal) {
		return nil
	}
	data, err := json.Marshal(c.seen)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(c.file), 0o700); err != nil {
		return err
	}
	if err := atomicfile.Write(c.file, data, 0o600, nil); err != nil {
		return err
	}
	c.known = c.seen
	return nil
}
