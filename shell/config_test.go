package shell

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/hermes-hooks/hermes/hookspec"
)

var testEvents = []string{
	"pre_tool_call", "post_tool_call", "transform_tool_result", "transform_terminal_output",
	"pre_llm_call", "post_llm_call", "transform_llm_output", "pre_api_request", "post_api_request",
	"on_session_start", "on_session_end", "on_session_finalize", "on_session_reset",
	"subagent_stop", "pre_gateway_dispatch", "pre_approval_request", "post_approval_response",
}

// hooksNode parses a config.yaml text and returns the value of its hooks: key (nil if absent).
func hooksNode(t *testing.T, text string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatalf("bad test YAML: %v", err)
	}
	if len(doc.Content) == 0 {
		return nil
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "hooks" {
			return root.Content[i+1]
		}
	}
	return nil
}

// hookView is the comparable part of a Hook.
type hookView struct {
	Event, Matcher, Command string
	Argv                    []string
	Timeout                 time.Duration
	FailClosed              bool
	Line                    int
}

func view(hs []*Hook) []hookView {
	var out []hookView
	for _, h := range hs {
		out = append(out, hookView{h.Event, h.Matcher, h.Command, h.Argv, h.Timeout, h.FailClosed, h.Line})
	}
	return out
}

func TestParseHooks(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	const sec = time.Second
	tests := []struct {
		name  string
		yaml  string
		want  []hookView
		warns []string // one substring per expected warning, in order
	}{
		{
			name: "valid entries keep config order",
			yaml: `
hooks:
  pre_tool_call:
    - matcher: " terminal|file "
      command: "~/hooks/block.sh --strict"
      timeout: 10
      fail_closed: true
  post_llm_call:
    - command: /bin/log
`,
			want: []hookView{
				{"pre_tool_call", "terminal|file", "~/hooks/block.sh --strict", []string{"/home/u/hooks/block.sh", "--strict"}, 10 * sec, true, 4},
				{"post_llm_call", "", "/bin/log", []string{"/bin/log"}, 60 * sec, false, 9},
			},
		},
		{
			name:  "misspelt event suggests the right one",
			yaml:  "hooks:\n  pre_tools_call:\n    - command: x\n",
			warns: []string{`unknown event "pre_tools_call", did you mean 'pre_tool_call'?`},
		},
		{
			name:  "unknown event lists valid events",
			yaml:  "hooks:\n  zzzzzz:\n    - command: x\n",
			warns: []string{"valid events: pre_tool_call, post_tool_call"},
		},
		{
			name:  "missing command",
			yaml:  "hooks:\n  pre_tool_call:\n    - matcher: terminal\n    - command: \"  \"\n    - command: 42\n",
			warns: []string{"[0]: missing a non-empty string 'command'", "[1]: missing", "[2]: missing"},
		},
		{
			name:  "event value not a list",
			yaml:  "hooks:\n  pre_tool_call:\n    command: x\n",
			warns: []string{"hooks.pre_tool_call: expected a list of hooks, got a mapping"},
		},
		{
			name: "empty event value is no problem",
			yaml: "hooks:\n  pre_tool_call:\n",
		},
		{
			name:  "entry not a mapping",
			yaml:  "hooks:\n  on_session_start:\n    - /bin/true\n",
			warns: []string{`hooks.on_session_start[0]: expected a mapping with a 'command' key, got the string "/bin/true"`},
		},
		{
			name:  "hooks not a mapping",
			yaml:  "hooks: [1]\n",
			warns: []string{"hooks: expected a mapping"},
		},
		{
			name: "timeouts",
			yaml: `
hooks:
  on_session_start:
    - {command: a, timeout: thirty}
    - {command: b, timeout: 9999}
    - {command: c, timeout: 0}
    - {command: d, timeout: 1.5}
    - {command: e, timeout: "30"}
    - {command: f, timeout: 300}
`,
			want: []hookView{
				{"on_session_start", "", "a", []string{"a"}, 60 * sec, false, 4},
				{"on_session_start", "", "b", []string{"b"}, 300 * sec, false, 5},
				{"on_session_start", "", "c", []string{"c"}, 60 * sec, false, 6},
				{"on_session_start", "", "d", []string{"d"}, 60 * sec, false, 7},
				{"on_session_start", "", "e", []string{"e"}, 30 * sec, false, 8},
				{"on_session_start", "", "f", []string{"f"}, 300 * sec, false, 9},
			},
			warns: []string{
				`timeout must be a whole number of seconds, got "thirty"; using 60`,
				"timeout 9999 exceeds the maximum of 300 seconds; using 300",
				"timeout must be at least 1 second, got 0; using 60",
				`timeout must be a whole number of seconds, got "1.5"`,
			},
		},
		{
			name: "matcher on pre_llm_call is dropped, entry kept",
			yaml: "hooks:\n  pre_llm_call:\n    - {matcher: terminal, command: ctx.sh}\n",
			want: []hookView{
				{"pre_llm_call", "", "ctx.sh", []string{"ctx.sh"}, 60 * sec, false, 3},
			},
			warns: []string{`matcher "terminal" is ignored`},
		},
		{
			name: "invalid regex falls back to literal",
			yaml: "hooks:\n  post_tool_call:\n    - {matcher: \"file(\", command: x}\n",
			want: []hookView{
				{"post_tool_call", "file(", "x", []string{"x"}, 60 * sec, false, 3},
			},
			warns: []string{`matcher "file(" is not a valid regular expression`},
		},
		{
			name: "duplicates register once",
			yaml: `
hooks:
  pre_tool_call:
    - {matcher: terminal, command: x.sh}
    - {matcher: " terminal ", command: x.sh}
    - {matcher: file, command: x.sh}
  post_tool_call:
    - {matcher: terminal, command: x.sh}
`,
			want: []hookView{
				{"pre_tool_call", "terminal", "x.sh", []string{"x.sh"}, 60 * sec, false, 4},
				{"pre_tool_call", "file", "x.sh", []string{"x.sh"}, 60 * sec, false, 6},
				{"post_tool_call", "terminal", "x.sh", []string{"x.sh"}, 60 * sec, false, 8},
			},
			warns: []string{"duplicate of the hook on line 4"},
		},
		{
			name: "fail_closed outside pre_tool_call",
			yaml: "hooks:\n  post_tool_call:\n    - {command: x, fail_closed: true}\n    - {command: y, fail_closed: false}\n",
			want: []hookView{
				{"post_tool_call", "", "x", []string{"x"}, 60 * sec, false, 3},
				{"post_tool_call", "", "y", []string{"y"}, 60 * sec, false, 4},
			},
			warns: []string{"fail_closed is ignored: it only applies to pre_tool_call"},
		},
		{
			name: "fail_closed not a boolean",
			yaml: "hooks:\n  pre_tool_call:\n    - {command: x, fail_closed: maybe}\n",
			want: []hookView{
				{"pre_tool_call", "", "x", []string{"x"}, 60 * sec, false, 3},
			},
			warns: []string{`fail_closed must be true or false, got "maybe"`},
		},
		{
			name: "fail_closed a quoted yes",
			yaml: "hooks:\n  pre_tool_call:\n    - {command: x, fail_closed: \"yes\"}\n",
			want: []hookView{
				{"pre_tool_call", "", "x", []string{"x"}, 60 * sec, false, 3},
			},
			warns: []string{`fail_closed must be true or false, got "yes"; using false (fail open)`},
		},
		{
			name:  "unterminated quote",
			yaml:  "hooks:\n  pre_tool_call:\n    - command: \"run 'oops\"\n",
			warns: []string{"cannot split command \"run 'oops\": shell: unterminated quote"},
		},
		{
			name: "hash word is kept and reported",
			yaml: "hooks:\n  pre_tool_call:\n    - command: \"tag.sh #1 a#b\"\n",
			want: []hookView{
				{"pre_tool_call", "", "tag.sh #1 a#b", []string{"tag.sh", "#1", "a#b"}, 60 * sec, false, 3},
			},
			warns: []string{`word "#1" of the command starts with '#'`},
		},
		{
			name: "unknown keys are ignored, typos hinted",
			yaml: "hooks:\n  pre_tool_call:\n    - {command: x, description: d, timout: 5}\n",
			want: []hookView{
				{"pre_tool_call", "", "x", []string{"x"}, 60 * sec, false, 3},
			},
			warns: []string{`unknown key "timout" ignored, did you mean 'timeout'?`},
		},
		{
			name: "aliases are followed",
			yaml: "common: &c {command: x}\nhooks:\n  on_session_end:\n    - *c\n",
			want: []hookView{{"on_session_end", "", "x", []string{"x"}, 60 * sec, false, 1}},
		},
		{name: "no hooks key", yaml: "other: 1\n"},
		{name: "null hooks", yaml: "hooks:\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hooks, warns := ParseHooks("config.yaml", hooksNode(t, tt.yaml), testEvents)
			if diff := cmp.Diff(tt.want, view(hooks)); diff != "" {
				t.Errorf("hooks (-want +got):\n%s", diff)
			}
			if len(warns) != len(tt.warns) {
				t.Fatalf("got %d warnings %q, want %d", len(warns), warns, len(tt.warns))
			}
			for i, w := range warns {
				if !strings.Contains(w.Msg, tt.warns[i]) {
					t.Errorf("warning %d = %q, want it to contain %q", i, w.Msg, tt.warns[i])
				}
				if w.File != "config.yaml" || w.Line == 0 {
					t.Errorf("warning %d has position %s:%d, want config.yaml and a line", i, w.File, w.Line)
				}
			}
		})
	}
}

func TestWarningString(t *testing.T) {
	tests := []struct {
		w    hookspec.Warning
		want string
	}{
		{hookspec.Warning{File: "config.yaml", Line: 3, Msg: "bad"}, "config.yaml:3: bad"},
		{hookspec.Warning{File: "config.yaml", Msg: "bad"}, "config.yaml: bad"},
		{hookspec.Warning{Msg: "bad"}, "bad"},
	}
	for _, tt := range tests {
		if got := tt.w.String(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}
