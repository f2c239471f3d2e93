package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"

	"github.com/hermes-hooks/hermes/hookspec"
)

// Line is one line of a transcript: one object with a "type".
type Line struct {
	Type string `json:"type"` // startup, message, llm, command, approval, subagent, compact, notification, prompt_reply, shutdown

	Platforms []string `json:"platforms,omitempty"` // startup
	// System and Tools (startup) are the system prompt and the tool definitions of every
	// request to the model, what pre_api_request and wrap_llm_call hooks see and rewrite.
	System string           `json:"system,omitempty"`
	Tools  []map[string]any `json:"tools,omitempty"`

	Platform  string `json:"platform,omitempty"` // message, command
	UserID    string `json:"user_id,omitempty"`
	ChatID    string `json:"chat_id,omitempty"`
	ChatType  string `json:"chat_type,omitempty"`
	MessageID string `json:"message_id,omitempty"`
	Text      string `json:"text,omitempty"` // message, prompt_reply, notification
	Internal  bool   `json:"internal,omitempty"`
	Name      string `json:"name,omitempty"` // command
	Args      string `json:"args,omitempty"`

	Model     string           `json:"model,omitempty"` // llm
	ToolCalls []TranscriptCall `json:"tool_calls,omitempty"`
	Response  *string          `json:"response,omitempty"`
	// Error (llm): the model call failed with this error (a wrap_llm_call hook may retry
	// or fall back: the next llm line answers the next call). A step a hook answers
	// without the model (pre_api_request's respond, a wrap hook that never calls next)
	// takes no llm line.
	Error string `json:"error,omitempty"`
	// Interrupted, on an llm line without tool calls or response: the user interrupted the
	// turn while the model was answering; the turn ends there.
	Interrupted bool `json:"interrupted,omitempty"`

	Command     string   `json:"command,omitempty"` // approval
	Description string   `json:"description,omitempty"`
	PatternKey  string   `json:"pattern_key,omitempty"`
	PatternKeys []string `json:"pattern_keys,omitempty"`
	Choice      string   `json:"choice,omitempty"`

	Role       string `json:"role,omitempty"`    // subagent: its type
	Summary    string `json:"summary,omitempty"` // subagent (its final answer), compact
	Status     string `json:"status,omitempty"`
	DurationMS int64  `json:"duration_ms,omitempty"`
	// AgentID names a subagent across its stops: the subagent lines that follow one a hook
	// kept going are its next stops. "" = the line's own subagent (or the one kept going).
	AgentID             string `json:"agent_id,omitempty"`
	AgentTranscriptPath string `json:"agent_transcript_path,omitempty"` // subagent: its own transcript

	Trigger      string `json:"trigger,omitempty"` // compact: "manual" or "auto"
	Instructions string `json:"instructions,omitempty"`

	Title            string `json:"title,omitempty"` // notification
	NotificationType string `json:"notification_type,omitempty"`

	N int `json:"-"` // line number in the file
}

// TranscriptCall is one recorded tool call of an llm line.
type TranscriptCall struct {
	ID         string         `json:"id"`
	Name       string         `json:"name"`
	Args       map[string]any `json:"args"`
	Result     string         `json:"result"`
	DurationMS int64          `json:"duration_ms"`
	// Error: the call failed with this error (post_tool_failure fires); Result is unused.
	Error string `json:"error,omitempty"`
	// Failures: the first runs of the call fail with these errors, in order, and the run
	// after them answers as above (a wrap_tool_call hook that retries sees them).
	Failures []string `json:"failures,omitempty"`
	// Interrupted: the user interrupted the call. It fails (post_tool_failure with
	// interrupted=true, Error or "interrupted by the user" its error), the step's later calls
	// do not run, and the turn ends interrupted (on_session_end with interrupted=true).
	Interrupted bool `json:"interrupted,omitempty"`
}

var lineTypes = []string{"startup", "message", "llm", "command", "approval", "subagent", "compact", "notification", "prompt_reply", "shutdown"}

// maxTranscriptLine bounds one transcript line.
const maxTranscriptLine = 4 << 20

// ParseTranscript reads a JSON-lines transcript. Blank lines are skipped; any other line
// that is not a known object is an error naming the file and line.
func ParseTranscript(name string, r io.Reader) ([]Line, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxTranscriptLine)
	var lines []Line
	for n := 1; sc.Scan(); n++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		var l Line
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, n, describeJSONError(err))
		}
		if !contains(lineTypes, l.Type) {
			return nil, fmt.Errorf("%s:%d: unknown type %q (want one of %s)", name, n, l.Type, strings.Join(lineTypes, ", "))
		}
		switch {
		case l.Type == "llm" && l.Interrupted && (l.Response != nil || len(l.ToolCalls) > 0 || l.Error != ""):
			return nil, fmt.Errorf("%s:%d: an interrupted llm line has no tool_calls, response or error (to interrupt a tool call, set its own \"interrupted\": true)", name, n)
		case l.Type == "llm" && l.Response == nil && len(l.ToolCalls) == 0 && l.Error == "" && !l.Interrupted:
			return nil, fmt.Errorf("%s:%d: an llm line needs tool_calls, a response or an error (or \"interrupted\": true)", name, n)
		}
		l.N = n
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return lines, nil
}

