package server

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/shell"
)

// AnswerAgent fires the hooks of another agent's call and answers it as that agent reads
// its hooks: the one path of `hermesctl hook <agent>` and of the server's agent endpoints.
// A plugin that may serve the call but did not load fails it (failOpen: it is let through),
// since nobody knows what it would have decided.
func AnswerAgent(ctx context.Context, eng *engine.Engine, call *shell.AgentCall, failOpen bool, log *slog.Logger) shell.Reply {
	if len(call.Firings) == 0 {
		return shell.Reply{}
	}
	if why := brokenGuard(eng, call.Firings[0].Hook); why != "" {
		return call.Failed(why, failOpen)
	}
	answers := make([]hookspec.Answer, len(call.Firings))
	for i, f := range call.Firings {
		if f.Hook == hooknames.PreVerify {
			answers[i] = verifyAnswer(ctx, eng, call, f.Kwargs, log)
			continue
		}
		answers[i] = answerOf(eng.Fire(ctx, hookspec.HookNamed(f.Hook), f.Kwargs))
	}
	return call.Reply(answers)
}

// brokenGuard names a plugin of the home that failed to load and may have served hook (its
// manifest lists it, or could not be read).
func brokenGuard(eng *engine.Engine, hook string) string {
	for _, p := range eng.Plugins() {
		if p.Status == "error" && (len(p.Hooks) == 0 || slices.Contains(p.Hooks, hook)) {
			return fmt.Sprintf("plugin %s, which may serve %s, did not load: %s; fix it (`hermesctl hooks doctor`), or disable it in config.yaml", p.Name, hook, p.Error)
		}
	}
	return ""
}

// answerOf is a report's merged decision as one answer.
func answerOf(rep engine.Report) hookspec.Answer {
	d := rep.Decision
	a := hookspec.Answer{Kind: d.Kind, Message: d.Message, Text: d.Text, Args: d.Args, Remember: d.Remember, Output: d.Output}
	if b := rep.Block(); b != nil && a.Message == "" {
		a.Message = "blocked by hook " + b.Hook
	}
	return a
}

// NudgeNS is the store namespace of the nudge counts of Stop hooks: a process per call (or
// one of several replicas) cannot keep them, so they live in the home's store.
const NudgeNS = "hermes.nudges"

// verifyAnswer fires pre_verify with the number of times hooks kept this session (or
// subagent) going since the agent last stopped on its own, so max_verify_nudges holds across
// calls and processes. A count that cannot be read or kept lets the agent stop: going on is
// never the safe side.
func verifyAnswer(ctx context.Context, eng *engine.Engine, call *shell.AgentCall, kw map[string]any, log *slog.Logger) hookspec.Answer {
	str := func(k string) string { s, _ := kw[k].(string); return s }
	v := hookspec.Verify{SessionID: str("session_id"), UserMessage: str("user_message"), Response: str("response"),
		Model: str("model"), Platform: str("platform")}
	key := v.SessionID
	if s := hookspec.SubagentOf(kw); s != nil {
		v.Subagent, key = s, key+"/"+s.ID
	}
	b, err := eng.Store()
	if err != nil {
		log.Warn("pre_verify: the store that counts nudges cannot be opened; the agent stops", "error", err)
		return hookspec.Answer{}
	}
	if call.Nudged {
		raw, _, err := b.Get(ctx, NudgeNS, key)
		if err != nil {
			log.Warn("pre_verify: the nudge count cannot be read; the agent stops", "error", err)
			return hookspec.Answer{}
		}
		v.Nudges, _ = strconv.Atoi(string(raw))
	}
	d := eng.PreVerify(ctx, v)
	if !d.Continue {
		return hookspec.Answer{}
	}
	if err := b.Set(ctx, NudgeNS, key, []byte(strconv.Itoa(v.Nudges+1)), 24*time.Hour); err != nil {
		log.Warn("pre_verify: the nudge count cannot be kept; the agent stops", "error", err)
		return hookspec.Answer{}
	}
	return hookspec.Answer{Kind: hookspec.Continue, Message: d.Reason}
}
