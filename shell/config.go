package shell

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"

	"gopkg.in/yaml.v3"

	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/suggest"
)

// Timeouts of a shell hook.
const (
	DefaultTimeout = 60 * time.Second
	MaxTimeout     = 300 * time.Second
)

// entryKeys are the keys a hook entry understands; others are ignored.
var entryKeys = []string{"matcher", "command", "timeout", "fail_closed", "persistent", "instances", "dialect",
	"type", "url", "headers", "allowed_env_vars", "allow_private_network",
	"if", "project_dir", "status_message", "async", "async_rewake", "args", "plugin_root", "plugin_data", "subagent"}

// Hook is one validated shell-hook entry from config.yaml. It is immutable after ParseHooks
// and safe to share between goroutines.
type Hook struct {
	Event      string             // one of the valid event names
	Matcher    string             // trimmed; "" = none (only kept for pre_tool_call/post_tool_call)
	Command    string             // the command string as written, surrounding blanks trimmed (consent keys on it)
	Argv       []string           // split words, ~ expanded, at load (Run resolves Command again, see newCmd)
	Timeout    time.Duration      // DefaultTimeout unless configured; at most MaxTimeout
	FailClosed bool               // pre_tool_call only
	Persistent bool               // one long-lived process answering a line per firing (persistent.go)
	Instances  int                // processes of a persistent hook, firings going to a free one (pool.go); 0 = 1
	Dialect    string             // "" (this project's protocol) or DialectClaude (claude.go)
	Type       string             // "" (a command) or TypeHTTP (http.go)
	HTTP       *HTTPTarget        // TypeHTTP only: where and how the payload is POSTed
	Line       int                // line of the entry in config.yaml
	Warnings   []hookspec.Warning // the load warnings about this entry (a setting that does not do what it says)
	Dialected                     // the settings of a hook written for another agent (dialected.go)

	matcher *matcher                   // nil when Matcher == ""
	claude  *claudeMatcher             // the matcher of a Claude Code hook (nil: every call)
	tools   *ToolTable                 // a Claude Code hook's tool names
	ifc     ifCompiled                 // the compiled If of a hook written for another agent
	persist atomic.Pointer[persistent] // the processes of a persistent hook, once it fired
	client  atomic.Pointer[httpClient] // a type: http hook's client, kept for its connections
	py      *python                    // a Python hook's co-process (python.go); nil for any other

	// The circuit of a persistent hook, for tests: zero values are the defaults of pool.go.
	circuitAfter int
	circuitRest  time.Duration
	clock        func() time.Time
}

// parser collects the hooks and warnings of one hooks: block.
type parser struct {
	file   string
	valid  []string
	tools  *ToolTable
	hooks  []*Hook
	warns  []hookspec.Warning
	seen   map[[3]string]int // (event, matcher, command) -> line of the first declaration
	events map[string]bool
}

// ParseHooks validates the value of the top-level `hooks:` key of config.yaml (node may be nil).
// file is used in warnings; validEvents lists the valid hook names. It never fails: each problem
// is one hookspec.Warning and the entry (or event) is skipped unless noted otherwise. Duplicates of
// (event, matcher, command) are kept once, in config order.
func ParseHooks(file string, node *yaml.Node, validEvents []string) ([]*Hook, []hookspec.Warning) {
	return ParseHooksWith(file, node, validEvents, nil)
}

