package shell

import (
	"maps"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/suggest"
)

// matcher decides whether a tool name selects a hook. It is immutable once compiled.
type matcher struct {
	re      *regexp.Regexp // nil: literal equality with lit
	literal string
}

// compileMatcher compiles m as a regular expression that must match the whole tool name.
// An invalid expression yields a literal matcher together with the compile error.
func compileMatcher(m string) (*matcher, error) {
	// Parse first and anchor the re-rendered tree, so that input such as `a)|(b` or `\Qa`
	// cannot escape the anchoring group.
	tree, err := syntax.Parse(m, syntax.Perl)
	if err != nil {
		return &matcher{literal: m}, err
	}
	re, err := regexp.Compile(`^(?:` + tree.String() + `)$`)
	if err != nil {
		return &matcher{literal: m}, err
	}
	return &matcher{re: re, literal: m}, nil
}

func (m *matcher) match(name string) bool {
	if m.re == nil {
		return name == m.literal
	}
	return m.re.MatchString(name)
}

// Matches reports whether the hook fires for toolName: always when it has no matcher, else when
// the matcher's regular expression matches the whole name (or, for a matcher that is not a valid
// expression, when the name equals it literally).
func (h *Hook) Matches(toolName string) bool {
	if h.Dialect != "" {
		return h.selects(map[string]any{"tool_name": toolName})
	}
	if h.Matcher == "" {
		return true
	}
	if h.matcher == nil { // a Hook built by hand rather than by ParseHooks
		m, _ := compileMatcher(h.Matcher)
		return m.match(toolName)
	}
	return h.matcher.match(toolName)
}

// selects reports whether the hook fires for a call with kwargs: the tool events by tool
// name; a Claude Code hook's matcher also selects session starts by source, ends by reason
// and subagents about to stop by type (a Stop hook never fires for a subagent, nor a
// SubagentStop hook for the agent).
func (h *Hook) selects(kwargs map[string]any) bool {
	if h.Dialect == DialectCodex && h.Event == hooknames.OnSessionEnd && kwargs["interrupted"] != true {
		return false // Codex's Interrupt: only a turn the user interrupted
	}
	if !h.forSubagent(kwargs) {
		return false // Stop serves the agent, SubagentStop its subagents
	}
	if h.Dialect == "" {
		if !toolEvent(h.Event) {
			return true
		}
		name, _ := kwargs["tool_name"].(string)
		return h.Matches(name)
	}
	if h.Matcher == "" {
		return true
	}
	q, ok := claudeQuery(h.Event, kwargs, h.toolTable())
	if !ok {
		return true
	}
	if h.Dialect == DialectGemini && h.Event == hooknames.OnSessionFinalize {
		q = "exit" // Gemini CLI's SessionEnd reason, as its payload says
	}
	m := h.claude
	if m == nil { // a Hook built by hand rather than by ParseHooks
		m, _ = compileClaudeMatcher(h.Matcher)
	}
	if q == "apply_patch" && h.Dialect == DialectCodex { // Codex matches it by Edit and Write too
		return m.match(q) || m.match("Edit") || m.match("Write")
	}
	return m.match(q)
}

// toolTable is the tool table of a Claude Code hook.
func (h *Hook) toolTable() *ToolTable {
	if h.tools == nil {
		return DefaultTools
	}
	return h.tools
}

// ourToolNames are the tool names this project's matchers are compared with: the tools of
// the table, sorted.
func (t *ToolTable) ourToolNames() []string {
	return slices.Sorted(maps.Keys(t.ours))
}

// claudeToolNames are the names Claude Code matchers see for the tools of the table, sorted.
func (t *ToolTable) claudeToolNames() []string {
	var out []string
	for _, c := range t.ours {
		if !slices.Contains(out, c.Name) {
			out = append(out, c.Name)
		}
	}
	slices.Sort(out)
	return out
}

