package shell

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"gopkg.in/yaml.v3"
)

// `hooks import codex` and `hooks import gemini`: the settings of Codex (hooks.json, or the
// [hooks] tables of config.toml) and of Gemini CLI (settings.json) read like Claude Code's,
// with each agent's own events, fields and units.

// importEventsOf maps dialect d's events to the hooks they serve.
func importEventsOf(d string) map[string]string {
	if d == DialectClaude {
		return importEvents
	}
	out := map[string]string{}
	for hook, ev := range dialectEvents(d) {
		out[ev] = hook
	}
	if out[subagentStop] != "" { // like Stop, for a subagent (subagentstop.go)
		out[subagentStop] = hooknames.PreVerify
	}
	return out
}

// importHook is the hook an imported hook of dialect d's event ev serves.
func importHook(d, ev string) (string, bool) {
	h, ok := importEventsOf(d)[ev]
	return h, ok
}

// mappedEventsOf lists dialect d's events that map to a hook here, sorted.
func mappedEventsOf(d string) []string { return slices.Sorted(maps.Keys(importEventsOf(d))) }

// whyNotOther says why events of Codex and Gemini CLI that map to no hook cannot be imported.
var whyNotOther = map[string]map[string]string{
	DialectCodex: {
		"SubagentStart": "the start of a subagent is not a moment the agent here tells hooks about (a subagent about to stop is: SubagentStop maps to pre_verify)",
		"StopFailure":   "a turn that ends on an API error is not a moment the agent here tells hooks about",
		"SessionEnd":    "Codex has no SessionEnd; its Interrupt maps to on_session_end",
	},
	DialectGemini: {
		"BeforeModel":         "model-request hooks (rewriting the request to the model, a synthetic response) are pre_api_request's modify and respond here, but Gemini's request and response shapes are not translated to this engine's: write the hook for pre_api_request (docs/events.md); not mapped",
		"AfterModel":          "model-response hooks (rewriting each response chunk) have no moment here: a wrap_llm_call hook sees the whole response (docs/events.md); not mapped",
		"BeforeToolSelection": "choosing the tools offered to the model is pre_api_request's modify of request.tools here, in this engine's request shape, not Gemini's: write the hook for pre_api_request; not mapped",
	},
}

// whyNotIn says why dialect d's event ev cannot be imported ("" when nothing specific).
func whyNotIn(d, ev string) string {
	if d == DialectClaude {
		return whyNot[ev]
	}
	return whyNotOther[d][ev]
}

// other reads the fields of a Codex or Gemini CLI hook into e (the command is read).
func (imp *ClaudeImport) other(e *ImportEntry, h *yaml.Node, note func(string)) {
	str := func(k string) string {
		if v := mapValue(h, k); v != nil && v.Kind == yaml.ScalarNode {
			return v.Value
		}
		return ""
	}
	e.StatusMessage = str("statusMessage")
	if e.Dialect == DialectGemini {
		e.StatusMessage = firstNonBlank(str("description"), str("name"))
	}
	t := mapValue(h, "timeout")
	if t == nil {
		imp.Entries = append(imp.Entries, *e)
		return
	}
	n, err := strconv.ParseFloat(t.Value, 64)
	unit, unitName := 1.0, "s"
	if e.Dialect == DialectGemini { // Gemini CLI's timeouts are milliseconds
		unit, unitName = 1000, "ms"
	}
	secs := n / unit
	switch {
	case err != nil || n <= 0:
		note(fmt.Sprintf("timeout %q is not a positive number (%s); the default (%d s) applies", t.Value, unitName, int(DefaultTimeout.Seconds())))
	case secs > MaxTimeout.Seconds():
		e.Timeout = int(MaxTimeout.Seconds())
		note(fmt.Sprintf("timeout %s %s is over this engine's maximum; %d s", t.Value, unitName, e.Timeout))
	default:
		e.Timeout = max(1, int(math.Ceil(secs)))
	}
	imp.Entries = append(imp.Entries, *e)
}

// ReadCodexHooks reads Codex's hooks: a hooks.json (Claude Code's shape), or a config.toml
// whose [[hooks.<Event>]] tables hold them (notes name the lines of the TOML file).
func ReadCodexHooks(file string, data []byte, opts ImportOptions) (ClaudeImport, error) {
	opts.Dialect = DialectCodex
	if !strings.HasSuffix(file, ".toml") {
		return ReadClaudeSettingsWith(file, data, opts)
	}
	var doc map[string]any
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return ClaudeImport{}, fmt.Errorf("%s: not valid TOML: %v", file, err)
	}
	hooks, ok := doc["hooks"].(map[string]any)
	if !ok {
		return ClaudeImport{}, fmt.Errorf("%s: no [hooks] table: nothing to import", file)
	}
	delete(hooks, "managed_dir") // a setting of the table, not an event
	js, err := json.Marshal(map[string]any{"hooks": hooks})
	if err != nil {
		return ClaudeImport{}, fmt.Errorf("%s: %v", file, err)
	}
	opts.lineOf = tomlLines(string(data))
	return ReadClaudeSettingsWith(file, js, opts)
}

// ReadGeminiSettings reads the hooks object of a Gemini CLI settings.json.
func ReadGeminiSettings(file string, data []byte, opts ImportOptions) (ClaudeImport, error) {
	opts.Dialect = DialectGemini
	return ReadClaudeSettingsWith(file, data, opts)
}

var tomlHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\[\[\s*hooks\.([A-Za-z]+)(\.hooks)?\s*\]\]`) })

// tomlLines finds the lines of the [[hooks.<Event>]] and [[hooks.<Event>.hooks]] tables of
// a config.toml: the n-th group of an event, and the n-th hook of that group.
func tomlLines(text string) func(event string, group, hook int) int {
	type key struct {
		ev          string
		group, hook int
	}
	lines := map[key]int{}
	groups, hooksIn := map[string]int{}, map[key]int{}
	for i, l := range strings.Split(text, "\n") {
		m := tomlHeader().FindStringSubmatch(l)
		if m == nil {
			continue
		}
		ev := m[1]
		if m[2] == "" {
			lines[key{ev, groups[ev], -1}] = i + 1
			if _, ok := lines[key{ev, -1, -1}]; !ok {
				lines[key{ev, -1, -1}] = i + 1
			}
			groups[ev]++
			continue
		}
		g := groups[ev] - 1
		lines[key{ev, g, hooksIn[key{ev, g, 0}]}] = i + 1
		hooksIn[key{ev, g, 0}]++
	}
	return func(ev string, group, hook int) int {
		for _, k := range []key{{ev, group, hook}, {ev, group, -1}, {ev, -1, -1}} {
			if l, ok := lines[k]; ok {
				return l
			}
		}
		return 1
	}
}
