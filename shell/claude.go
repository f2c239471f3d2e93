package shell

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/jsonvalue"
	"gopkg.in/yaml.v3"
)

// DialectClaude is the dialect of a hook written for Claude Code: its stdin payload, its
// answers, its matcher rules, its tool names, and its command run by /bin/sh.
const DialectClaude = "claude"

// Dialects lists the values of an entry's dialect key ("" is this project's own).
var Dialects = []string{DialectClaude, DialectCodex, DialectGemini}

// claudeEvents maps the hooks a Claude Code hook can serve to Claude Code's event names.
// on_session_end fires at the end of every turn; on_session_finalize, once per session, is
// the other hook a SessionEnd hook can serve.
var claudeEvents = map[string]string{
	hooknames.PreToolCall:       "PreToolUse",
	hooknames.PostToolCall:      "PostToolUse",
	hooknames.PreLLMCall:        "UserPromptSubmit",
	hooknames.OnSessionStart:    "SessionStart",
	hooknames.OnSessionEnd:      "SessionEnd",
	hooknames.OnSessionFinalize: "SessionEnd",
	hooknames.SubagentStop:      "SubagentStop",
	// The lifecycle points (claudepoints.go).
	hooknames.PreVerify:          "Stop",
	hooknames.PostToolFailure:    "PostToolUseFailure",
	hooknames.PreCompact:         "PreCompact",
	hooknames.PostCompact:        "PostCompact",
	hooknames.OnNotification:     "Notification",
	hooknames.PreApprovalRequest: "PermissionRequest",
}

// importEvents is the hook an imported Claude Code hook serves (§5.6).
var importEvents = map[string]string{
	"PreToolUse": hooknames.PreToolCall, "PostToolUse": hooknames.PostToolCall, "UserPromptSubmit": hooknames.PreLLMCall,
	"SessionStart": hooknames.OnSessionStart, "SessionEnd": hooknames.OnSessionEnd, "SubagentStop": hooknames.PreVerify,
	"Stop": hooknames.PreVerify, "PostToolUseFailure": hooknames.PostToolFailure, "PreCompact": hooknames.PreCompact,
	"PostCompact": hooknames.PostCompact, "Notification": hooknames.OnNotification, "PermissionRequest": hooknames.PreApprovalRequest,
}

// ClaudeEvent is Claude Code's name of hook ("" when a Claude Code hook cannot serve it).
func ClaudeEvent(hook string) string { return claudeEvents[hook] }

// HookForClaudeEvent is the hook that serves Claude Code's event ev.
func HookForClaudeEvent(ev string) (string, bool) {
	h, ok := importEvents[ev]
	return h, ok
}

// ClaudeEvents lists the hooks a Claude Code hook can serve, in the documented order.
func ClaudeEvents() []string {
	var out []string
	for _, h := range hookspec.Names() {
		if claudeEvents[h] != "" {
			out = append(out, h)
		}
	}
	return out
}

// ClaudeTool is how one of this project's tools looks to a Claude Code hook.
type ClaudeTool struct {
	Name string            // Claude Code's name of the tool
	Args map[string]string // this project's argument name -> Claude Code's; others keep their names

	// encode, when set, builds the agent's input from our arguments (Codex's apply_patch
	// takes a patch); such an input does not map back.
	encode func(args map[string]any) map[string]any
}

// ToolTable maps tool names and arguments between this project and Claude Code. It is
// immutable once built.
type ToolTable struct {
	ours map[string]ClaudeTool // our name -> Claude Code's tool
}

// defaultTools is the documented table (docs/claude-code.md).
var defaultTools = map[string]ClaudeTool{
	"terminal":     {Name: "Bash", Args: map[string]string{"background": "run_in_background"}},
	"read_file":    {Name: "Read", Args: map[string]string{"path": "file_path"}},
	"write_file":   {Name: "Write", Args: map[string]string{"path": "file_path"}},
	"patch":        {Name: "Edit", Args: map[string]string{"path": "file_path"}},
	"search_files": {Name: "Grep", Args: map[string]string{"file_glob": "glob"}},
	"web_search":   {Name: "WebSearch"},
	"web_extract":  {Name: "WebFetch"},
}

