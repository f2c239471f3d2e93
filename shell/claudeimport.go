package shell

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hermes-hooks/hermes/internal/command"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/suggest"
	"gopkg.in/yaml.v3"
)

// ImportEntry is one hook of a Claude Code settings file as a config.yaml entry with
// dialect: claude.
type ImportEntry struct {
	Event      string // this project's hook name
	Matcher    string // Claude Code's matcher, as written ("" = none)
	Command    string
	Timeout    int         // seconds; 0 = not set (the default applies)
	Dialect    string      // "" = DialectClaude
	FailClosed bool        // onFailure: "block"
	HTTP       *HTTPTarget // a type: http hook (claudeimport_http.go); Command holds its URL
	Dialected              // if, project_dir, status_message, async, async_rewake, args, plugin_root, plugin_data
}

// ImportOptions say where the hooks of a settings file belong.
type ImportOptions struct {
	// ProjectDir is the project the settings file belongs to (the parent of its .claude
	// directory); its hooks run there. "" = the host's working directory.
	ProjectDir string
	// PluginRoot and PluginData: the hooks come from the plugin bundle at PluginRoot
	// (${CLAUDE_PLUGIN_ROOT}), whose data directory is PluginData (${CLAUDE_PLUGIN_DATA}).
	PluginRoot, PluginData string
	// Dialect is the agent the settings were written for: "" or DialectClaude,
	// DialectCodex, DialectGemini.
	Dialect string
	// lineOf, when set, gives the line in the original file of an event (group -1), a
	// matcher group (hook -1) or a hook: the settings were converted (Codex's TOML).
	lineOf func(event string, group, hook int) int
}

// ImportNote is something said about one hook of the settings file: why it was not
// imported, or what differs in the one that was.
type ImportNote struct {
	Where string // "settings.json:12: hooks.Stop[0].hooks[0]"
	Msg   string
}

func (n ImportNote) String() string { return n.Where + ": " + n.Msg }

// ClaudeImport is what ReadClaudeSettings made of a settings file.
type ClaudeImport struct {
	Entries []ImportEntry
	Skipped []ImportNote // hooks that were not imported, and why
	Notes   []ImportNote // imported hooks that behave differently here

	opts ImportOptions
}

// whyNot says why Claude Code events this project has no hook for cannot be imported.
var whyNot = map[string]string{
	"SubagentStart":      "the start of a subagent is not a moment the agent here tells hooks about (a subagent about to stop is: SubagentStop maps to pre_verify)",
	"TaskCompleted":      "there are no agent teams or task lists here; a task's completion cannot be held back",
	"TeammateIdle":       "there are no agent teams here; a teammate cannot be kept working",
	"PermissionDenied":   "the host's permission system does not tell hooks about denials (pre_approval_request answers requests)",
	"InstructionsLoaded": "the agent here loads no CLAUDE.md or rules files",
	"ConfigChange":       "configuration changes reach the engine by Reload, not as an event for hooks",
	"Setup":              "there is no setup command here",
}

// ReadClaudeSettings reads the hooks object of a Claude Code settings file (settings.json,
// or a plugin's hooks.json) and maps every hook it can to a config.yaml entry. file names
// the file in notes. An error means the file is not a settings file at all.
func ReadClaudeSettings(file string, data []byte) (ClaudeImport, error) {
	return ReadClaudeSettingsWith(file, data, ImportOptions{})
}

// ReadClaudeSettingsWith is ReadClaudeSettings for the hooks of a project or plugin bundle
// (opts): they run in the project, with the plugin's directories.
func ReadClaudeSettingsWith(file string, data []byte, opts ImportOptions) (ClaudeImport, error) {
	var probe any
	if err := json.Unmarshal(data, &probe); err != nil {
		return ClaudeImport{}, fmt.Errorf("%s: not valid JSON: %v", file, jsonError(data, err))
	}
	var doc yaml.Node // JSON is YAML: its nodes keep the order and lines of the file
	if err := yaml.Unmarshal(data, &doc); err != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return ClaudeImport{}, fmt.Errorf("%s: expected a JSON object with a \"hooks\" key", file)
	}
	hooks := mapValue(doc.Content[0], "hooks")
	if hooks == nil || hooks.Kind != yaml.MappingNode {
		return ClaudeImport{}, fmt.Errorf("%s: no \"hooks\" object: nothing to import", file)
	}
	imp := ClaudeImport{opts: opts}
	imp.policy(file, doc.Content[0])
	for i := 0; i+1 < len(hooks.Content); i += 2 {
		imp.event(file, hooks.Content[i].Value, hooks.Content[i+1])
	}
	return imp, nil
}

