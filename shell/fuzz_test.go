package shell

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func FuzzParseOutput(f *testing.F) {
	for _, s := range []string{
		"", "{}", "not json", "[1, 2]", `{"decision":"allow"}`,
		`{"action":"block","message":"no"}`, `{"decision":"block","reason":"r"}`,
		`{"context":"c"}`, `{"result":""}`, `{"action":"rewrite","text":"t"}`, `{"n": 1e999}`, `{} {}`,
	} {
		for _, ev := range []string{"pre_tool_call", "pre_llm_call", "transform_tool_result", "pre_gateway_dispatch", "post_llm_call"} {
			f.Add(ev, []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, event string, stdout []byte) {
		parsed, answer, err := ParseOutput(event, stdout)
		value := value(answer)
		if err != nil {
			if !errors.Is(err, ErrMalformedOutput) || parsed != nil || value != nil {
				t.Fatalf("err %v with parsed %v value %v", err, parsed, value)
			}
			return
		}
		if _, isString := parsed.(string); value != nil && !isString {
			if _, ok := parsed.(map[string]any); !ok {
				t.Fatalf("value %v from a non-object %v", value, parsed)
			}
		}
		if event == "pre_tool_call" && value != nil {
			m := value.(map[string]any)
			msg, _ := m["message"].(string)
			c, isContext := m["context"].(string)
			if (m["action"] != "block" || msg == "") && (!isContext || strings.TrimSpace(c) == "") {
				t.Fatalf("pre_tool_call value %v is neither a block with a message nor a context", value)
			}
		}
	})
}

func FuzzSplitCommand(f *testing.F) {
	for _, s := range []string{
		"/bin/echo hi", `"a b" 'c d' e\ f`, "~/x ~ '~'", "hook.sh #c a#b", `"\d" "\"" '\'`,
		"run 'oops", `x \`, "a\\\nb", "", "\t\n", "\xff\xfe #",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		r, err := resolveCommand(cmd, "")
		argv := r.Argv
		if err != nil {
			if argv != nil {
				t.Fatalf("argv %q with error %v", argv, err)
			}
			return
		}
		if len(argv) == 0 {
			t.Fatalf("no words and no error for %q", cmd)
		}
		if len(r.HashWords) > len(argv) {
			t.Fatalf("%d hash words for %d words", len(r.HashWords), len(argv))
		}
		// Quoting every word and splitting again gives the same words back.
		quoted := make([]string, len(argv))
		for i, w := range argv {
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		again, err := SplitCommand(strings.Join(quoted, " "))
		if err != nil || !slices.Equal(again, argv) {
			t.Fatalf("round trip of %q: got %q, %v", argv, again, err)
		}
	})
}

// decodeAnswer's fast path for an answer that carries its request_id and nothing else gives
// what decodeOutput gives, for every line and id a hook could meet.
func FuzzDecodeAnswer(f *testing.F) {
	for _, s := range []string{
		`{"request_id":"7-ABCDEFGHJKMN"}`, ` {"request_id":"7-ABCDEFGHJKMN"} ` + "\r", `{"request_id": "7-ABCDEFGHJKMN"}`,
		`{"request_id":"7-ABCDEFGHJKMN","decision":"block"}`, `{"request_id":"7-ABCDEFGHJKMO"}`, `{"request_id":"7-ABCDEFGHJKM\u004e"}`,
		`{"request_id":"7-ABCDEFGHJKMN"}{}`, `{"request_id":"7-ABCDEFGHJKMN"`, `{}`, ``, `null`,
	} {
		f.Add([]byte(s), "7-ABCDEFGHJKMN")
	}
	f.Fuzz(func(t *testing.T, line []byte, id string) {
		if strings.ContainsAny(id, "\"\\") || strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == utf8.RuneError }) {
			t.Skip("a request id needs no escaping in JSON")
		}
		fast, ferr := decodeAnswer(line, id)
		plain, perr := decodeOutput(line)
		if (ferr == nil) != (perr == nil) || !reflect.DeepEqual(fast, plain) {
			t.Fatalf("%q for %q: decodeAnswer %#v, %v; decodeOutput %#v, %v", line, id, fast, ferr, plain, perr)
		}
	})
}
