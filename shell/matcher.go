package shell

import (
	"github.com/hermes-hooks/hermes/hookspec"
	"regexp"
	"regexp/syntax"
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
	if h.Dialect == DialectClaude {
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
// and subagents by type.
func (h *Hook) selects(kwargs map[string]any) bool {
	if h.Dialect != DialectClaude {
		if h.Event != hookspec.PreToolCall && h.Event != hookspec.PostToolCall {
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
	m := h.claude
	if m == nil { // a Hook built by hand rather than by ParseHooks
		m, _ = compileClaudeMatcher(h.Matcher)
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