// event maps the matcher groups of one Claude Code event.
func (imp *ClaudeImport) event(file, ev string, groups *yaml.Node) {
	at := func(n *yaml.Node, path string) string {
		line := n.Line
		if imp.opts.lineOf != nil {
			gi, hi := -1, -1
			fmt.Sscanf(path, "[%d].hooks[%d]", &gi, &hi)
			line = imp.opts.lineOf(ev, gi, hi)
		}
		return fmt.Sprintf("%s:%d: hooks.%s%s", file, line, ev, path)
	}
	d := imp.dialect()
	hook, ok := importHook(d, ev)
	if !ok {
		why := whyNotIn(d, ev)
		if why == "" {
			why = agentName(d) + "'s event " + strconv.Quote(ev) + " has no equivalent here (events that map: " + strings.Join(mappedEventsOf(d), ", ") + ")"
		}
		imp.Skipped = append(imp.Skipped, ImportNote{at(groups, ""), why})
		return
	}
	if groups.Kind != yaml.SequenceNode {
		imp.Skipped = append(imp.Skipped, ImportNote{at(groups, ""), "expected a list of {matcher, hooks} objects"})
		return
	}
	var subagent map[string]any // SubagentStop: pre_verify of a subagent, matched by its type
	if ev == subagentStop {
		subagent = map[string]any{"subagent": map[string]any{}}
	}
	for gi, g := range groups.Content {
		if why := wrongTypes(g, groupFields); why != "" {
			imp.Skipped = append(imp.Skipped, ImportNote{at(g, fmt.Sprintf("[%d]", gi)), why})
			continue
		}
		matcher := ""
		if m := mapValue(g, "matcher"); m != nil && m.Kind == yaml.ScalarNode {
			matcher = m.Value
		}
		if _, takes := claudeQuery(hook, subagent, DefaultTools); !takes || matcher == "*" {
			matcher = "" // its agent ignores it there
		}
		if seq := mapValue(g, "sequential"); d == DialectGemini && seq != nil && seq.Value == "false" {
			imp.Notes = append(imp.Notes, ImportNote{at(g, fmt.Sprintf("[%d]", gi)), "sequential: false runs the group's hooks in parallel in Gemini CLI; here they run one after another, in order"})
		}
		list := mapValue(g, "hooks")
		if g.Kind != yaml.MappingNode || list == nil || list.Kind != yaml.SequenceNode {
			imp.Skipped = append(imp.Skipped, ImportNote{at(g, fmt.Sprintf("[%d]", gi)), `expected {"matcher": ..., "hooks": [...]}`})
			continue
		}
		for hi, h := range list.Content {
			n := len(imp.Entries)
			imp.hook(at(h, fmt.Sprintf("[%d].hooks[%d]", gi, hi)), hook, matcher, h)
			for i := n; i < len(imp.Entries); i++ {
				imp.Entries[i].Subagent = subagent != nil
			}
		}
	}
}

