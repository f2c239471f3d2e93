package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hermes-hooks/hermes/shell"
)

// importSource is what `hooks import` reads: a settings file, or the hooks.json of a
// plugin bundle, with where its hooks belong.
type importSource struct {
	file string // as named in notes
	data []byte
	opts shell.ImportOptions
}

// readImportSource reads path: a plugin bundle's directory (its hooks/hooks.json, run with
// ${CLAUDE_PLUGIN_ROOT} = the directory and ${CLAUDE_PLUGIN_DATA} =
// <home>/plugin-data/claude/<plugin>), or a settings file, whose hooks run in its project
// (the directory holding its .claude directory; none for the user's own settings).
func readImportSource(home, path string) (importSource, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return importSource{}, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return importSource{}, err
	}
	if !fi.IsDir() {
		data, err := os.ReadFile(abs)
		return importSource{file: path, data: data, opts: shell.ImportOptions{ProjectDir: projectOfSettings(abs)}}, err
	}
	file := filepath.Join(path, "hooks", "hooks.json")
	data, err := os.ReadFile(file)
	if err != nil {
		return importSource{}, fmt.Errorf("%s is a directory but not a Claude Code plugin with hooks (%v)", path, err)
	}
	name := shell.PluginName(abs)
	return importSource{file: file, data: data, opts: shell.ImportOptions{
		PluginRoot: abs, PluginData: filepath.Join(home, "plugin-data", "claude", name)}}, nil
}

// projectOfSettings is the project of a settings file: the parent of the agent's directory
// (.claude, .codex, .gemini) it sits in, unless that is the user's home (user settings run
// wherever the host runs); "" when it is in no such directory.
func projectOfSettings(file string) string {
	dir := filepath.Dir(file)
	switch filepath.Base(dir) {
	case ".claude", ".codex", ".gemini":
	default:
		return ""
	}
	project := filepath.Dir(dir)
	if userHome, err := os.UserHomeDir(); err == nil && filepath.Clean(userHome) == project {
		return ""
	}
	return project
}
