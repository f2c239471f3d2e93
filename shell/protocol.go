package shell

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/hermes-hooks/hermes/hookspec"

	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/jsonvalue"
)

// DefaultBlockMessage is the message of a pre_tool_call block that carries no usable message.
var DefaultBlockMessage = hookspec.DefaultBlockMessage(hookspec.SourceShell)

// ErrMalformedOutput wraps every error of ParseOutput.
var ErrMalformedOutput = errors.New("shell: hook stdout is not valid JSON")

// payloadKeys are the kwargs promoted to top-level payload keys; the rest go to "extra".
var payloadKeys = map[string]bool{"tool_name": true, "args": true, "session_id": true, "parent_session_id": true}

// payload is the JSON document written to a hook's stdin; field order is wire order.
type payload struct {
	HookEventName string         `json:"hook_event_name"`
	ToolName      any            `json:"tool_name"`
	ToolInput     any            `json:"tool_input"`
	SessionID     string         `json:"session_id"`
	Cwd           string         `json:"cwd"`
	Extra         map[string]any `json:"extra"`
}

// BuildPayload renders the stdin document of one firing: exactly the keys
// hook_event_name, tool_name (null when absent), tool_input (the "args" kwarg when it is a mapping, else null),
// session_id (session_id, else parent_session_id, else ""), cwd and extra (every other kwarg).
// args that is not a mapping is sent as null.
// Values that cannot be encoded as JSON (functions, channels, cycles, NaN, host objects that fail
// to marshal) are replaced by strings, so it does not fail in practice; the error is kept for
// the encoder's sake. The document ends with a newline.
func BuildPayload(event string, kwargs map[string]any, cwd string) ([]byte, error) {
	w := &sanitizer{budget: maxSanitizeNodes}
	p := payload{
		HookEventName: event,
		ToolName:      w.value(kwargs["tool_name"], 0),
		ToolInput:     w.value(toolInput(kwargs["args"]), 0),
		SessionID:     firstString(kwargs["session_id"], kwargs["parent_session_id"]),
		Cwd:           cwd,
		Extra:         map[string]any{},
	}
	for k, v := range kwargs {
		if !payloadKeys[k] {
			p.Extra[k] = w.value(v, 0)
		}
	}
	return encodePayload(p)
}

// encodePayload renders a stdin document: JSON without HTML escaping, ending with a newline.
func encodePayload(p any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return nil, fmt.Errorf("shell: encode payload: %w", err)
	}
	return buf.Bytes(), nil
}

// toolInput is the args kwarg when it is a mapping, else nil: tool_input is always a JSON
// object or null, as the original sends it.
func toolInput(args any) any {
	if args == nil {
		return nil
	}
	if reflect.ValueOf(args).Kind() == reflect.Map {
		return args
	}
	return nil
}

// firstString returns the first value that renders as a non-empty string.
func firstString(vals ...any) string {
	for _, v := range vals {
		var s string
		switch x := v.(type) {
		case nil:
		case string:
			s = x
		default:
			s = fmt.Sprint(x)
		}
		if s != "" {
			return s
		}
	}
	return ""
}

// Limits of sanitizer: deeper or larger values are cut and replaced by a marker string.
const (
	maxSanitizeDepth = 64
	maxSanitizeNodes = 100_000
)

// sanitizer turns arbitrary Go values into values encoding/json always accepts.
type sanitizer struct {
	budget int
	path   []uintptr // maps, slices and pointers on the current path, for cycle detection
}

func (w *sanitizer) value(v any, depth int) any {
	w.budget--
	if w.budget < 0 {
		return "<truncated>"
	}
	if depth > maxSanitizeDepth {
		return "<too deep>"
	}
	switch x := v.(type) {
	case nil, bool, string, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, uintptr:
		return x
	case float64:
		return finite(x)
	case float32:
		return finite(float64(x))
	case json.Marshaler, encoding.TextMarshaler:
		return marshalOrString(x)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Map:
		return w.mapValue(rv, depth)
	case reflect.Slice, reflect.Array:
		return w.listValue(rv, depth)
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil
		}
		if rv.Kind() == reflect.Pointer && !w.enter(rv.Pointer()) {
			return "<cycle>"
		}
		defer w.leave(rv.Kind() == reflect.Pointer)
		return w.value(rv.Elem().Interface(), depth+1)
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return "<" + rv.Type().String() + ">"
	case reflect.Bool:
		return rv.Bool()
	case reflect.String:
		return rv.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint()
	case reflect.Float32, reflect.Float64:
		return finite(rv.Float())
	case reflect.Struct:
		return marshalOrString(v)
	}
	return fmt.Sprint(v) // complex numbers and anything new
}

func (w *sanitizer) mapValue(rv reflect.Value, depth int) any {
	if rv.IsNil() {
		return nil
	}
	if !w.enter(rv.Pointer()) {
		return "<cycle>"
	}
	defer w.leave(true)
	out := make(map[string]any, rv.Len())
	iter := rv.MapRange()
	for iter.Next() {
		k := iter.Key()
		key := fmt.Sprint(k.Interface())
		if k.Kind() == reflect.String {
			key = k.String()
		}
		out[key] = w.value(iter.Value().Interface(), depth+1)
	}
	return out
}

func (w *sanitizer) listValue(rv reflect.Value, depth int) any {
	if rv.Kind() == reflect.Slice {
		if rv.IsNil() {
			return nil
		}
		if rv.Len() > 0 && !w.enter(rv.Pointer()) {
			return "<cycle>"
		}
		defer w.leave(rv.Len() > 0)
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = w.value(rv.Index(i).Interface(), depth+1)
	}
	return out
}