// hook maps one hook object.
func (imp *ClaudeImport) hook(where, event, matcher string, h *yaml.Node) {
	skip := func(msg string) { imp.Skipped = append(imp.Skipped, ImportNote{where, msg}) }
	note := func(msg string) { imp.Notes = append(imp.Notes, ImportNote{where, msg}) }
	if h.Kind != yaml.MappingNode {
		skip(`expected {"type": "command", "command": ...}`)
		return
	}
	if why := wrongTypes(h, hookFields); why != "" {
		skip(why)
		return
	}
	str := func(k string) string { return scalarOf(h, k) }
	line := strings.TrimSpace(str("command"))
	d := imp.dialect()
	if str("type") == TypeHTTP && d == DialectClaude {
		imp.httpHook(where, event, matcher, h)
		return
	}
	switch typ := str("type"); {
	case typ != "command":
		skip(fmt.Sprintf("type %q needs %s itself; only command hooks run here", typ, agentName(d)))
		return
	case line == "":
		skip("no command")
		return
	case CallsAgentHook(line) != "":
		skip("it runs this engine's own hooks (hermesctl hook " + CallsAgentHook(line) + "): imported, it would call itself")
		return
	case str("shell") != "" && str("shell") != "bash":
		skip(fmt.Sprintf("shell %q: hooks run by /bin/sh here", str("shell")))
		return
	}
	e := ImportEntry{Event: event, Matcher: matcher, Command: line}
	e.ProjectDir = imp.opts.ProjectDir
	if d != DialectClaude {
		e.Dialect = d
		imp.other(&e, h, note)
		return
	}
	if !imp.claudeCommand(&e, h, skip) {
		return
	}
	claudeBehaviour(&e, h, note)
	imp.Entries = append(imp.Entries, e)
}