// describeJSONError says what a line holds wrong: a value of the wrong kind names the key
// and the kind expected (`"tool_calls.args" must be an object, got a string`), not Go types.
func describeJSONError(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Field == "" || te.Value == "" {
		return strings.TrimPrefix(err.Error(), "json: ")
	}
	want := "a " + te.Type.Kind().String()
	switch te.Type.Kind() {
	case reflect.Map, reflect.Struct:
		want = "an object"
	case reflect.Slice, reflect.Array:
		want = "an array"
	case reflect.Bool:
		want = "true or false"
	case reflect.String:
		want = "a string"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Float64:
		want = "a number"
	}
	got := "a " + te.Value
	if strings.ContainsAny(te.Value[:1], "aeiou") {
		got = "an " + te.Value
	}
	return fmt.Sprintf("%q must be %s, got %s", te.Field, want, got)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TranscriptAgent is an Agent that answers from a transcript: each Step takes the next
// llm line; tools return their recorded results; prompts (hermes.run_agent) are answered
// by prompt_reply lines in order, else with "[SILENT]".
type TranscriptAgent struct {
	lines []Line
	pos   int
	calls map[string]TranscriptCall
	runs  map[string]int // runs of each call so far (Failures)

	mu      sync.Mutex // guards replies (prompts come from hook workers) and runs
	replies []string
}

// NewTranscriptAgent prepares an agent for lines.
func NewTranscriptAgent(lines []Line) *TranscriptAgent {
	a := &TranscriptAgent{lines: lines, calls: map[string]TranscriptCall{}, runs: map[string]int{}}
	for _, l := range lines {
		if l.Type == "prompt_reply" {
			a.replies = append(a.replies, l.Text)
		}
	}
	return a
}

// Step returns the next llm line as a step.
func (a *TranscriptAgent) Step(_ context.Context, _ StepRequest) (Step, error) {
	if a.pos >= len(a.lines) || a.lines[a.pos].Type != "llm" {
		where := "end of transcript"
		if a.pos < len(a.lines) {
			where = fmt.Sprintf("line %d (%s)", a.lines[a.pos].N, a.lines[a.pos].Type)
		}
		return Step{}, fmt.Errorf("transcript: the agent needs an llm line, found %s", where)
	}
	l := a.lines[a.pos]
	a.pos++
	if l.Interrupted {
		return Step{}, interruption{fmt.Sprintf("the user interrupted the turn (line %d)", l.N)}
	}
	if l.Error != "" {
		return Step{}, errors.New(l.Error)
	}
	st := Step{Model: l.Model, Final: l.Response != nil}
	if l.Response != nil {
		st.Response = *l.Response
	}
	for _, c := range l.ToolCalls {
		a.calls[c.ID] = c
		st.ToolCalls = append(st.ToolCalls, hookspec.ToolCall{Name: c.Name, Args: c.Args, ToolCallID: c.ID, DurationMS: c.DurationMS})
	}
	return st, nil
}

// RunTool returns the recorded result of the call (after its Failures, one a run).
func (a *TranscriptAgent) RunTool(_ context.Context, call hookspec.ToolCall) (string, error) {
	c, ok := a.calls[call.ToolCallID]
	if !ok {
		return "", fmt.Errorf("transcript has no tool call %q", call.ToolCallID)
	}
	a.mu.Lock()
	n := a.runs[call.ToolCallID]
	a.runs[call.ToolCallID]++
	a.mu.Unlock()
	switch {
	case n < len(c.Failures):
		return "", errors.New(c.Failures[n])
	case c.Interrupted && c.Error != "":
		return "", interruption{c.Error}
	case c.Interrupted:
		return "", interruption{"interrupted by the user"}
	case c.Error != "":
		return "", errors.New(c.Error)
	}
	return c.Result, nil
}

// interruption is a recorded interruption by the user of a tool call or a turn. It is
// context.Canceled, as a host's cancelled call is: the engine reports the call interrupted
// and the runner ends the turn.
type interruption struct{ msg string }

func (e interruption) Error() string { return e.msg }

func (interruption) Is(target error) bool { return target == context.Canceled }

// Prompt answers a one-shot prompt with the next prompt_reply line, else "[SILENT]".
func (a *TranscriptAgent) Prompt(_ context.Context, _ string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.replies) == 0 {
		return "[SILENT]", nil
	}
	r := a.replies[0]
	a.replies = a.replies[1:]
	return r, nil
}

// nextApproval consumes the approval line that comes next, if one does: the answer of a
// person to a hook's ask during the turn being replayed.
func (a *TranscriptAgent) nextApproval() (Line, bool) {
	if a.pos >= len(a.lines) || a.lines[a.pos].Type != "approval" {
		return Line{}, false
	}
	l := a.lines[a.pos]
	a.pos++
	return l, true
}

// nextSubagent consumes the subagent line that comes next, if one does: the next stop of a
// subagent a hook kept going.
func (a *TranscriptAgent) nextSubagent() (Line, bool) {
	if a.pos >= len(a.lines) || a.lines[a.pos].Type != "subagent" {
		return Line{}, false
	}
	l := a.lines[a.pos]
	a.pos++
	return l, true
}

// next returns the next line that is not consumed by the agent, or false at the end.
func (a *TranscriptAgent) next() (Line, bool) {
	if a.pos >= len(a.lines) {
		return Line{}, false
	}
	l := a.lines[a.pos]
	a.pos++
	return l, true
}