// DefaultTools is the table of docs/claude-code.md.
var DefaultTools = NewToolTable(nil)

// NewToolTable is the default table with extra's entries added (an entry for a tool the
// default table maps replaces it).
func NewToolTable(extra map[string]ClaudeTool) *ToolTable {
	t := &ToolTable{ours: maps.Clone(defaultTools)}
	maps.Copy(t.ours, extra)
	return t
}

// String renders the table deterministically: two tables that map alike render alike.
func (t *ToolTable) String() string {
	var b strings.Builder
	for _, ours := range slices.Sorted(maps.Keys(t.ours)) {
		c := t.ours[ours]
		fmt.Fprintf(&b, "%s=%s", ours, c.Name)
		for _, a := range slices.Sorted(maps.Keys(c.Args)) {
			fmt.Fprintf(&b, ",%s:%s", a, c.Args[a])
		}
		b.WriteByte(';')
	}
	return b.String()
}

// ToClaude is the name and input a Claude Code hook sees for one of our tool calls. A tool
// the table does not map keeps its name and arguments.
func (t *ToolTable) ToClaude(name string, args map[string]any) (string, map[string]any) {
	c, ok := t.ours[name]
	if !ok {
		return name, args
	}
	if c.encode != nil {
		return c.Name, c.encode(args)
	}
	return c.Name, rename(args, c.Args)
}

// FromClaude is the arguments of our tool for input written in Claude Code's names (a
// hook's updatedInput for a call of our tool name).
func (t *ToolTable) FromClaude(name string, input map[string]any) map[string]any {
	c, ok := t.ours[name]
	if !ok || len(c.Args) == 0 {
		return input
	}
	back := make(map[string]string, len(c.Args))
	for ours, theirs := range c.Args {
		back[theirs] = ours
	}
	return rename(input, back)
}

// rename copies m with the keys in names renamed. When m also holds a key under the name
// another key is renamed to (path and file_path both), the renamed key's value is kept,
// whatever the order of the map: Conflict reports such a call when the two values differ.
func rename(m map[string]any, names map[string]string) map[string]any {
	if m == nil || len(names) == 0 {
		return m
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if _, renamed := names[k]; !renamed {
			out[k] = v
		}
	}
	for k, v := range m {
		if n, ok := names[k]; ok {
			out[n] = v
		}
	}
	return out
}

// Conflict names the argument a call of our tool name spells both in our name and in the
// other agent's (path and file_path), with different values: a hook sees one of them, and
// which one the host's tool reads cannot be known. "" when there is none; equal values are
// no conflict.
func (t *ToolTable) Conflict(name string, args map[string]any) string {
	c, ok := t.ours[name]
	if !ok || c.encode != nil {
		return ""
	}
	for _, ours := range slices.Sorted(maps.Keys(c.Args)) {
		theirs := c.Args[ours]
		a, hasOurs := args[ours]
		b, hasTheirs := args[theirs]
		if hasOurs && hasTheirs && ours != theirs && !reflect.DeepEqual(a, b) {
			return fmt.Sprintf("the call gives both %s and %s, with different values (%s, %s): which one the tool reads cannot be known; send one of them", ours, theirs, shortJSON(a), shortJSON(b))
		}
	}
	return ""
}

// shortJSON is v as JSON, cut to 80 bytes, for messages.
func shortJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%T", v)
	}
	return truncateChars(string(b), 80)
}

// claudeMatcher is Claude Code's matcher: "" or "*" match everything; a matcher of letters,
// digits, '_' and '|' lists exact names; anything else is a regular expression that may
// match anywhere in the name.
type claudeMatcher struct {
	all   bool
	names []string
	re    *regexp.Regexp
}

