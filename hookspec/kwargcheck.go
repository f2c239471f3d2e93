package hookspec

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// The keys of a payload written by hand (hermesctl hooks test --payload-file) are checked
// against the kwargs of the hook, as the typed arguments of kwargs.go build them (the sample
// payloads of samples.go), so the check cannot drift from what hooks receive.

// KwargProblem is one key of a payload that the hook would not receive as written.
type KwargProblem struct {
	Key string // the key as written
	Msg string // what is wrong and what to write instead, one line
	// Extra is true for an unknown key that resembles none of the hook's: it may be a
	// kwarg of the host's own (§4.2: hooks ignore the keys they do not know), so it is
	// passed on. Every other problem is a mistake: the hook would not see what was meant.
	Extra bool
}

// otherNames maps keys other agents' hooks use (Claude Code, Codex, Gemini CLI) to the
// kwargs that hold the same thing here, the first one the hook has.
var otherNames = map[string][]string{
	"prompt":                 {"user_message"},
	"message":                {"user_message", "text"},
	"tool_input":             {"args"},
	"input":                  {"args"},
	"arguments":              {"args"},
	"tool_args":              {"args"},
	"tool":                   {"tool_name"},
	"tool_response":          {"result"},
	"tool_output":            {"result", "output"},
	"response":               {"assistant_response", "response_text"},
	"last_assistant_message": {"assistant_response", "response_text"},
	"model_response":         {"response_text"},
	"session":                {"session_id"},
	"sessionId":              {"session_id"},
}

// nullable are the kwargs that may be nil (JSON null): everything else has a value.
var nullable = map[string]bool{"session_id": true, "child_role": true, "subagent": true}

// kinds of values, as a payload file writes them.
const (
	kindString  = "a string"
	kindInteger = "an integer"
	kindNumber  = "a number"
	kindBool    = "true or false"
	kindTable   = "a table (a JSON object)"
	kindList    = "a list (a JSON array)"
	kindAny     = "any value"
)

// kwargKinds are the kwargs of a plugin hook, or the context keys of a gateway event, with
// the kind of each value; nil for a name that is neither or for a host's own event (whose
// keys the host decides).
func kwargKinds(event string) map[string]string {
	sample := SampleKwargs(event, "")
	if sample == nil && IsEvent(event) && (slices.Contains(knownEvents, event) || strings.HasPrefix(event, CommandPrefix)) {
		sample = SampleContext(event)
	}
	if sample == nil {
		return nil
	}
	kinds := make(map[string]string, len(sample))
	for k, v := range sample {
		kinds[k] = kindOf(v)
	}
	if event == hooknames.PreGatewayDispatch { // the host's objects
		kinds["gateway"], kinds["session_store"] = kindAny, kindAny
	}
	if event == hooknames.PreVerify { // nil for the agent itself: a subagent's is a table
		kinds["subagent"] = kindTable
	}
	return kinds
}

func kindOf(v any) string {
	switch v.(type) {
	case string:
		return kindString
	case int, int64:
		return kindInteger
	case float64:
		return kindNumber
	case bool:
		return kindBool
	case map[string]any:
		return kindTable
	case []any, []string, []Message:
		return kindList
	}
	return kindAny
}

// fits reports whether v, decoded from JSON, is of kind.
func fits(kind string, v any) bool {
	switch kind {
	case kindAny:
		return true
	case kindNumber:
		return kindOf(v) == kindNumber || kindOf(v) == kindInteger
	}
	return kindOf(v) == kind
}

// CheckKwargs checks a payload for event (a plugin hook or a gateway event) written by hand:
// each key must be one the hook receives (a key of another agent, `prompt`, names the one
// it stands for here: `user_message`; a misspelt one the closest) and each value of the kind
// the hook receives (`args` is a table). closest finds the nearest name for a did-you-mean
// ("" for none). The problems are sorted by key; none for an event whose keys are not
// known (a host's own).
func CheckKwargs(event string, payload map[string]any, closest func(name string, candidates []string) string) []KwargProblem {
	kinds := kwargKinds(event)
	if kinds == nil {
		return nil
	}
	keys := slices.Sorted(maps.Keys(kinds))
	var out []KwargProblem
	for _, k := range slices.Sorted(maps.Keys(payload)) {
		v := payload[k]
		kind, known := kinds[k]
		switch {
		case !known:
			msg, meant := unknownKwarg(event, k, keys, closest)
			out = append(out, KwargProblem{Key: k, Msg: msg, Extra: !meant})
		case v == nil && !nullable[k] && kind != kindAny: // the host's objects may be absent (None in the original)
			out = append(out, KwargProblem{Key: k, Msg: fmt.Sprintf("%q of %s must be %s, got null", k, event, kind)})
		case v != nil && !fits(kind, v):
			msg := fmt.Sprintf("%q of %s must be %s, got %s", k, event, kind, describe(v))
			if s, ok := v.(string); ok && k == "args" && kind == kindTable {
				msg += fmt.Sprintf("; e.g. \"args\": {\"command\": %s}", strconv.Quote(s))
			}
			out = append(out, KwargProblem{Key: k, Msg: msg})
		}
	}
	return out
}

// unknownKwarg describes an unknown key; meant reports whether it names the key meant.
func unknownKwarg(event, key string, keys []string, closest func(string, []string) string) (msg string, meant bool) {
	msg = fmt.Sprintf("unknown key %q for %s", key, event)
	for _, other := range otherNames[key] {
		if slices.Contains(keys, other) {
			return msg + fmt.Sprintf(", did you mean %q? (%s is another agent's name for it; keys: %s)", other, key, strings.Join(keys, ", ")), true
		}
	}
	if s := closest(key, keys); s != "" {
		return msg + fmt.Sprintf(", did you mean %q? (keys: %s)", s, strings.Join(keys, ", ")), true
	}
	return msg + fmt.Sprintf(": passed on as a kwarg of the host's own (keys: %s)", strings.Join(keys, ", ")), false
}

// describe names a JSON value's kind, with the value when it is short.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) <= 40 {
			return "the string " + strconv.Quote(x)
		}
		return "a string"
	case bool:
		return strconv.FormatBool(x)
	case int64, float64:
		return fmt.Sprint("the number ", x)
	}
	return kindOf(v)
}
