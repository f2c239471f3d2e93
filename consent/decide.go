package consent

import (
	"context"
	"io"
	"log/slog"
	"os"
)

// How a pair came to be approved, as Decide reports it.
const (
	ByAllowlist = "allowlist" // already in the allowlist (and, in pinned mode, unchanged)
	ByFlag      = "flag"      // --accept-hooks
	ByEnv       = "env"       // HERMES_ACCEPT_HOOKS
	ByConfig    = "config"    // hooks_auto_accept in config.yaml
	ByPrompt    = "prompt"    // the user answered yes
)

// Decider resolves the consent of shell hooks, in this order: already approved (Check under
// Mode); a bypass (AcceptFlag, then HERMES_ACCEPT_HOOKS, then ConfigAutoAccept), which
// approves and writes the approval; a prompt when Interactive; otherwise refused, with one
// warning saying how to approve. Its fields are read, never written, so one Decider may
// serve several goroutines; prompts from concurrent calls would interleave, so a caller
// that prompts decides one hook at a time.
type Decider struct {
	// Store is the allowlist. Required: with a nil Store every pair is refused.
	Store *Store
	// Mode is hooks_consent; the zero value is ModeCommand.
	Mode Mode
	// AcceptFlag is --accept-hooks.
	AcceptFlag bool
	// Getenv reads HERMES_ACCEPT_HOOKS; nil means os.Getenv.
	Getenv func(string) string
	// ConfigAutoAccept is hooks_auto_accept as decoded from YAML (see ConfigAccepts); nil
	// means absent.
	ConfigAutoAccept any
	// Interactive allows prompting; set it from IsTerminal(os.Stdin). False never prompts.
	Interactive bool
	// In is where answers are read; nil means os.Stdin.
	In io.Reader
	// Out is where the prompt is written; nil means os.Stderr.
	Out io.Writer
	// Logger receives the refusal warning and approval notes; nil discards them.
	Logger *slog.Logger
	// Blocks reports whether the host keeps a hook of event approved once whose files
	// changed since (Status.Drifted) as a guard that blocks every call it would match, for
	// the words of the warning; nil means none does (such a hook is skipped).
	Blocks func(event string) bool
}

// Decide reports whether (event, command) may be registered, and how it was approved: one
// of ByAllowlist, ByFlag, ByEnv, ByConfig, ByPrompt, or "" when refused. An approval by
// bypass or prompt that cannot be written still approves (the Store logs why it was not
// saved). ctx bounds the prompt and the wait for the allowlist's lock.
func (d *Decider) Decide(ctx context.Context, event, command string) (approved bool, how string) {
	return d.DecideTarget(ctx, Target{Event: event, Command: command})
}

// DecideTarget is Decide for t (see Store.CheckTarget): a line run by /bin/sh is approved
// with the files it runs, in its project; when it is refused, the warning says why when the
// reason is more than "never approved" (another project, a line that cannot be analysed,
// a pinned script that changed).
func (d *Decider) DecideTarget(ctx context.Context, t Target) (approved bool, how string) {
	event := t.Event
	logger := d.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logger = logger.With("event", event, "command", t.shown())
	if d.Store == nil {
		logger.Error(t.what() + " not registered: no allowlist store configured")
		return false, ""
	}
	st := d.Store.CheckTarget(t, d.Mode)
	if st.Approved {
		if st.ContentDrift {
			logger.Warn("approved "+t.what()+" has changed", "reason", st.Reason)
		} else if st.Reason != "" {
			logger.Debug("approved "+t.what()+" has drifted", "reason", st.Reason)
		}
		return true, ByAllowlist
	}
	if how := d.bypass(); how != "" {
		if st.Approval != nil {
			logger.Warn("re-approving a changed "+t.what()+" by bypass", "by", how, "reason", st.Reason)
		}
		d.Store.ApproveTarget(ctx, t) // a failed write is logged by the Store and still counts
		logger.Info(t.what()+" approved", "by", how)
		return true, how
	}
	if d.Interactive {
		if !d.prompt(ctx, event, t.shown(), st) {
			logger.Info(t.what() + " not approved at the prompt; not registered")
			return false, ""
		}
		d.Store.ApproveTarget(ctx, t)
		logger.Info(t.what()+" approved", "by", ByPrompt)
		return true, ByPrompt
	}
	if st.Drifted {
		what := t.what() + " changed since it was approved, so it is skipped (not registered) until it is approved again"
		if d.Blocks != nil && d.Blocks(event) {
			what = t.what() + " changed since it was approved, so it does not run, and blocks every call it would match until it is approved again"
		}
		logger.Warn(what+"; review it, then approve it with `"+allowHint(t, st.Project)+"`", "reason", st.Reason)
		return false, ""
	}
	var args []any
	if st.Approval != nil || st.Project != "" || st.Unanalysable != "" {
		args = append(args, "reason", st.Reason) // approved once or elsewhere, or a line approved only as a whole
	}
	logger.Warn(t.what()+" not approved, so not registered; approve it with `"+allowHint(t, st.Project)+
		"`, or run with --accept-hooks, HERMES_ACCEPT_HOOKS=1 or hooks_auto_accept: true in config.yaml", args...)
	return false, ""
}

// prompt asks the user about the pair, saying why when it was approved before (pinned drift).
func (d *Decider) prompt(ctx context.Context, event, command string, st Status) bool {
	in, out := d.In, d.Out
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = os.Stderr
	}
	note := ""
	switch {
	case st.Approval != nil || st.Unanalysable != "":
		note = st.Reason
	case st.Project != "":
		note = "this command runs files of the project " + st.Project + "; the approval is for this project only"
	}
	return prompt(ctx, in, out, event, command, note)
}

// bypass returns which bypass approves every hook, or "".
func (d *Decider) bypass() string {
	getenv := d.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	switch {
	case d.AcceptFlag:
		return ByFlag
	case EnvAccepts(getenv(EnvAcceptHooks)):
		return ByEnv
	case ConfigAccepts(d.ConfigAutoAccept):
		return ByConfig
	}
	return ""
}