// scalarOf is the scalar value of key k of mapping h ("" when it has none).
func scalarOf(h *yaml.Node, k string) string {
	if v := mapValue(h, k); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// claudeCommand reads what decides which calls a Claude Code command hook runs for and
// what it runs: its if condition, its plugin's variables, its exec-form args. false: the
// hook is skipped (skip said why).
func (imp *ClaudeImport) claudeCommand(e *ImportEntry, h *yaml.Node, skip func(string)) bool {
	if cond := scalarOf(h, "if"); cond != "" {
		if _, _, tool := ifInput(e.Event, nil, DefaultTools); !tool {
			skip(fmt.Sprintf("its if condition (%s) applies to tool events only; on %s it cannot be checked, and without it the hook would fire for more calls", cond, e.Event))
			return false
		}
		if _, err := compileIf(cond); err != nil {
			skip(fmt.Sprintf("its if condition cannot be checked here (%v), and without it the hook would fire for more calls", err))
			return false
		}
		e.If = cond
	}
	if !imp.pluginVars(e, h, skip) {
		return false
	}
	if a := mapValue(h, "args"); a != nil {
		if a.Kind != yaml.SequenceNode || a.Decode(&e.Args) != nil {
			skip("args must be a list of strings")
			return false
		}
		for i, w := range e.Args {
			if e.PluginRoot != "" { // the exec form: no quoting
				e.Args[i] = command.ExpandVars(w, e.pluginVars())
			}
		}
	}
	return true
}

// claudeBehaviour reads how a Claude Code command hook runs (status message, failure,
// timeout, async, once), with a note for what runs differently here.
func claudeBehaviour(e *ImportEntry, h *yaml.Node, note func(string)) {
	str := func(k string) string { return scalarOf(h, k) }
	event := e.Event
	e.StatusMessage = str("statusMessage")
	switch f := str("onFailure"); f {
	case "":
	case "block":
		if event != hooknames.PreToolCall {
			note(fmt.Sprintf(`onFailure "block" only blocks tool calls here (pre_tool_call); on %s a failing hook is reported and the agent goes on`, event))
		} else {
			e.FailClosed = true
		}
	default:
		note(fmt.Sprintf("onFailure %q: a failing hook is reported and the call goes on", f))
	}
	if t := mapValue(h, "timeout"); t != nil {
		secs, err := strconv.ParseFloat(t.Value, 64)
		switch {
		case err != nil || secs <= 0:
			note(fmt.Sprintf("timeout %q is not a positive number of seconds; the default (%d s) applies", t.Value, int(DefaultTimeout.Seconds())))
		case secs > MaxTimeout.Seconds():
			e.Timeout = int(MaxTimeout.Seconds())
			note(fmt.Sprintf("timeout %s s is over this engine's maximum; %d s", t.Value, e.Timeout))
		default:
			e.Timeout = max(1, int(secs+0.999))
		}
	}
	e.Async, e.AsyncRewake = str("async") == "true", str("asyncRewake") == "true"
	switch {
	case e.AsyncRewake:
		note("asyncRewake: it runs in the background; its answer is ignored, and an exit code 2 gives its stderr to the session's next turn")
	case e.Async && (event == hooknames.PreToolCall || event == hooknames.PreLLMCall || event == hooknames.PreVerify || event == hooknames.PreApprovalRequest):
		note("async: it runs in the background and its answer is ignored, as in Claude Code: it decides nothing")
	}
	if str("once") == "true" {
		note("once: here it fires every time")
	}
	if event == hooknames.OnSessionEnd {
		note("on_session_end fires at the end of every turn here; for once per session, move the entry to on_session_finalize")
	}
}

// The JSON types of the fields of a matcher group and of a hook, in the three agents'
// settings. A field of another type is never read as a string ("matcher": null is not the
// matcher "null"): the hook is not imported, and the note says what to write.
var (
	groupFields = map[string]string{"matcher": "string", "sequential": "boolean", "hooks": "list"}
	hookFields  = map[string]string{"type": "string", "command": "string", "if": "string", "shell": "string",
		"statusMessage": "string", "onFailure": "string", "url": "string", "name": "string", "description": "string",
		"timeout": "number", "async": "boolean", "asyncRewake": "boolean", "once": "boolean",
		"args": "list of strings", "allowedEnvVars": "list of strings", "headers": "object of strings"}
	// fieldHints say what to write instead, where a field has a meaning when absent.
	fieldHints = map[string]string{
		"matcher": `a string: a name ("Bash"), names ("Edit|Write") or a regular expression; leave it out (or "" or "*") for every tool`,
		"if":      `a permission rule as a string ("Bash(rm *)"), or leave it out for every call the matcher selects`,
		"timeout": "a number of seconds (milliseconds for Gemini CLI), or leave it out for the default",
	}
)

// wrongTypes says which field of the mapping n has a JSON type other than fields gives, or
// a name that is a misspelling of one of them ("matchr": the hook would fire on every tool,
// "timout": with the default timeout), and what to do; "" when none has. A name far from
// every field (one a later version of the agent added) is left for the agent.
func wrongTypes(n *yaml.Node, fields map[string]string) string {
	if n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, v := n.Content[i].Value, resolve(n.Content[i+1])
		want, known := fields[key]
		if !known {
			if meant := suggest.Closest(key, slices.Sorted(maps.Keys(fields))); meant != "" {
				return fmt.Sprintf("%q is not a field: did you mean %q? Read as written, the hook would not do what it says, so it is not imported: fix the name, and import again", key, meant)
			}
			continue
		}
		if hasType(v, want) {
			continue
		}
		hint := fieldHints[key]
		if hint == "" {
			hint = "a " + want + ", or leave it out"
		}
		got := jsonKind(v)
		if v.Kind == yaml.SequenceNode && want == "list of strings" || v.Kind == yaml.MappingNode && want == "object of strings" {
			got += " with a value that is not a string"
		}
		return fmt.Sprintf("%q is %s, not a %s; it would change what the hook guards, so it is not imported: write %s, and import again", key, got, want, hint)
	}
	return ""
}

// hasType reports whether n is a JSON value of type want.
func hasType(n *yaml.Node, want string) bool {
	scalar := func(n *yaml.Node, tags ...string) bool {
		return n != nil && n.Kind == yaml.ScalarNode && slices.Contains(tags, n.Tag)
	}
	switch want {
	case "string":
		return scalar(n, "!!str")
	case "number":
		return scalar(n, "!!int", "!!float")
	case "boolean":
		return scalar(n, "!!bool")
	case "list":
		return n != nil && n.Kind == yaml.SequenceNode
	case "list of strings":
		if n == nil || n.Kind != yaml.SequenceNode {
			return false
		}
		for _, item := range n.Content {
			if !scalar(resolve(item), "!!str") {
				return false
			}
		}
		return true
	case "object of strings":
		if n == nil || n.Kind != yaml.MappingNode {
			return false
		}
		for i := 1; i < len(n.Content); i += 2 {
			if !scalar(resolve(n.Content[i]), "!!str") {
				return false
			}
		}
		return true
	}
	return true
}