// enter records p on the current path; false means p is already on it (a cycle).
func (w *sanitizer) enter(p uintptr) bool {
	for _, q := range w.path {
		if q == p {
			return false
		}
	}
	w.path = append(w.path, p)
	return true
}

func (w *sanitizer) leave(entered bool) {
	if entered {
		w.path = w.path[:len(w.path)-1]
	}
}

// finite keeps f, or renders NaN and infinities (which JSON cannot hold) as strings.
func finite(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return f
}

// marshalOrString encodes v with encoding/json, or falls back to its fmt rendering when v
// cannot be encoded (or its MarshalJSON panics).
func marshalOrString(v any) (out any) {
	defer func() {
		if recover() != nil {
			out = fmt.Sprintf("<%T>", v)
		}
	}()
	b, err := json.Marshal(v)
	if err != nil || !json.Valid(b) {
		return fmt.Sprint(v)
	}
	return json.RawMessage(b)
}

// ParseOutput decodes a hook's stdout for event. parsed is the decoded JSON value (nil for
// empty or blank output and for JSON null); answer is what it asks for, read by
// hookspec.Normalise with the same rules as a Lua callback's return value, with
// DefaultBlockMessage for a block that carries no usable message.
//
// ParseOutput reads the seed's wire protocol (SPEC §5.2): a pre_llm_call block
// ({"action": "block"}, SPEC §4.5) is not in it, and the engine reads it on top.
//
// err (wrapping ErrMalformedOutput) is set when stdout is not exactly one JSON value; JSON
// in no accepted shape is no error, only no effect. Numbers decode as int64 when integral,
// else float64.
func ParseOutput(event string, stdout []byte) (parsed any, answer hookspec.Answer, err error) {
	parsed, answer, err = parseOutput(event, stdout)
	if err != nil {
		return nil, hookspec.Answer{}, fmt.Errorf("%w: %w", ErrMalformedOutput, err)
	}
	return parsed, answer, nil
}

// parseOutput is ParseOutput with the decoder's error unwrapped.
func parseOutput(event string, stdout []byte) (parsed any, answer hookspec.Answer, err error) {
	parsed, err = decodeOutput(stdout)
	if err != nil {
		return nil, hookspec.Answer{}, err
	}
	return parsed, answerOf(event, parsed), nil
}

// answerOf reads a decoded answer: hookspec.Normalise, with DefaultBlockMessage for a block
// that carries no usable message.
func answerOf(event string, parsed any) hookspec.Answer {
	answer := hookspec.Normalise(event, parsed)
	if event == hooknames.PreLLMCall && answer.Kind == hookspec.Block {
		return hookspec.Answer{} // the seed's protocol: read by the engine (SPEC §4.5)
	}
	if answer.Kind == hookspec.Block && strings.TrimSpace(answer.Message) == "" {
		answer.Message = DefaultBlockMessage
	}
	return answer
}

// RequestIDKey frames the lines of a persistent hook: each payload line carries it first, and
// an answer object that carries it must carry the same value (docs/shell-hooks.md).
const RequestIDKey = "request_id"

// withRequestID returns a payload document with "request_id": id as its first key, so that a
// script finds it before any text of the payload. id must need no escaping in JSON.
func withRequestID(payload []byte, id string) []byte {
	out := make([]byte, 0, len(payload)+len(id)+len(RequestIDKey)+6)
	out = append(out, `{"`+RequestIDKey+`":"`...)
	out = append(out, id...)
	out = append(out, '"')
	if rest := bytes.TrimLeft(payload[1:], " \t\r\n"); len(rest) > 0 && rest[0] != '}' {
		out = append(out, ',')
	}
	return append(out, payload[1:]...)
}

// takeRequestID removes request_id from a decoded answer object: id is its value and has
// whether there was one. An answer that is not an object has none.
func takeRequestID(parsed any) (id any, has bool) {
	obj, ok := parsed.(map[string]any)
	if !ok {
		return nil, false
	}
	id, has = obj[RequestIDKey]
	delete(obj, RequestIDKey)
	return id, has
}

// unexpected reports whether stdout held JSON that is neither an object nor an accepted
// answer (a bare number, a list): a hook that meant something else.
func unexpected(parsed any, answer hookspec.Answer) bool {
	_, isObj := parsed.(map[string]any)
	return parsed != nil && !isObj && answer.Kind == hookspec.None
}

// decodeAnswer is decodeOutput of the answer line to request id: the answer that carries the
// id and nothing else, what a hook that lets the call through usually prints, is recognised
// without a JSON decoder (FuzzDecodeAnswer holds the two to the same value). id needs no
// escaping in JSON.
func decodeAnswer(line []byte, id string) (any, error) {
	const head, tail = `{"` + RequestIDKey + `":"`, `"}`
	b := bytes.TrimSpace(line)
	if len(b) == len(head)+len(id)+len(tail) && string(b[:len(head)]) == head &&
		string(b[len(head):len(head)+len(id)]) == id && string(b[len(head)+len(id):]) == tail {
		return map[string]any{RequestIDKey: id}, nil
	}
	return decodeOutput(line)
}

// decodeOutput decodes exactly one JSON value from b; blank input is nil.
func decodeOutput(b []byte) (any, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil, nil
	}
	return jsonvalue.Decode(b)
}

// blockAnswer is a pre_tool_call block.
func blockAnswer(msg string) hookspec.Answer {
	return hookspec.Answer{Kind: hookspec.Block, Message: msg}
}