// ParseHooksWith is ParseHooks with the tool table of the hooks in Claude Code's dialect
// (nil = DefaultTools).
func ParseHooksWith(file string, node *yaml.Node, validEvents []string, tools *ToolTable) ([]*Hook, []hookspec.Warning) {
	if tools == nil {
		tools = DefaultTools
	}
	p := &parser{file: file, valid: validEvents, tools: tools, seen: map[[3]string]int{}, events: map[string]bool{}}
	for _, e := range validEvents {
		p.events[e] = true
	}
	node = resolve(node)
	if node != nil && node.Kind == yaml.DocumentNode && len(node.Content) > 0 {
		node = resolve(node.Content[0])
	}
	if isNull(node) {
		return nil, nil
	}
	if node.Kind != yaml.MappingNode {
		p.warn(node, "hooks: expected a mapping of event name to a list of hooks, got %s; no shell hooks loaded", kindName(node))
		return nil, p.warns
	}
	for i := 0; i+1 < len(node.Content); i += 2 {
		p.event(node.Content[i], resolve(node.Content[i+1]))
	}
	return p.hooks, p.warns
}

func (p *parser) warn(n *yaml.Node, format string, args ...any) {
	line := 0
	if n != nil {
		line = n.Line
	}
	p.warns = append(p.warns, hookspec.Warning{File: p.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// event validates one `<event>: [entries]` pair.
func (p *parser) event(key, value *yaml.Node) {
	name := key.Value
	if key.Kind != yaml.ScalarNode {
		p.warn(key, "hooks: event names must be strings, got %s; skipped", kindName(key))
		return
	}
	if hooknames.IsWrap(name) {
		p.warn(key, "hooks: %s is for Lua plugins only: a shell hook cannot call next; write it in plugins/<name>/handler.lua (skipped)", name)
		return
	}
	if !p.events[name] {
		if s := suggest.Closest(name, p.valid); s != "" {
			p.warn(key, "hooks: unknown event %q, did you mean '%s'? (skipped)", name, s)
		} else {
			p.warn(key, "hooks: unknown event %q (valid events: %s); skipped", name, strings.Join(p.valid, ", "))
		}
		return
	}
	if isNull(value) {
		return // `pre_tool_call:` with every entry commented out
	}
	if value.Kind != yaml.SequenceNode {
		p.warn(value, "hooks.%s: expected a list of hooks, got %s; skipped", name, kindName(value))
		return
	}
	for i, entry := range value.Content {
		if h := p.entry(name, i, resolve(entry)); h != nil {
			p.add(h)
		}
	}
}

// add registers h unless the same (event, matcher, command) was declared before.
func (p *parser) add(h *Hook) {
	k := [3]string{h.Event, h.Matcher, h.Command}
	if h.Subagent { // Stop and SubagentStop are two hooks
		k[0] += " subagent"
	}
	if first, dup := p.seen[k]; dup {
		p.warns = append(p.warns, hookspec.Warning{File: p.file, Line: h.Line,
			Msg: fmt.Sprintf("hooks.%s: duplicate of the hook on line %d (same matcher and command); registered once", h.Event, first)})
		return
	}
	p.seen[k] = h.Line
	p.hooks = append(p.hooks, h)
}

// entry validates one list entry; nil means skipped.
func (p *parser) entry(event string, idx int, n *yaml.Node) (h *Hook) {
	where := fmt.Sprintf("hooks.%s[%d]", event, idx)
	first := len(p.warns)
	defer func() { // the warnings about the entry are the hook's too
		if h != nil && len(p.warns) > first {
			h.Warnings = slices.Clone(p.warns[first:])
		}
	}()
	if n.Kind != yaml.MappingNode {
		p.warn(n, "%s: expected a mapping with a 'command' key, got %s; skipped", where, kindName(n))
		return nil
	}
	fields := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if _, known := fields[k]; !known && isEntryKey(k) {
			fields[k] = resolve(n.Content[i+1])
		} else if !isEntryKey(k) {
			if s := suggest.Closest(k, entryKeys); s != "" {
				p.warn(n.Content[i], "%s: unknown key %q ignored, did you mean '%s'?", where, k, s)
			}
		}
	}
	h = &Hook{Event: event, Line: n.Line}
	if !p.dialect(h, where, fields["dialect"]) || !p.target(h, where, n, fields) || !p.subagentField(h, where, fields["subagent"]) {
		return nil
	}
	p.matcherField(h, where, fields["matcher"])
	h.Timeout = p.timeout(where, fields["timeout"])
	h.FailClosed = p.failClosed(event, where, fields["fail_closed"])
	h.Persistent = p.persistentField(where, fields["persistent"])
	if h.Persistent && h.Type == TypeHTTP {
		p.warn(fields["persistent"], "%s: persistent is ignored for type: http: each firing is one request", where)
		h.Persistent = false
	}
	if h.Persistent && h.Dialect != "" {
		p.warn(fields["persistent"], "%s: persistent is ignored for dialect %s: %s's hooks answer once and exit", where, h.Dialect, agentName(h.Dialect))
		h.Persistent = false
	}
	p.dialected(h, where, fields)
	h.Instances = p.instancesField(where, fields["instances"])
	if h.Instances != DefaultInstances && !h.Persistent {
		p.warn(fields["instances"], "%s: instances is ignored without persistent: true (each firing runs its own process anyway)", where)
		h.Instances = DefaultInstances
	}
	return h
}

// dialect fills Dialect; false means the entry is skipped.
func (p *parser) dialect(h *Hook, where string, n *yaml.Node) bool {
	if isNull(n) {
		return true
	}
	d := strings.ToLower(strings.TrimSpace(n.Value))
	if n.Kind != yaml.ScalarNode || !slices.Contains(Dialects, d) {
		hint := ""
		if s := suggest.Closest(d, Dialects); s != "" {
			hint = fmt.Sprintf(", did you mean '%s'?", s)
		}
		p.warn(n, "%s: unknown dialect %q%s (known: %s); skipped", where, n.Value, hint, strings.Join(Dialects, ", "))
		return false
	}
	if DialectEvent(d, h.Event) == "" {
		p.warn(n, "%s: dialect %s cannot serve %s (%s has no such event; it serves %s); skipped",
			where, d, h.Event, agentName(d), strings.Join(DialectHooks(d), ", "))
		return false
	}
	h.Dialect, h.tools = d, p.tools
	switch d {
	case DialectCodex:
		h.tools = codexTools
	case DialectGemini:
		h.tools = geminiTools
	}
	return true
}

func isEntryKey(k string) bool {
	for _, e := range entryKeys {
		if e == k {
			return true
		}
	}
	return false
}

// command fills Command and Argv; false means the entry is skipped.
func (p *parser) command(h *Hook, where string, entry, n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag != "!!str" || strings.TrimSpace(n.Value) == "" {
		at := entry
		if n != nil {
			at = n
		}
		p.warn(at, "%s: missing a non-empty string 'command'; skipped", where)
		return false
	}
	h.Command = strings.TrimSpace(n.Value)
	if h.Dialect != "" { // run by /bin/sh, as its agent runs it
		h.Argv = []string{"/bin/sh", "-c", h.Command}
		return true
	}
	r, err := resolveCommand(h.Command, "")
	if err != nil {
		p.warn(n, "%s: cannot split command %q: %v; skipped", where, h.Command, err)
		return false
	}
	h.Argv = r.Argv
	for _, w := range r.HashWords {
		p.warn(n, "%s: word %q of the command starts with '#': hooks run without a shell, so it is passed to the program as an argument, not treated as a comment", where, w)
	}
	return true
}

// matcherField fills Matcher and the compiled matcher.
func (p *parser) matcherField(h *Hook, where string, n *yaml.Node) {
	if isNull(n) {
		return
	}
	if n.Kind != yaml.ScalarNode {
		p.warn(n, "%s: matcher must be a string regex, got %s; ignored (the hook fires for every tool)", where, kindName(n))
		return
	}
	m := strings.TrimSpace(n.Value)
	if h.Dialect != "" {
		p.claudeMatcher(h, where, n, m)
		return
	}
	if m == "" {
		return
	}
	if !toolEvent(h.Event) {
		p.warn(n, "%s: matcher %q is ignored: matchers are only honoured for pre_tool_call and post_tool_call; the hook fires on every %s", where, m, h.Event)
		return
	}
	h.Matcher = m
	var err error
	h.matcher, err = compileMatcher(m)
	if err != nil {
		p.warn(n, "%s: matcher %q is not a valid regular expression (%v); matching the tool name literally", where, m, err)
		return
	}
	p.checkToolMatcher(h, where, n)
}

// claudeMatcher fills the matcher of a Claude Code hook.
func (p *parser) claudeMatcher(h *Hook, where string, n *yaml.Node, m string) {
	if m == "" || m == "*" {
		return
	}
	if _, ok := claudeQuery(h.Event, h.kind(), p.tools); !ok {
		p.warn(n, "%s: matcher %q is ignored: %s has no matcher for %s; the hook fires on every call", where, m, agentName(h.Dialect), DialectEvent(h.Dialect, h.Event))
		return
	}
	h.Matcher = m
	var err error
	if h.claude, err = compileClaudeMatcher(m); err != nil {
		p.warn(n, "%s: matcher %q is not a regular expression this engine can compile (%v); the hook fires on every call", where, m, err)
		return
	}
	if !toolEvent(h.Event) {
		return // matched against a session's source or a subagent's role, not a tool
	}
	if fix, dead, _ := p.toolMatcherFix(h); strings.Contains(m, " ") && len(dead) == 0 {
		write := ""
		if fix != "" {
			write = fmt.Sprintf(" (write %s)", fix)
		}
		p.warn(n, "%s: matcher %q has spaces: it matches no tool name%s, as in %s", where, m, write, agentName(h.Dialect))
		return
	}
	p.checkToolMatcher(h, where, n)
}

// timeout parses the timeout field in seconds.
func (p *parser) timeout(where string, n *yaml.Node) time.Duration {
	if isNull(n) {
		return DefaultTimeout
	}
	var secs int64
	ok := false
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!str") {
		if n.Tag == "!!int" {
			ok = n.Decode(&secs) == nil
		} else {
			var err error
			secs, err = strconv.ParseInt(strings.TrimSpace(n.Value), 10, 64)
			ok = err == nil
		}
	}
	switch {
	case !ok:
		p.warn(n, "%s: timeout must be a whole number of seconds, got %q; using %d", where, n.Value, int(DefaultTimeout.Seconds()))
		return DefaultTimeout
	case secs < 1:
		p.warn(n, "%s: timeout must be at least 1 second, got %d; using %d", where, secs, int(DefaultTimeout.Seconds()))
		return DefaultTimeout
	case secs > int64(MaxTimeout/time.Second):
		p.warn(n, "%s: timeout %d exceeds the maximum of %d seconds; using %d", where, secs, int(MaxTimeout.Seconds()), int(MaxTimeout.Seconds()))
		return MaxTimeout
	}
	return time.Duration(secs) * time.Second
}

// failClosed parses fail_closed, honoured on pre_tool_call only.
func (p *parser) failClosed(event, where string, n *yaml.Node) bool {
	if isNull(n) {
		return false
	}
	var v bool // only true or false: a string such as "yes" is a mistake, not a yes
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&v) != nil {
		p.warn(n, "%s: fail_closed must be true or false, got %q; using false (fail open)", where, n.Value)
		return false
	}
	if v && event != hooknames.PreToolCall {
		p.warn(n, "%s: fail_closed is ignored: it only applies to pre_tool_call; this hook fails open", where)
		return false
	}
	return v
}

// resolve follows YAML aliases.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == 0 || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

// kindName names a node's type for warnings.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return "null"
		case "!!str":
			return fmt.Sprintf("the string %q", n.Value)
		}
		return fmt.Sprintf("%s %s", strings.TrimPrefix(n.Tag, "!!"), n.Value)
	}
	return "an unexpected node"
}
