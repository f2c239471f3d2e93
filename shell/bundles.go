package shell

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/safefile"
)

// maxBundleFile bounds a file read from a bundle (hooks/hooks.json, .claude-plugin/plugin.json).
const maxBundleFile = 8 << 20

// PluginBundles reads the hooks of Claude Code plugin bundles (config.yaml's plugins.claude:
// directories, relative ones read from home) as the hooks: entries `hooks import claude
// <dir>` would write, each running with its bundle's ${CLAUDE_PLUGIN_ROOT} and
// ${CLAUDE_PLUGIN_DATA} (<home>/plugin-data/claude/<plugin>). It returns a hooks: mapping
// node for ParseHooks (nil when there is none), and one warning per bundle that cannot be
// read and per hook that cannot be mapped (its file, line and why): nothing is dropped
// silently.
func PluginBundles(home string, dirs []string) (*yaml.Node, []hookspec.Warning) {
	var entries []ImportEntry
	var warns []hookspec.Warning
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			d = filepath.Join(home, d)
		}
		file := filepath.Join(d, "hooks", "hooks.json")
		data, err := safefile.ReadFile(file, maxBundleFile)
		if err != nil {
			warns = append(warns, hookspec.Warning{File: file, Msg: fmt.Sprintf("plugins.claude: %s is not a Claude Code plugin with hooks (%v); its hooks are not loaded", d, err)})
			continue
		}
		imp, err := ReadClaudeSettingsWith(file, data, ImportOptions{PluginRoot: d, PluginData: filepath.Join(home, "plugin-data", "claude", PluginName(d))})
		if err != nil {
			warns = append(warns, hookspec.Warning{File: file, Msg: err.Error() + "; its hooks are not loaded"})
			continue
		}
		for _, n := range imp.Skipped {
			warns = append(warns, hookspec.Warning{Msg: n.String() + " (not loaded)"})
		}
		entries = append(entries, imp.Entries...)
	}
	if len(entries) == 0 {
		return nil, warns
	}
	hooks := &yaml.Node{Kind: yaml.MappingNode}
	lists := map[string]*yaml.Node{}
	for _, e := range entries {
		list := lists[e.Event]
		if list == nil {
			list = &yaml.Node{Kind: yaml.SequenceNode}
			lists[e.Event] = list
			hooks.Content = append(hooks.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: e.Event}, list)
		}
		list.Content = append(list.Content, entryNode(e))
	}
	return hooks, warns
}

var pluginNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]+$`) })

// PluginName is a Claude Code plugin bundle's name: its .claude-plugin/plugin.json "name"
// when that is a plain name (letters, digits, '.', '_', '-'), else the directory's name.
func PluginName(dir string) string {
	var m struct {
		Name string `json:"name"`
	}
	if b, err := safefile.ReadFile(filepath.Join(dir, ".claude-plugin", "plugin.json"), maxBundleFile); err == nil {
		if json.Unmarshal(b, &m) == nil && pluginNameRE().MatchString(m.Name) && m.Name != "." && m.Name != ".." {
			return m.Name
		}
	}
	return filepath.Base(dir)
}
