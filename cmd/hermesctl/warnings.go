package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/hookspec"
)

// The load warnings of a home belong to the hook they are about: a Lua hook owns the
// warnings about the files of its directory, a shell hook those about its entry of
// config.yaml. The others are about the home (config.yaml's own keys, an entry that was
// skipped). `hooks list` marks a hook with warnings, `hooks doctor` makes them problems of
// their hook, and `hooks test` lists those that may change what it tests.

// inDir reports whether a warning is about a file of dir.
func inDir(w hookspec.Warning, dir string) bool {
	return dir != "" && (w.File == dir || strings.HasPrefix(w.File, dir+string(os.PathSeparator)))
}

// dirWarnings are the warnings about the files of dir.
func dirWarnings(ws []hookspec.Warning, dir string) []hookspec.Warning {
	var out []hookspec.Warning
	for _, w := range ws {
		if inDir(w, dir) {
			out = append(out, w)
		}
	}
	return out
}

// shellWarnings are the warnings of a shell hook's entry.
func shellWarnings(s *engine.ShellHookInfo) []hookspec.Warning {
	if h := s.Hook(); h != nil {
		return h.Warnings
	}
	return nil
}

// testWarnings are the load warnings that may change what `hooks test event` shows: for a
// plugin hook, those of the plugins that register it or whose warning names it (a misspelt
// register_hook), of the shell hooks of the event, and those about config.yaml that belong to
// no hook (a key misspelt, an event skipped); for a gateway event, those of the gateway hooks
// subscribed to it or whose warning names it or its prefix (comand:*).
func testWarnings(event string, eng *engine.Engine, gw *gateway.Gateway) []hookspec.Warning {
	names := func(w hookspec.Warning) bool { return strings.Contains(w.Msg, strconv.Quote(event)) }
	var out []hookspec.Warning
	if gw != nil {
		prefix, _, _ := strings.Cut(event, ":")
		for _, h := range gw.Hooks() {
			subscribed := slices.ContainsFunc(h.Events, func(s string) bool { return s == event || s == prefix+":*" })
			for _, w := range dirWarnings(gw.Warnings(), h.Dir) {
				if subscribed || names(w) || strings.Contains(w.Msg, `"`+prefix+":") {
					out = append(out, w)
				}
			}
		}
		return out
	}
	all := eng.Warnings()
	for _, p := range eng.Plugins() {
		registers := slices.Contains(p.Hooks, event)
		for _, w := range dirWarnings(all, p.Dir) {
			if registers || names(w) {
				out = append(out, w)
			}
		}
	}
	config := filepath.Join(eng.Home(), "config.yaml")
	var owned []hookspec.Warning
	for _, s := range eng.ShellHooks() {
		owned = append(owned, shellWarnings(s)...)
		if s.Event == event {
			out = append(out, shellWarnings(s)...)
		}
	}
	for _, w := range all {
		if w.File == config && !slices.Contains(owned, w) {
			out = append(out, w)
		}
	}
	return out
}