// listMatcher is a matcher that lists tool names: words separated by '|' (and, by mistake,
// spaces or commas).
var listMatcher = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_|, ]+$`) })

// matcherFix looks for the matcher meant by m, whose tool names are compared with known
// (alias maps the other dialect's names to ours: Bash -> terminal). In a matcher that lists
// names, each one that is not known but is one in another case, in the other dialect or
// misspelt is replaced, and the names are joined by '|' alone; a regular expression that
// selects no known tool but would ignoring case becomes the list of those tools. It returns
// the fix and the names or expression it replaced (dead; none when only the separators were
// wrong), or "" when there is nothing to fix or no fix that works: a fix is only returned
// once the matcher compiled from it was checked (selects) to select every tool it names, so
// no suggestion is itself a matcher that never matches.
func matcherFix(m string, known []string, alias map[string]string, selects func(fix, tool string) bool) (fix string, dead []string) {
	var meant []string
	if listMatcher().MatchString(m) {
		words := strings.FieldsFunc(m, func(r rune) bool { return r == '|' || r == ',' || r == ' ' })
		changed := len(words) > 0 && strings.Join(words, "|") != m
		for i, w := range words {
			if c := meantTool(w, known, alias); c != "" {
				changed = changed || c != w
				if c != w {
					dead = append(dead, w)
				}
				words[i] = c
				meant = append(meant, c)
			}
		}
		if !changed || len(meant) == 0 {
			return "", nil
		}
		fix = strings.Join(words, "|")
	} else {
		for _, k := range known {
			if selects(m, k) {
				return "", nil
			}
			if selects("(?i)"+m, k) {
				meant = append(meant, k)
			}
		}
		if len(meant) == 0 {
			return "", nil
		}
		fix, dead = strings.Join(meant, "|"), []string{m}
	}
	for _, tool := range meant {
		if !selects(fix, tool) {
			return "", nil
		}
	}
	return fix, dead
}

// meantTool is the known tool word w names: itself, its name in our dialect, the known name
// it equals but for case, or the closest; "" for a name of the host's own (or an MCP tool).
func meantTool(w string, known []string, alias map[string]string) string {
	switch {
	case slices.Contains(known, w):
		return w
	case strings.HasPrefix(w, "mcp__"):
		return ""
	case alias[w] != "":
		return alias[w]
	}
	if j := slices.IndexFunc(known, func(k string) bool { return strings.EqualFold(k, w) }); j >= 0 {
		return known[j]
	}
	return suggest.Closest(w, known)
}

// selectsOurs reports whether matcher m of this project's dialect selects tool.
func selectsOurs(m, tool string) bool {
	c, err := compileMatcher(m)
	return err == nil && c.match(tool)
}

// selectsClaude reports whether Claude Code matcher m selects tool (Claude Code's name).
func selectsClaude(m, tool string) bool {
	c, err := compileClaudeMatcher(m)
	return err == nil && !c.all && c.match(tool)
}

// toolMatcherFix is matcherFix for the matcher of hook h, in h's dialect.
func (p *parser) toolMatcherFix(h *Hook) (fix string, dead, known []string) {
	known, alias, selects := p.tools.ourToolNames(), map[string]string{}, selectsOurs
	for ours, c := range p.tools.ours {
		alias[c.Name] = ours
	}
	if h.Dialect != "" {
		tools := h.toolTable()
		known, alias, selects = tools.claudeToolNames(), map[string]string{}, selectsClaude
		if h.Dialect == DialectCodex { // apply_patch's matcher aliases
			known = append(known, "Edit", "Write")
		}
		for ours, c := range tools.ours {
			alias[ours] = c.Name
		}
	}
	fix, dead = matcherFix(h.Matcher, known, alias, selects)
	return fix, dead, known
}

// checkToolMatcher warns about a tool matcher that selects none of the tools it names
// (`Terminal` for terminal, `Bash` outside dialect claude, `terminal | patch`), with the
// matcher meant.
func (p *parser) checkToolMatcher(h *Hook, where string, n *yaml.Node) {
	fix, dead, known := p.toolMatcherFix(h)
	switch {
	case fix == "":
	case len(dead) == 0:
		p.warn(n, "%s: matcher %q has spaces or commas: it matches no tool name (separate names with '|' alone), did you mean '%s'?", where, h.Matcher, fix)
	case len(dead) == 1 && dead[0] == h.Matcher:
		p.warn(n, "%s: matcher %q names no tool, so the hook never fires (tool names are case-sensitive; known tools: %s), did you mean '%s'?",
			where, h.Matcher, strings.Join(known, ", "), fix)
	default:
		p.warn(n, "%s: matcher %q: %s names no tool, so the hook never fires for it (tool names are case-sensitive; known tools: %s), did you mean '%s'?",
			where, h.Matcher, quoteAll(dead), strings.Join(known, ", "), fix)
	}
}

func quoteAll(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = strconv.Quote(w)
	}
	return strings.Join(q, ", ")
}

// toolEvent reports whether a hook of event fires for one tool call, so that a matcher of
// tool names applies: pre_tool_call, post_tool_call and post_tool_failure.
func toolEvent(event string) bool {
	return event == hooknames.PreToolCall || event == hooknames.PostToolCall || event == hooknames.PostToolFailure
}
