package shell

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// A Claude Code hook's `if` condition, in Claude Code's permission-rule syntax: `Tool`
// (every call of the tool; `mcp__server` every tool of an MCP server), `Bash(pattern)`
// (the command, `*` matching anything, `prefix:*` the legacy prefix form), a path glob for
// the file tools (`Edit(src/**/*.ts)`, `Read(.env)`, `Write(//etc/**)`, `Read(~/x)`) and
// `WebFetch(domain:host)`. A rule this engine cannot evaluate is an error at load, never a
// condition that silently drops the guard.

// ifRule is one compiled condition.
type ifRule struct {
	text   string
	tool   string         // Claude Code's tool name, or an MCP server's prefix ("mcp__github")
	server bool           // tool names a whole MCP server
	kind   string         // "" (any call), "command", "path", "domain"
	re     *regexp.Regexp // command and path rules
	globs  [][]int        // command rules: the patterns, as atoms (ifcommand.go)
	path   string         // path rules: the glob as written, resolved at match time
	domain string
}

var ruleRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z0-9_]+(?:__\*)?)(?:\((.*)\))?$`) })

// pathTools are the tools whose rule is a path glob, with the input field holding the path.
var pathTools = map[string]string{"Read": "file_path", "Edit": "file_path", "Write": "file_path", "MultiEdit": "file_path",
	"NotebookEdit": "notebook_path", "NotebookRead": "notebook_path", "Grep": "path", "Glob": "path"}

// compileIf compiles an `if` condition; the error says why it cannot be evaluated here.
func compileIf(rule string) (*ifRule, error) {
	rule = strings.TrimSpace(rule)
	m := ruleRE().FindStringSubmatch(rule)
	if m == nil {
		return nil, fmt.Errorf("if %q is not a permission rule (Tool or Tool(specifier))", rule)
	}
	r := &ifRule{text: rule, tool: strings.TrimSuffix(m[1], "__*")}
	r.server = strings.HasPrefix(r.tool, "mcp__") && strings.Count(r.tool, "__") == 1
	spec, hasSpec := m[2], strings.Contains(rule, "(")
	if !hasSpec || spec == "*" || spec == "" && r.tool != "Bash" {
		return r, nil
	}
	switch {
	case r.tool == "Bash":
		re, err := commandPattern(spec)
		if err != nil {
			return nil, fmt.Errorf("if %q: command pattern cannot be compiled: %v", rule, err)
		}
		r.kind, r.re = "command", re
		if p, ok := strings.CutSuffix(spec, ":*"); ok {
			r.globs = [][]int{globAtoms(p), globAtoms(p + " *")}
		} else {
			r.globs = [][]int{globAtoms(spec)}
		}
	case pathTools[r.tool] != "":
		r.kind, r.path = "path", spec
		if _, err := regexp.Compile(globRegexp(spec)); err != nil {
			return nil, fmt.Errorf("if %q: path glob cannot be compiled: %v", rule, err)
		}
	case r.tool == "WebFetch" && strings.HasPrefix(spec, "domain:"):
		r.kind, r.domain = "domain", strings.ToLower(strings.TrimPrefix(spec, "domain:"))
	default:
		return nil, fmt.Errorf("if %q: this engine cannot evaluate a %s(...) condition (it evaluates Tool, Bash(command pattern), path globs of %s, and WebFetch(domain:host))",
			rule, r.tool, "Read, Edit, Write, MultiEdit, NotebookEdit, Grep and Glob")
	}
	return r, nil
}

// commandPattern is the regular expression of a Bash rule's command pattern: `*` matches
// anything; `prefix:*` matches the prefix and anything after it.
func commandPattern(spec string) (*regexp.Regexp, error) {
	if p, ok := strings.CutSuffix(spec, ":*"); ok {
		return regexp.Compile(`^` + regexp.QuoteMeta(p) + `(\s.*)?$`)
	}
	parts := strings.Split(spec, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.Compile(`(?s)^` + strings.Join(parts, ".*") + `$`)
}

// globRegexp is the regular expression of an absolute path glob: `**` any directories,
// `*` and `?` within one name.
func globRegexp(glob string) string {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; {
		case strings.HasPrefix(glob[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(glob[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("(?:/.*)?$") // a directory's rule covers what is under it
	return b.String()
}

// match reports whether a call of Claude Code's tool with input meets the rule; project is
// the project directory relative paths are read from.
func (r *ifRule) match(tool string, input map[string]any, project string) bool {
	if r.server && !strings.HasPrefix(tool, r.tool+"__") || !r.server && tool != r.tool {
		return false
	}
	switch r.kind {
	case "command":
		cmd, _ := input["command"].(string)
		return r.matchCommand(cmd)
	case "path":
		p, _ := input[pathTools[tool]].(string)
		return p != "" && r.matchPath(p, project)
	case "domain":
		u, err := url.Parse(firstString(input["url"]))
		if err != nil {
			return true // a URL that cannot be read: the guard fires (the safe side)
		}
		h := strings.ToLower(u.Hostname())
		return h == r.domain || strings.HasSuffix(h, "."+r.domain)
	}
	return true
}

// matchCommand matches the whole command, or any command of a compound line, so that
// `ls && rm -rf x` meets Bash(rm *) as it does in Claude Code; and the command as /bin/sh
// reads it (ifcommand.go), so that `sudo rm -rf x`, `FOO=1 rm -rf x` and `if true; then
// rm -rf x; fi` meet it too. A command that cannot be read that way (`echo $(rm -rf x)`,
// `(rm -rf x)`) meets every command rule: the guard runs.
func (r *ifRule) matchCommand(cmd string) bool {
	if r.re.MatchString(strings.TrimSpace(cmd)) {
		return true
	}
	for _, part := range compoundRE().Split(cmd, -1) {
		if r.re.MatchString(strings.TrimSpace(part)) {
			return true
		}
	}
	selects, _ := commandSelects(cmd, r.globs, 0)
	return selects
}

var compoundRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`&&|\|\||;|\||\n`) })

// matchPath matches a file path (relative paths are read from project) with the rule's
// glob resolved the way Claude Code resolves it: `//x` absolute, `~/x` the home, `/x` and
// `./x` from the project, a bare name anywhere in the tree.
func (r *ifRule) matchPath(p, project string) bool {
	if !filepath.IsAbs(p) {
		p = filepath.Join(project, p)
	}
	p = filepath.Clean(p)
	g := r.path
	switch {
	case strings.HasPrefix(g, "//"):
		g = g[1:]
	case strings.HasPrefix(g, "~/"):
		home, _ := os.UserHomeDir()
		g = filepath.Join(home, g[2:])
	case strings.HasPrefix(g, "/"), strings.HasPrefix(g, "./"):
		g = filepath.Join(project, g)
	case !strings.Contains(strings.TrimSuffix(g, "/"), "/"):
		g = filepath.Join(project, "**", g)
	default:
		g = filepath.Join(project, g)
	}
	re, err := regexp.Compile(globRegexp(g))
	return err != nil || re.MatchString(p) // a glob that cannot be compiled: the guard fires
}

// ifInput is the tool name and input an `if` condition of a hook of event is checked
// against, in Claude Code's vocabulary; ok is false for events that have no tool.
func ifInput(event string, kwargs map[string]any, tools *ToolTable) (tool string, input map[string]any, ok bool) {
	switch event {
	case hooknames.PreToolCall, hooknames.PostToolCall, hooknames.PostToolFailure:
		name, _ := kwargs["tool_name"].(string)
		args, _ := kwargs["args"].(map[string]any)
		tool, input = tools.ToClaude(name, args)
		return tool, input, true
	case hooknames.PreApprovalRequest:
		tool, input = tools.ToClaude("terminal", map[string]any{"command": firstString(kwargs["command"])})
		return tool, input, true
	}
	return "", nil, false
}