// compileClaudeMatcher compiles m; a regular expression RE2 cannot compile yields a matcher
// of everything, with the error: a guard that fires too often is safer than one that never does.
func compileClaudeMatcher(m string) (*claudeMatcher, error) {
	if m == "" || m == "*" {
		return &claudeMatcher{all: true}, nil
	}
	if simpleMatcher().MatchString(m) {
		var names []string
		for _, n := range strings.Split(m, "|") {
			names = append(names, strings.TrimSpace(n))
		}
		return &claudeMatcher{names: names}, nil
	}
	re, err := regexp.Compile(m)
	if err != nil {
		return &claudeMatcher{all: true}, err
	}
	return &claudeMatcher{re: re}, nil
}

var simpleMatcher = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_|]+$`) })

func (m *claudeMatcher) match(q string) bool {
	switch {
	case m.all:
		return true
	case m.re != nil:
		return m.re.MatchString(q)
	}
	return slices.Contains(m.names, q)
}

// claudeQuery is what a Claude Code matcher of event is compared with: the tool's Claude
// Code name, the session's source, the end's reason or the subagent's type. ok is false for
// events Claude Code has no matcher for.
func claudeQuery(event string, kwargs map[string]any, tools *ToolTable) (q string, ok bool) {
	switch event {
	case hooknames.PreToolCall, hooknames.PostToolCall:
		name, _ := kwargs["tool_name"].(string)
		q, _ = tools.ToClaude(name, nil)
		return q, true
	case hooknames.OnSessionStart:
		return "startup", true
	case hooknames.OnSessionEnd, hooknames.OnSessionFinalize:
		return "other", true
	case hooknames.SubagentStop:
		role, _ := kwargs["child_role"].(string)
		return role, true
	}
	return pointQuery(event, kwargs, tools)
}

// claudePayload is Claude Code's stdin document for one firing of event.
func claudePayload(event string, kwargs map[string]any, cwd string, tools *ToolTable) ([]byte, error) {
	w := &sanitizer{budget: maxSanitizeNodes}
	p := map[string]any{
		"session_id":      firstString(kwargs["session_id"], kwargs["parent_session_id"], kwargs["session_key"]),
		"transcript_path": "",
		"cwd":             cwd,
		"permission_mode": "default",
		"hook_event_name": eventName(DialectClaude, event, kwargs),
	}
	switch event {
	case hooknames.PreToolCall, hooknames.PostToolCall, hooknames.PostToolFailure:
		name, _ := kwargs["tool_name"].(string)
		args, _ := w.value(toolInput(kwargs["args"]), 0).(map[string]any)
		p["tool_name"], p["tool_input"] = tools.ToClaude(name, args)
		if p["tool_input"] == nil {
			p["tool_input"] = map[string]any{}
		}
		p["tool_use_id"] = firstString(kwargs["tool_call_id"])
		if event == hooknames.PostToolCall {
			p["tool_response"] = claudeToolResponse(p["tool_name"].(string), p["tool_input"].(map[string]any), kwargs["result"])
		}
		pointPayload(event, kwargs, p, tools)
	case hooknames.PreLLMCall:
		p["prompt"] = firstString(kwargs["user_message"])
	case hooknames.OnSessionStart:
		p["source"], p["model"] = "startup", firstString(kwargs["model"])
	case hooknames.OnSessionEnd, hooknames.OnSessionFinalize:
		p["reason"] = "other"
	case hooknames.SubagentStop:
		p["stop_hook_active"], p["agent_type"] = false, firstString(kwargs["child_role"])
	default:
		pointPayload(event, kwargs, p, tools)
	}
	return encodePayload(p)
}

// claudeOutcome reads what a Claude Code hook answered to event: exit code 2 (stderr is the
// reason), or on exit 0 its stdout: JSON starting with '{', or plain text (context for
// UserPromptSubmit and SessionStart, as is text starting with '{' that does not parse). problem says why an answer could not be honoured
// ("" when it was); it makes the call an error.
func claudeOutcome(event string, exit int, stdout, stderr string, tools *ToolTable, kwargs map[string]any) (parsed any, answer hookspec.Answer, problem string) {
	return outcomeOf(DialectClaude, event, exit, stdout, stderr, tools, kwargs)
}

// outcomeOf is claudeOutcome for a hook of dialect d, which reads Claude Code's answers
// under its own event names (hookSpecificOutput.hookEventName).
func outcomeOf(d, event string, exit int, stdout, stderr string, tools *ToolTable, kwargs map[string]any) (parsed any, answer hookspec.Answer, problem string) {
	why := strings.TrimSpace(stderr)
	switch {
	case exit == exitBlock:
		answer, problem = claudeBlock(event, truncateChars(why, stderrMessageLimit))
		return nil, answer, problem
	case exit != 0:
		if why != "" {
			return nil, hookspec.Answer{}, fmt.Sprintf("exited with status %d: %s", exit, truncateChars(why, stderrMessageLimit))
		}
		return nil, hookspec.Answer{}, fmt.Sprintf("exited with status %d", exit)
	}
	out := strings.TrimSpace(stdout)
	if out == "" {
		return nil, hookspec.Answer{}, ""
	}
	addsText := event == hooknames.PreLLMCall || event == hooknames.OnSessionStart
	if !strings.HasPrefix(out, "{") { // plain text: context where Claude Code adds it, else only shown
		if addsText {
			return out, hookspec.Answer{Kind: hookspec.Context, Text: out}, ""
		}
		return out, hookspec.Answer{}, ""
	}
	v, err := jsonvalue.Decode([]byte(out))
	if err != nil {
		if addsText && d == DialectClaude { // Claude Code reads JSON only when it parses: else it is plain text
			return out, hookspec.Answer{Kind: hookspec.Context, Text: out}, ""
		}
		return nil, hookspec.Answer{}, notJSON(err, out)
	}
	obj := v.(map[string]any) // valid JSON that starts with '{'
	answer, problem = claudeJSON(eventName(d, event, kwargs), event, obj)
	if event == hooknames.PostToolCall {
		answer.Output = updatedToolOutput(obj)
	}
	if answer.Kind == hookspec.Modify || answer.Kind == hookspec.Approve || answer.Kind == hookspec.Ask {
		name, _ := kwargs["tool_name"].(string)
		if answer.Args != nil {
			answer.Args = tools.FromClaude(name, answer.Args)
		}
	}
	return obj, answer, problem
}

// claudeBlock is what exit code 2 does: block the tool call, or give PostToolUse's reason to
// the model; elsewhere Claude Code's meaning cannot be honoured.
func claudeBlock(event, why string) (hookspec.Answer, string) {
	if a, problem, ok := pointBlock(event, why); ok {
		return a, problem
	}
	switch event {
	case hooknames.PreToolCall:
		if why == "" {
			why = DefaultBlockMessage
		}
		return blockAnswer(why), ""
	case hooknames.PostToolCall:
		if why == "" {
			return hookspec.Answer{}, ""
		}
		return hookspec.Answer{Kind: hookspec.Context, Text: why}, ""
	}
	return hookspec.Answer{}, unsupportedBlock(event, "exit code 2")
}

// unsupportedBlock explains why a block of event cannot be honoured.
func unsupportedBlock(event, what string) string {
	switch event {
	case hooknames.SubagentStop:
		return what + " keeps a subagent running in Claude Code; here it has already stopped"
	}
	return what + " has no effect on " + event
}

// claudeJSON reads Claude Code's JSON answer to event, whose name in the hook's dialect is
// eventName.
func claudeJSON(eventName, event string, obj map[string]any) (hookspec.Answer, string) {
	spec, _ := obj["hookSpecificOutput"].(map[string]any)
	if name := spec["hookEventName"]; spec != nil && name != eventName {
		return hookspec.Answer{}, fmt.Sprintf("hookSpecificOutput.hookEventName is %v, expected %q; answer ignored", name, eventName)
	}
	if d, ok := obj["decision"]; ok && d != "approve" && d != "block" {
		return hookspec.Answer{}, fmt.Sprintf("unknown decision %v (expected \"approve\" or \"block\"); answer ignored", d)
	}
	if d, ok := spec["permissionDecision"]; ok && event == hooknames.PreToolCall && !slices.Contains([]any{"allow", "deny", "ask", "defer"}, d) {
		return hookspec.Answer{}, fmt.Sprintf("unknown permissionDecision %v (expected allow, deny, ask or defer); answer ignored", d)
	}
	if a, problem, ok := pointJSON(event, obj, spec); ok {
		return a, problem
	}
	reason, _ := obj["reason"].(string)
	stop := obj["continue"] == false
	stopReason, _ := obj["stopReason"].(string)
	context, _ := spec["additionalContext"].(string)
	switch event {
	case hooknames.PreToolCall:
		if stop { // the agent cannot be stopped from here: the call can
			return blockAnswer(firstNonBlank(stopReason, reason, "stopped by hook")), ""
		}
		a := hookspec.Normalise(event, obj)
		if a.Kind == hookspec.Block && strings.TrimSpace(a.Message) == "" {
			a.Message = firstNonBlank(reason, DefaultBlockMessage)
		}
		return a, ""
	case hooknames.PostToolCall:
		text := context
		if obj["decision"] == "block" {
			text = strings.TrimSpace(firstNonBlank(reason, "blocked by hook") + "\n" + context)
		}
		if strings.TrimSpace(text) != "" {
			return hookspec.Answer{Kind: hookspec.Context, Text: text}, stopProblem(stop, event)
		}
	case hooknames.PreLLMCall, hooknames.OnSessionStart: // a prompt's block and stop: pointJSON
		if obj["decision"] == "block" {
			return hookspec.Answer{}, unsupportedBlock(event, `decision "block"`)
		}
		if stop {
			return hookspec.Answer{}, stopProblem(stop, event)
		}
		if strings.TrimSpace(context) != "" {
			return hookspec.Answer{Kind: hookspec.Context, Text: context}, ""
		}
	default:
		if obj["decision"] == "block" {
			return hookspec.Answer{}, unsupportedBlock(event, `decision "block"`)
		}
	}
	return hookspec.Answer{}, stopProblem(stop, event)
}

// stopProblem is the problem of a continue:false the agent cannot honour from event.
func stopProblem(stop bool, event string) string {
	if !stop {
		return ""
	}
	return fmt.Sprintf(`"continue": false stops Claude Code; the agent cannot be stopped from %s, so it went on`, event)
}

func firstNonBlank(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// ParseToolTable reads the claude_tools: section of config.yaml (node may be nil): a mapping
// of this project's tool name to {name: <Claude Code's name>, args: {<ours>: <theirs>}},
// added to the default table. A bad entry is one warning and is skipped.
func ParseToolTable(file string, node *yaml.Node) (*ToolTable, []hookspec.Warning) {
	p := &parser{file: file}
	node = resolve(node)
	if isNull(node) {
		return DefaultTools, nil
	}
	if node.Kind != yaml.MappingNode {
		p.warn(node, "claude_tools: expected a mapping of tool name to {name: ClaudeName, args: {ours: theirs}}, got %s; using the default table", kindName(node))
		return DefaultTools, p.warns
	}
	extra := map[string]ClaudeTool{}
	for i := 0; i+1 < len(node.Content); i += 2 {
		k, v := node.Content[i], resolve(node.Content[i+1])
		where := "claude_tools." + k.Value
		var entry struct {
			Name string            `yaml:"name"`
			Args map[string]string `yaml:"args"`
		}
		if v.Kind != yaml.MappingNode || v.Decode(&entry) != nil || strings.TrimSpace(entry.Name) == "" {
			p.warn(v, "%s: expected {name: ClaudeName, args: {ours: theirs}} with a non-empty name; skipped", where)
			continue
		}
		for j := 0; j+1 < len(v.Content); j += 2 {
			if key := v.Content[j].Value; key != "name" && key != "args" {
				p.warn(v.Content[j], "%s: unknown key %q ignored (expected name and args)", where, key)
			}
		}
		extra[k.Value] = ClaudeTool{Name: strings.TrimSpace(entry.Name), Args: entry.Args}
	}
	return NewToolTable(extra), p.warns
}
