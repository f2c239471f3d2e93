package shell

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/jsonvalue"
)

// An agent's command hook served by this engine (`hermesctl hook <agent>`): the payload
// Claude Code, Codex or Gemini CLI writes on a command hook's stdin is read into the
// kwargs of our hooks, and our decision is written back as that agent reads a command
// hook's answer. The tables are the ones that run hooks written for those agents here
// (claudeEvents, codexEvents, geminiEvents and the tool tables), read the other way.

// Firing is one of our hooks fired for an agent's event.
type Firing struct {
	Hook   string
	Kwargs map[string]any
}

// AgentCall is one call of an agent's command hook, read from its payload.
type AgentCall struct {
	Dialect string
	Event   string // the agent's name of the event (hook_event_name)
	Cwd     string
	// Firings are our hooks for the event, in order: the first decides (its answer is the
	// agent's answer); the others observe. Empty when no hook of ours serves the event.
	Firings []Firing
	// Nudged (Stop, SubagentStop): the agent already goes on because a Stop hook said so.
	Nudged bool

	tools *ToolTable
	// tool and input are the call's tool and input in the agent's names (tool events).
	tool  string
	input map[string]any
}

// MaxAgentPayload bounds what a command hook reads from its agent.
const MaxAgentPayload = 16 << 20

// ReadAgentCall reads the payload an agent of dialect d wrote on its command hook's stdin.
// tools maps tool names (nil: d's default table).
func ReadAgentCall(d string, payload []byte, tools *ToolTable) (*AgentCall, error) {
	if d != DialectClaude && d != DialectCodex && d != DialectGemini {
		return nil, fmt.Errorf("unknown agent %q (expected claude, codex or gemini)", d)
	}
	if tools == nil {
		tools = dialectTools(d)
	}
	v, err := jsonvalue.Decode(payload)
	if err != nil {
		return nil, fmt.Errorf("the payload on stdin is not JSON: %v", err)
	}
	p, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the payload on stdin is not a JSON object")
	}
	c := &AgentCall{Dialect: d, Event: str(p, "hook_event_name"), Cwd: str(p, "cwd"), tools: tools}
	if c.Event == "" {
		return nil, fmt.Errorf("the payload has no hook_event_name: is this command run as %s's hook?", agentName(d))
	}
	base := agentBase{session: str(p, "session_id"), model: str(p, "model"), platform: agentPlatform(d)}
	switch c.Event {
	case dialectEvents(d)[hooknames.PreToolCall], dialectEvents(d)[hooknames.PostToolCall], dialectEvents(d)[hooknames.PostToolFailure]:
		c.toolFirings(p, base)
	case dialectEvents(d)[hooknames.PreApprovalRequest]:
		c.tool, c.input = str(p, "tool_name"), object(p, "tool_input")
		if ours, _ := c.ours(c.tool, c.input); ours == "terminal" {
			c.fire(hooknames.PreApprovalRequest, hookspec.Approval{Command: str(c.input, "command"),
				Description: str(c.input, "description"), SessionKey: base.session, Surface: agentPlatform(d)}.Kwargs(false))
		}
	case "Stop", "SubagentStop", "AfterAgent":
		c.verifyFirings(p, base)
	default:
		c.otherFirings(p, base)
	}
	return c, nil
}

// agentBase is what every firing of a call shares.
type agentBase struct{ session, model, platform string }

// toolFirings reads a tool event: PreToolUse, PostToolUse and PostToolUseFailure (and
// their names in d). Codex's apply_patch is one call of ours for each file it changes.
func (c *AgentCall) toolFirings(p map[string]any, base agentBase) {
	c.tool, c.input = str(p, "tool_name"), object(p, "tool_input")
	for _, call := range c.ourCalls() {
		call.SessionID, call.ToolCallID = base.session, str(p, "tool_use_id")
		switch c.Event {
		case dialectEvents(c.Dialect)[hooknames.PreToolCall]:
			c.fire(hooknames.PreToolCall, call.Kwargs(false))
		case dialectEvents(c.Dialect)[hooknames.PostToolCall]:
			call.Result = agentResult(c.tool, p["tool_response"])
			call.DurationMS = int64(number(p, "duration_ms"))
			c.fire(hooknames.PostToolCall, call.Kwargs(true))
		default:
			c.fire(hooknames.PostToolFailure, hookspec.ToolFailure{Call: call, Error: str(p, "error"), Interrupted: p["is_interrupt"] == true}.Kwargs())
		}
	}
}

