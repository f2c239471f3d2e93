package hookspec

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// toolArgs are the arguments of this project's own tools, as hooks see them in args (the
// names of docs/events.md: terminal's command, the file tools' path). A host's own tools,
// and arguments not listed here, are the host's to name: they are passed on unchecked.
var toolArgs = map[string][]string{
	"terminal":     {"command", "background", "timeout", "workdir"},
	"read_file":    {"path", "offset", "limit"},
	"write_file":   {"path", "content"},
	"patch":        {"path", "old_string", "new_string", "replace_all", "mode", "patch"},
	"search_files": {"pattern", "path", "file_glob", "target", "limit", "offset", "output_mode", "context"},
	"web_search":   {"query"},
	"web_extract":  {"urls"},
}

// CheckToolArgs checks the arguments of a call of tool written by hand (a payload file's
// args): a key that is not an argument of the tool but resembles one closely (a typo:
// "comand" for terminal's "command") is a problem naming the argument meant, since a guard
// reading kw.args.command would see nothing. Keys that resemble none, and every key of a
// tool that is not one of ours, are not problems. closest finds the nearest name ("" for
// none). The problems are sorted by key.
func CheckToolArgs(tool string, args map[string]any, closest func(name string, candidates []string) string) []KwargProblem {
	known, ours := toolArgs[tool]
	if !ours {
		return nil
	}
	names := slices.Sorted(slices.Values(known))
	var out []KwargProblem
	for _, k := range slices.Sorted(maps.Keys(args)) {
		if slices.Contains(known, k) {
			continue
		}
		if s := closest(k, known); s != "" {
			out = append(out, KwargProblem{Key: k, Msg: fmt.Sprintf("unknown argument %q of %s in args, did you mean %q? (a hook reading args.%s sees nothing; %s's arguments: %s)",
				k, tool, s, s, tool, strings.Join(names, ", "))})
		}
	}
	return out
}