// jsonKind names a JSON value's type (and a scalar's value) for notes.
func jsonKind(n *yaml.Node) string {
	switch {
	case n == nil || isNull(n):
		return "null"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.MappingNode:
		return "an object"
	case n.Tag == "!!str":
		return fmt.Sprintf("the string %q", truncateChars(n.Value, 40))
	case n.Tag == "!!bool":
		return n.Value
	case n.Tag == "!!int" || n.Tag == "!!float":
		return "the number " + truncateChars(n.Value, 40)
	}
	return "a value of tag " + n.Tag
}

// dialect is the dialect of the settings read.
func (imp *ClaudeImport) dialect() string {
	if imp.opts.Dialect == "" {
		return DialectClaude
	}
	return imp.opts.Dialect
}

// pluginVars checks a command that uses a plugin's directories: it imports only from a
// plugin bundle, whose directories the entry records. false: skipped.
func (imp *ClaudeImport) pluginVars(e *ImportEntry, h *yaml.Node, skip func(string)) bool {
	uses := strings.Contains(e.Command, "CLAUDE_PLUGIN_ROOT") || strings.Contains(e.Command, "CLAUDE_PLUGIN_DATA")
	if a := mapValue(h, "args"); a != nil {
		for _, w := range a.Content {
			uses = uses || strings.Contains(w.Value, "CLAUDE_PLUGIN_")
		}
	}
	if imp.opts.PluginRoot == "" {
		if uses {
			skip("it uses a Claude Code plugin's directory (${CLAUDE_PLUGIN_ROOT}): import the plugin itself (hermesctl hooks import claude <plugin-dir>)")
		}
		return !uses
	}
	e.PluginRoot, e.PluginData = imp.opts.PluginRoot, imp.opts.PluginData
	// The directories are written into the command, as Claude Code substitutes them, so that
	// consent pins the bundle's scripts (a directory that needs quoting is left to the
	// environment, which has it too).
	vars := map[string]string{}
	for k, v := range e.pluginVars() {
		if quoteWord(v) == v {
			vars[k] = v
		}
	}
	e.Command = command.ExpandVars(e.Command, vars)
	return true
}

// pluginVars are the plugin variables of an entry from a plugin bundle.
func (e ImportEntry) pluginVars() map[string]string {
	return map[string]string{"CLAUDE_PLUGIN_ROOT": e.PluginRoot, "CLAUDE_PLUGIN_DATA": e.PluginData}
}

// mappedEvents lists Claude Code's events that map to a hook here, sorted.
func mappedEvents() []string {
	return slices.Sorted(maps.Keys(importEvents))
}

// mapValue is the value of key in mapping n (nil when absent or n is not a mapping).
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return resolve(n.Content[i+1])
		}
	}
	return nil
}

// jsonError adds the line of a syntax error.
func jsonError(data []byte, err error) string {
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Sprintf("line %d: %v", 1+bytes.Count(data[:se.Offset], []byte("\n")), err)
	}
	return err.Error()
}

// AddToConfig adds entries to the hooks: of config.yaml (data; empty for a new file) and
// returns the new content and the entries that were added; an entry already declared (same
// event, matcher, command and dialect) is not added again. Everything else in the file stays,
// comments and order included. A hooks: that is not a mapping, or an event that is not a
// list, is an error naming its line: nothing is written.
func AddToConfig(file string, data []byte, entries []ImportEntry) ([]byte, []ImportEntry, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, fmt.Errorf("%s: %v; fix it before importing", file, err)
	}
	if doc.Kind == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, nil, fmt.Errorf("%s:%d: expected a mapping of settings; fix it before importing", file, root.Line)
	}
	hooks, err := child(file, root, "hooks", yaml.MappingNode)
	if err != nil {
		return nil, nil, err
	}
	var added []ImportEntry
	for _, e := range entries {
		list, err := child(file, hooks, e.Event, yaml.SequenceNode)
		if err != nil {
			return nil, nil, err
		}
		if declares(list, e) {
			continue
		}
		list.Content = append(list.Content, entryNode(e))
		added = append(added, e)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", file, err)
	}
	return buf.Bytes(), added, enc.Close()
}

