package engine

import (
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/manifest"
	"github.com/hermes-hooks/hermes/shell"
)

// shellHooksNode is the hooks: of config.yaml with the hooks of the Claude Code plugin
// bundles plugins.claude names after them, and the warnings about the bundles.
func (e *Engine) shellHooksNode(cfg *config) (*yaml.Node, []hookspec.Warning) {
	if len(cfg.claudePlugins) == 0 {
		return cfg.hooks, nil
	}
	bundles, w := shell.PluginBundles(filepath.Dir(cfg.file), cfg.claudePlugins) // the home of the layer
	warns := make([]hookspec.Warning, 0, len(w))
	for _, x := range w {
		warns = append(warns, hookspec.Warning{File: x.File, Line: x.Line, Msg: x.Msg})
	}
	if bundles == nil {
		return cfg.hooks, warns
	}
	merged := &yaml.Node{Kind: yaml.MappingNode}
	if n := manifest.Resolve(cfg.hooks); n != nil && n.Kind == yaml.MappingNode {
		merged.Content = append(merged.Content, n.Content...)
	} else if n != nil && !(n.Kind == yaml.ScalarNode && n.Tag == "!!null") {
		return cfg.hooks, warns // not a mapping: ParseHooks says so, and loads none
	}
	merged.Content = append(merged.Content, bundles.Content...)
	return merged, warns
}