// verifyFirings reads Stop and SubagentStop (Gemini CLI's AfterAgent): pre_verify, and for a
// subagent also subagent_stop.
func (c *AgentCall) verifyFirings(p map[string]any, base agentBase) {
	c.Nudged = p["stop_hook_active"] == true
	v := hookspec.Verify{SessionID: base.session, Response: str(p, "last_assistant_message"), Model: base.model, Platform: base.platform}
	if c.Dialect == DialectGemini {
		v.UserMessage, v.Response = str(p, "prompt"), str(p, "prompt_response")
	}
	if c.Event == "SubagentStop" {
		v.Subagent = &hookspec.VerifySubagent{ID: str(p, "agent_id"), Type: str(p, "agent_type"), TranscriptPath: str(p, "agent_transcript_path")}
	}
	c.fire(hooknames.PreVerify, v.Kwargs())
	if v.Subagent != nil {
		c.fire(hooknames.SubagentStop, hookspec.Subagent{ParentSessionID: base.session, Role: v.Subagent.Type,
			Summary: v.Response, Status: "completed"}.Kwargs())
	}
}

// otherFirings reads the events that are not about a tool call or a stop.
func (c *AgentCall) otherFirings(p map[string]any, base agentBase) {
	s := hookspec.Session{SessionID: base.session, Model: base.model, Platform: base.platform}
	ev := dialectEvents(c.Dialect)
	switch c.Event {
	case ev[hooknames.PreLLMCall]:
		c.fire(hooknames.PreLLMCall, hookspec.LLMTurn{SessionID: s.SessionID, UserMessage: str(p, "prompt"),
			IsFirstTurn: false, Model: s.Model, Platform: s.Platform}.PreKwargs())
	case ev[hooknames.OnSessionStart]:
		c.fire(hooknames.OnSessionStart, s.StartKwargs())
	case "SessionEnd": // Claude Code's and Gemini CLI's: the session is over
		c.fire(hooknames.OnSessionEnd, hookspec.SessionResult{Session: s, Completed: true}.Kwargs())
		c.fire(hooknames.OnSessionFinalize, s.RefKwargs())
	case "Interrupt": // Codex's: the user interrupted the turn
		c.fire(hooknames.OnSessionEnd, hookspec.SessionResult{Session: s, Interrupted: true}.Kwargs())
	case ev[hooknames.PreCompact]:
		c.fire(hooknames.PreCompact, hookspec.Compaction{SessionID: s.SessionID, Trigger: str(p, "trigger"),
			Instructions: str(p, "custom_instructions"), Platform: s.Platform}.PreKwargs())
	case ev[hooknames.PostCompact]:
		c.fire(hooknames.PostCompact, hookspec.Compaction{SessionID: s.SessionID, Trigger: str(p, "trigger"),
			Summary: str(p, "compact_summary"), Platform: s.Platform}.PostKwargs())
	case ev[hooknames.OnNotification]:
		c.fire(hooknames.OnNotification, hookspec.Notification{SessionID: s.SessionID, Message: str(p, "message"),
			Title: str(p, "title"), Type: firstString(p["notification_type"], p["type"]), Platform: s.Platform}.Kwargs())
	}
}

func (c *AgentCall) fire(hook string, kw map[string]any) {
	c.Firings = append(c.Firings, Firing{Hook: hook, Kwargs: kw})
}

// ours is our name and arguments of the agent's tool call.
func (c *AgentCall) ours(tool string, input map[string]any) (string, map[string]any) {
	for name, t := range c.tools.ours {
		if t.Name == tool && t.encode == nil {
			return name, c.tools.FromClaude(name, input)
		}
	}
	return tool, input
}

// ourCalls are our tool calls for the agent's: one, or for a patch of Codex's apply_patch
// one for each file it adds (write_file) or changes (patch).
func (c *AgentCall) ourCalls() []hookspec.ToolCall {
	if c.Dialect == DialectCodex && c.tool == "apply_patch" {
		if calls := patchCalls(str(c.input, "command")); len(calls) > 0 {
			return calls
		}
	}
	name, args := c.ours(c.tool, c.input)
	return []hookspec.ToolCall{{Name: name, Args: args}}
}