// child is the value of key in mapping n, created (or filled, when null) with kind.
func child(file string, n *yaml.Node, key string, kind yaml.Kind) (*yaml.Node, error) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != key {
			continue
		}
		v := resolve(n.Content[i+1])
		if isNull(v) {
			v = &yaml.Node{Kind: kind}
			n.Content[i+1] = v
		}
		if v.Kind != kind {
			want := "a mapping"
			if kind == yaml.SequenceNode {
				want = "a list"
			}
			return nil, fmt.Errorf("%s:%d: %s: expected %s, got %s; fix it before importing", file, v.Line, key, want, kindName(v))
		}
		return v, nil
	}
	v := &yaml.Node{Kind: kind}
	n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
	return v, nil
}

// declares reports whether list already holds e.
func declares(list *yaml.Node, e ImportEntry) bool {
	if e.HTTP != nil {
		return declaresHTTP(list, e)
	}
	for _, n := range list.Content {
		str := func(k string) string {
			if v := mapValue(n, k); v != nil {
				return strings.TrimSpace(v.Value)
			}
			return ""
		}
		var args []string
		if a := mapValue(n, "args"); a != nil {
			_ = a.Decode(&args) // not a list: not the same entry
		}
		if str("command") == e.Command && slices.Equal(args, e.Args) && str("matcher") == e.Matcher && str("dialect") == e.dialect() &&
			(str("subagent") == "true") == e.Subagent {
			return true
		}
	}
	return false
}

// entryNode is e as a config.yaml entry.
func entryNode(e ImportEntry) *yaml.Node {
	if e.HTTP != nil {
		return httpEntryNode(e)
	}
	n := &yaml.Node{Kind: yaml.MappingNode}
	add := func(k, v, tag string) {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, &yaml.Node{Kind: yaml.ScalarNode, Value: v, Tag: tag})
	}
	add("command", e.Command, "!!str") // with args: the program of the exec form
	if e.Matcher != "" {
		add("matcher", e.Matcher, "!!str")
	}
	if e.Timeout > 0 {
		add("timeout", strconv.Itoa(e.Timeout), "!!int")
	}
	add("dialect", e.dialect(), "!!str")
	if e.FailClosed {
		add("fail_closed", "true", "!!bool")
	}
	for _, kv := range [][2]string{{"if", e.If}, {"project_dir", e.ProjectDir}, {"status_message", e.StatusMessage},
		{"plugin_root", e.PluginRoot}, {"plugin_data", e.PluginData}} {
		if kv[1] != "" {
			add(kv[0], kv[1], "!!str")
		}
	}
	if e.Subagent {
		add("subagent", "true", "!!bool")
	}
	if e.Async {
		add("async", "true", "!!bool")
	}
	if e.AsyncRewake {
		add("async_rewake", "true", "!!bool")
	}
	if len(e.Args) > 0 {
		list := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		for _, a := range e.Args {
			list.Content = append(list.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: a, Tag: "!!str"})
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "args"}, list)
	}
	return n
}

// dialect is the entry's dialect.
func (e ImportEntry) dialect() string {
	if e.Dialect == "" {
		return DialectClaude
	}
	return e.Dialect
}

// CommandLine is the entry's command as hooks list shows it: with the exec form's args,
// quoted for a shell.
func (e ImportEntry) CommandLine() string {
	words := []string{quoteWord(e.Command)}
	if len(e.Args) == 0 {
		return e.Command
	}
	for _, a := range e.Args {
		words = append(words, quoteWord(a))
	}
	return strings.Join(words, " ")
}
