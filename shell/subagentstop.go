package shell

import (
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"gopkg.in/yaml.v3"
)

// A subagent about to stop is pre_verify too (SPEC §4.5), with the subagent named in its
// kwargs. Claude Code and Codex give it an event of its own, SubagentStop, with the Stop
// hook's answers: an entry with `subagent: true` is such a hook. It fires only for a
// subagent's pre_verify, its matcher compared with the subagent's type; an entry without it
// is a Stop hook and fires only for the agent's own. Gemini CLI has no subagent stop event.

// subagentStop is the name Claude Code and Codex give a subagent's pre_verify.
const subagentStop = "SubagentStop"

// eventName is dialect d's name of one firing of hook with kwargs: a subagent's pre_verify is
// SubagentStop, the agent's is Stop (AfterAgent in Gemini CLI).
func eventName(d, hook string, kwargs map[string]any) string {
	if hook == hooknames.PreVerify && d != DialectGemini && hookspec.SubagentOf(kwargs) != nil {
		return subagentStop
	}
	return dialectEvents(d)[hook]
}

// forSubagent reports whether the firing with kwargs is the one hook serves: on pre_verify, a
// hook of another agent serves a subagent about to stop (Subagent) or the agent itself,
// never both. Every other event is served as before.
func (h *Hook) forSubagent(kwargs map[string]any) bool {
	if h.Event != hooknames.PreVerify || h.Dialect == "" {
		return true
	}
	return h.Subagent == (hookspec.SubagentOf(kwargs) != nil)
}

// kind is a firing of the sort the hook serves, as far as its matcher is concerned: a
// subagent's pre_verify for a SubagentStop hook, nil otherwise.
func (h *Hook) kind() map[string]any {
	if h.Subagent {
		return map[string]any{"subagent": map[string]any{}}
	}
	return nil
}

// subagentField reads an entry's `subagent: true`: a SubagentStop hook. false when the
// entry is skipped: a value that is not a boolean, or a Gemini CLI hook (its agent has no
// such event), would leave it unclear which agent the hook guards.
func (p *parser) subagentField(h *Hook, where string, n *yaml.Node) bool {
	if isNull(n) {
		return true
	}
	var v bool
	switch {
	case n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&v) != nil:
		p.warn(n, "%s: subagent must be true or false, got %q; skipped (it is unclear whether the hook guards the agent or its subagents)", where, n.Value)
		return false
	case h.Dialect == "":
		p.warn(n, "%s: subagent is ignored: it belongs to hooks written for another agent (set dialect); this project's hooks get kw.subagent and fire for both", where)
		return true
	case h.Event != hooknames.PreVerify:
		p.warn(n, "%s: subagent is ignored: only pre_verify serves a subagent about to stop (SubagentStop)", where)
		return true
	case v && h.Dialect == DialectGemini:
		p.warn(n, "%s: Gemini CLI has no subagent stop event (its AfterAgent is the agent's own); skipped", where)
		return false
	}
	h.Subagent = v
	return true
}

// subagentPayload adds a SubagentStop payload's fields (Claude Code's and Codex's) to p.
func subagentPayload(kwargs, p map[string]any) {
	if s := hookspec.SubagentOf(kwargs); s != nil {
		p["agent_id"], p["agent_type"], p["agent_transcript_path"] = s.ID, s.Type, s.TranscriptPath
	}
}