// patchCalls reads a patch in Codex's format: each "*** Add File: p" is a write_file of its
// added lines, each "*** Update File: p" a patch of its removed and added lines, each
// "*** Delete File: p" a patch that removes p. Nil when it holds no file.
func patchCalls(patch string) []hookspec.ToolCall {
	var calls []hookspec.ToolCall
	var old, added []string
	flush := func() {
		if n := len(calls); n > 0 {
			a := calls[n-1].Args
			if calls[n-1].Name == "write_file" {
				a["content"] = strings.Join(added, "\n") + "\n"
			} else if a["delete"] != true {
				a["old_string"], a["new_string"] = strings.Join(old, "\n"), strings.Join(added, "\n")
			}
		}
		old, added = nil, nil
	}
	for _, line := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(line, "*** Add File: "):
			flush()
			calls = append(calls, hookspec.ToolCall{Name: "write_file", Args: map[string]any{"path": strings.TrimPrefix(line, "*** Add File: ")}})
		case strings.HasPrefix(line, "*** Update File: "):
			flush()
			calls = append(calls, hookspec.ToolCall{Name: "patch", Args: map[string]any{"path": strings.TrimPrefix(line, "*** Update File: ")}})
		case strings.HasPrefix(line, "*** Delete File: "):
			flush()
			calls = append(calls, hookspec.ToolCall{Name: "patch", Args: map[string]any{"path": strings.TrimPrefix(line, "*** Delete File: "), "delete": true}})
		case strings.HasPrefix(line, "*** Move to: ") && len(calls) > 0:
			calls[len(calls)-1].Args["move_to"] = strings.TrimPrefix(line, "*** Move to: ")
		case strings.HasPrefix(line, "***"), strings.HasPrefix(line, "@@"):
		case strings.HasPrefix(line, "+"):
			added = append(added, line[1:])
		case strings.HasPrefix(line, "-"):
			old = append(old, line[1:])
		}
	}
	flush()
	return calls
}

// agentResult is a tool's response as our result: a string as it is; Gemini CLI's
// {llmContent, ...} its llmContent; Claude Code's Bash {stdout, stderr, ...} ours
// ({"output": ..., ...}, its own fields kept); any other value its JSON.
func agentResult(tool string, resp any) string {
	switch r := resp.(type) {
	case nil:
		return ""
	case string:
		return r
	case map[string]any:
		if s, ok := r["llmContent"].(string); ok {
			return s
		}
		if s, ok := r["stdout"].(string); ok && tool == "Bash" {
			out := make(map[string]any, len(r)+1)
			for k, v := range r {
				out[k] = v
			}
			out["output"] = s
			resp = out
		}
	}
	b, err := encodePayload(resp)
	if err != nil {
		return fmt.Sprint(resp)
	}
	return strings.TrimSuffix(string(b), "\n")
}

// CallsAgentHook is the agent a command line runs `hermesctl hook <agent>` for ("" when it
// does not): the entry `hermesctl hook install` writes, which an import must not bring back
// as a hook of the home it serves.
func CallsAgentHook(line string) string {
	words := strings.Fields(line)
	for i, w := range words {
		if !strings.HasPrefix(path.Base(strings.Trim(w, `'"`)), "hermesctl") {
			continue
		}
		for j := i + 1; j+1 < len(words); j++ {
			if words[j] == "hook" && slices.Contains(Dialects, words[j+1]) {
				return words[j+1]
			}
		}
		return ""
	}
	return ""
}

// agentPlatform is the platform kwarg of an agent's calls.
func agentPlatform(d string) string {
	switch d {
	case DialectCodex:
		return "codex"
	case DialectGemini:
		return "gemini-cli"
	}
	return "claude-code"
}

// dialectTools is the default tool table of dialect d.
func dialectTools(d string) *ToolTable {
	switch d {
	case DialectCodex:
		return codexTools
	case DialectGemini:
		return geminiTools
	}
	return DefaultTools
}

func str(m map[string]any, k string) string { s, _ := m[k].(string); return s }

func object(m map[string]any, k string) map[string]any {
	o, _ := m[k].(map[string]any)
	if o == nil {
		return map[string]any{}
	}
	return o
}

func number(m map[string]any, k string) float64 {
	switch n := m[k].(type) {
	case float64:
		return n
	case int64:
		return float64(n)
	case int:
		return float64(n)
	}
	return 0
}
