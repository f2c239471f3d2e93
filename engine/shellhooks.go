package engine

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/hermes-hooks/hermes/consent"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/command"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/netguard"
	"github.com/hermes-hooks/hermes/shell"
)

// ShellHookInfo describes one shell hook declared in config.yaml and its consent.
type ShellHookInfo struct {
	Event      string  `json:"event"`
	Matcher    string  `json:"matcher,omitempty"`
	Command    string  `json:"command"`
	Timeout    float64 `json:"timeout_s"`
	FailClosed bool    `json:"fail_closed"`
	Dialect    string  `json:"dialect,omitempty"` // "claude" for a hook written for Claude Code
	Type       string  `json:"type,omitempty"`    // "http" for a hook that POSTs to Command, its URL
	Line       int     `json:"line"`
	// File is the config.yaml that declares it; Layer is LayerManaged or LayerUser.
	File  string `json:"file"`
	Layer string `json:"layer"`
	// Refused says why the managed policy refuses the hook ("" = it does not).
	Refused string `json:"refused,omitempty"`
	// WorkDir is the directory a hook written for another agent runs in (its project);
	// "" for the host's working directory.
	WorkDir string `json:"work_dir,omitempty"`
	If      string `json:"if,omitempty"`    // its if condition, in Claude Code's permission-rule syntax
	Async   bool   `json:"async,omitempty"` // it runs in the background; its answer is ignored
	// Subagent: a pre_verify hook of another agent that serves its subagents about to stop
	// (SubagentStop), not the agent itself (Stop).
	Subagent bool `json:"subagent,omitempty"`

	// Registered reports whether this engine fires the hook.
	Registered bool `json:"registered"`
	// ApprovedBy says how consent was given ("allowlist", "flag", "env", "config",
	// "prompt"), "" when it was not, and "ignored" when consent was not asked for.
	ApprovedBy string `json:"approved_by"`
	// Consent is the allowlist's view of the pair, under the configured mode.
	Consent consent.Status `json:"consent"`
	// Blocking reports that the hook was approved but what it runs changed since
	// (Consent.Drifted) and, on a point that can block, it is registered in its place as a
	// guard that does not run it and blocks every call it would match, saying how to
	// approve it again. Registered is false: the hook itself does not run.
	Blocking bool `json:"blocking,omitempty"`

	hook *shell.Hook
	cb   callback // nil when not registered
	key  shellKey // as loaded
}

// shellKey is what makes two declarations of a shell hook the same hook: the same entry,
// and for a persistent hook, whose process runs the script as it was when it started, the
// same script content.
type shellKey struct {
	event, matcher, command string
	timeout                 time.Duration
	failClosed, persistent  bool
	instances               int
	script                  string // SHA-256 of a persistent hook's script
	dialect, tools          string // a Claude Code hook's dialect and tool table
	dialected               string // the settings of a hook written for another agent
	layer                   string
	http                    string // a type: http hook's target, headers and limits
}

func keyOf(h *shell.Hook, tools *shell.ToolTable) shellKey {
	k := shellKey{h.Event, h.Matcher, h.Command, h.Timeout, h.FailClosed, h.Persistent, h.Instances, "", h.Dialect, "", "", "", ""}
	if h.HTTP != nil {
		k.http = fmt.Sprintf("%v", *h.HTTP)
	}
	if h.Dialect != "" {
		k.tools, k.dialected = tools.String(), h.Dialected.Key()
	}
	if h.Persistent {
		if r, err := command.Resolve(h.Command, ""); err == nil && r.ScriptFile != "" {
			_, k.script, _ = consent.Fingerprint(r.ScriptFile)
		}
	}
	return k
}

// DriftBlocks reports what the engine does with this hook when it was approved but what
// it runs changed since (Consent.Drifted): true on a point that can block, where it blocks
// every call it would match until approved again; false elsewhere, where it is skipped.
func (i *ShellHookInfo) DriftBlocks() bool { return hooknames.CanBlock(i.Event) }

// Hook is the parsed hook, for tools that run it directly (doctor).
func (i *ShellHookInfo) Hook() *shell.Hook { return i.hook }

type loadedShellHook struct {
	info *ShellHookInfo
	cb   callback // nil when not registered
}

// loadShellHooks parses the hooks: of config.yaml and decides each one's consent. A hook
// registered in prev and declared the same way again is kept as it runs (a persistent
// hook keeps its process).
//
// layer is LayerManaged or LayerUser. A managed hook needs no consent (an administrator
// installed it); a user hook the policy refuses is not registered, and consent is not asked.
func (e *Engine) loadShellHooks(ctx context.Context, cfg *config, prev *hookSet, layer string, policy *Policy) ([]loadedShellHook, []hookspec.Warning) {
	if cfg == nil {
		return nil, nil
	}
	tools, toolWarns := shell.ParseToolTable(cfg.file, cfg.claudeTools)
	node, warns := e.shellHooksNode(cfg)
	hooks, shellWarns := shell.ParseHooksWith(cfg.file, node, hookNames, tools)
	for _, w := range append(toolWarns, shellWarns...) {
		warns = append(warns, hookspec.Warning{File: w.File, Line: w.Line, Msg: w.Msg})
	}
	if e.opts.Fires != nil { // the host never fires the others: their consent is not decided
		hooks = slices.DeleteFunc(hooks, func(h *shell.Hook) bool { return !slices.Contains(e.opts.Fires, hookspec.HookNamed(h.Event)) })
	}
	if len(hooks) == 0 {
		return nil, warns
	}
	l, err := e.newShellLoad(cfg, layer, policy, tools)
	if err != nil {
		warns = append(warns, hookspec.Warning{File: cfg.file, Msg: err.Error()})
	}
	if prev != nil {
		for _, info := range prev.shell {
			if info.Registered {
				l.running[info.key] = info
			}
		}
	}
	out := make([]loadedShellHook, 0, len(hooks))
	for _, h := range hooks {
		out = append(out, e.loadShellHook(ctx, l, h))
	}
	return out, warns
}

// shellLoad is what deciding the shell hooks of one layer of config.yaml takes.
type shellLoad struct {
	file    string // config.yaml
	layer   string // LayerManaged or LayerUser
	policy  *Policy
	tools   *shell.ToolTable
	mode    consent.Mode
	store   *consent.Store
	decider *consent.Decider
	running map[shellKey]*ShellHookInfo // registered in the previous set
}

// newShellLoad opens the allowlist and sets up the consent decisions for cfg's shell hooks.
// An invalid hooks_consent: is its error, and the default mode is used.
func (e *Engine) newShellLoad(cfg *config, layer string, policy *Policy, tools *shell.ToolTable) (*shellLoad, error) {
	mode, err := consent.ParseMode(cfg.consentMode)
	storeLogger := e.loadLog.Logger
	if e.opts.IgnoreConsent {
		storeLogger = slog.New(slog.DiscardHandler) // nothing is decided: the file's state is reported, not warned about
	}
	store := consent.Open(consent.DefaultPath(e.home), storeLogger)
	decider := &consent.Decider{
		Store: store, Mode: mode, AcceptFlag: e.opts.AcceptHooks, Getenv: getenv(e.opts.Getenv),
		ConfigAutoAccept: cfg.autoAccept, Logger: e.loadLog.Logger, Blocks: hooknames.CanBlock,
	}
	if p := e.opts.Prompt; p != nil {
		decider.Interactive, decider.In, decider.Out = true, p.In, p.Out
	}
	return &shellLoad{file: cfg.file, layer: layer, policy: policy, tools: tools, mode: mode, store: store,
		decider: decider, running: map[shellKey]*ShellHookInfo{}}, err
}

// loadShellHook decides whether h runs (policy, layer, consent) and makes its callback, or
// keeps the one running in the previous set when h is declared the same way.
func (e *Engine) loadShellHook(ctx context.Context, l *shellLoad, h *shell.Hook) loadedShellHook {
	info := &ShellHookInfo{
		Event: h.Event, Matcher: h.Matcher, Command: h.Command, Timeout: h.Timeout.Seconds(),
		FailClosed: h.FailClosed, Dialect: h.Dialect, Type: h.Type, Line: h.Line, hook: h,
		File: l.file, Layer: l.layer, WorkDir: h.WorkDir(), If: h.If, Async: h.Async || h.AsyncRewake, Subagent: h.Subagent,
	}
	if l.layer == LayerUser {
		info.Refused = l.policy.refuses(h.Type, h.Command)
	}
	target := consent.Target{Event: h.Event, Command: h.Command, Shell: h.Dialect != "" && h.Type == "" && len(h.Args) == 0,
		URL: h.Type == shell.TypeHTTP, Dir: info.WorkDir, Dialect: h.Dialect}
	switch {
	case info.Refused != "":
		info.ApprovedBy = ""
		e.loadLog.Warn(fmt.Sprintf("%s:%d: %s hook %q not registered: %s", l.file, h.Line, h.Event, metricName(h), info.Refused))
	case l.layer == LayerManaged:
		info.Registered, info.ApprovedBy = true, LayerManaged
	case e.opts.IgnoreConsent:
		info.Registered, info.ApprovedBy = true, "ignored"
	default:
		info.Registered, info.ApprovedBy = l.decider.DecideTarget(ctx, target)
	}
	info.Consent = l.store.CheckTarget(target, l.mode)
	info.key = keyOf(h, l.tools)
	info.key.layer = l.layer
	if h.Type == shell.TypeHTTP { // the policy's URLs are part of how it runs
		info.key.http += fmt.Sprintf("|%q", l.policy.allowedURLs())
	}
	out := loadedShellHook{info: info}
	if old := l.running[info.key]; info.Registered && old != nil {
		info.hook, out.cb = old.hook, old.cb
	} else if info.Registered {
		out.cb = &shellCallback{hook: h, logger: e.logger, metrics: e.opts.Metrics.forHook(hookspec.SourceShell, metricName(h), h.Event), stop: e.stop,
			allowedURLs: l.policy.allowedURLs(), bg: &e.bg, cwd: e.workDir, rewake: func(sid, text string) { e.starts.put(sid, text, e.logger) }}
	}
	if !info.Registered && info.ApprovedBy == "" && info.Refused == "" && info.Consent.Drifted && hooknames.CanBlock(h.Event) {
		info.Blocking = true
		out.cb = &driftedCallback{hook: h, cwd: e.workDir, message: driftMessage(h, info.Consent),
			metrics: e.opts.Metrics.forHook(hookspec.SourceShell, metricName(h), h.Event)}
	}
	info.cb = out.cb
	return out
}

// driftMessage is why a drifted guard fails, for the operator: which hook, why, and the
// command that approves it again (in the reason), which names files of the host. The
// model is told only driftBlock.
func driftMessage(h *shell.Hook, st consent.Status) string {
	return fmt.Sprintf("shell hook %q is not run: it was approved, but %s", metricName(h), st.Reason)
}

// driftBlock is what a drifted guard answers: which hook, and that it needs approving.
func driftBlock(h *shell.Hook) string {
	return fmt.Sprintf("blocked: shell hook %q needs approval again", metricName(h))
}

// driftedCallback stands for a guard whose files changed since it was approved: it runs
// nothing and refuses every call the hook would have been started for (its matcher and if
// condition), so that the guard never silently vanishes.
type driftedCallback struct {
	hook    *shell.Hook
	cwd     func() string
	message string
	metrics *hookMetrics
}

func (c *driftedCallback) stats() *hookMetrics { return c.metrics }

func (c *driftedCallback) fire(_ context.Context, hook string, kw args, _ bool, _ map[string]any, r *hookspec.Result) {
	name := metricName(c.hook)
	if !c.hook.Selects(kw.Map(), shell.RunOptions{Cwd: c.cwd()}) {
		*r = hookspec.Result{Source: hookspec.SourceShell, Name: name, Status: hookspec.StatusSkipped}
		c.metrics.observe(r.Status, 0)
		return
	}
	*r = hookspec.Failed(hookspec.SourceShell, name, hookspec.StatusError, c.message, 0)
	r.Answer = refuseWith(hook, driftBlock(c.hook))
	c.metrics.observe(r.Status, 0)
}

// shellCallback fires one shell hook.
type shellCallback struct {
	hook    *shell.Hook
	logger  *slog.Logger
	metrics *hookMetrics
	stop    context.Context // the engine's: done when Close stops waiting for calls
	warns   warnLimiter
	// allowedURLs are the managed policy's allowed_http_urls for a type: http hook.
	allowedURLs []string
	bg          *background                  // where async hooks run
	cwd         func() string                // the engine's workDir: where the hook runs
	rewake      func(sessionID, text string) // an asyncRewake hook's exit 2: its stderr for the session's next turn
}

func (c *shellCallback) stats() *hookMetrics { return c.metrics }

func (c *shellCallback) fire(ctx context.Context, hook string, kw args, _ bool, _ map[string]any, r *hookspec.Result) { // it always times itself
	*r = c.run(ctx, hook, kw)
}

// run runs the hook and returns its result.
func (c *shellCallback) run(ctx context.Context, hook string, kw args) hookspec.Result {
	if c.hook.Async || c.hook.AsyncRewake {
		return c.fireAsync(ctx, hook, kw)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(c.stop, func() { cancel(context.Cause(c.stop)) })()
	res := c.hook.Run(ctx, kw.Map(), shell.RunOptions{Logger: c.logger, AllowedURLs: c.allowedURLs, Cwd: c.cwd()})
	r := hookspec.Result{
		Source: hookspec.SourceShell, Name: metricName(c.hook), Status: res.Status, Result: res.Parsed, Answer: res.Answer,
		Err: res.Err, Duration: res.Duration, Wait: res.Wait, StatusMessage: c.hook.StatusMessage,
	}
	if hook == hooknames.PreLLMCall && c.hook.Dialect == "" && res.Status == hookspec.StatusOK && r.Answer.Kind == hookspec.None {
		r.Answer = promptBlock(res.Parsed)
	}
	// Output that does nothing where it surely meant something is an error, as from a Lua
	// hook, even when an exit code 2 or fail_closed has already made it a block.
	if res.Status == hookspec.StatusOK && res.Parsed != nil && c.hook.Dialect == "" && hookspec.Normalise(hook, res.Parsed).Kind == hookspec.None {
		if err := unanswered(hook, res.Parsed, fmt.Sprintf("shell hook %q: ", metricName(c.hook))); err != nil {
			r.Status, r.Err = hookspec.StatusError, joinErrs(r.Err, err.Error())
			if c.hook.FailClosed && hook == hooknames.PreToolCall && r.Answer.Kind == hookspec.None {
				r.Answer = hookspec.Answer{Kind: hookspec.Block, Message: fmt.Sprintf("shell hook %q failed closed: its answer does nothing", metricName(c.hook))}
			}
		}
	}
	if res.Answer.Kind == hookspec.Ask && res.Status == hookspec.StatusOK { // the ask stands; a mistake in it is reported
		if p := hookspec.AskProblem(hook, res.Parsed); p != "" {
			r.Status, r.Err = hookspec.StatusError, joinErrs(r.Err, fmt.Sprintf("shell hook %q: %s", metricName(c.hook), p))
		}
	}
	if res.Status != hookspec.StatusSkipped {
		r.ExitCode, r.Stdout, r.Stderr = &res.ExitCode, &res.Stdout, &res.Stderr
		if c.hook.Type == shell.TypeHTTP { // no process: the answer's body is its stdout
			r.ExitCode, r.Stderr = nil, nil
		}
	}
	if r.Err != "" {
		c.warns.warn(c.logger, r.Err, "hook", hook, "status", r.Status.String())
	}
	c.metrics.observe(r.Status, r.Duration)
	if c.hook.Persistent { // only a persistent hook's firings wait, for a free co-process
		c.metrics.observeWait(r.Status, r.Wait)
	}
	return r
}

// joinErrs joins two problems of one call.
func joinErrs(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// promptBlock is a shell hook's block of a prompt (pre_llm_call's {"action": "block"},
// SPEC §4.5), which the seed's wire protocol (shell.ParseOutput) does not read: the engine
// honours it as it does a Lua plugin's. Any other answer is None.
func promptBlock(parsed any) hookspec.Answer {
	a := hookspec.Normalise(hooknames.PreLLMCall, parsed)
	if a.Kind != hookspec.Block {
		return hookspec.Answer{}
	}
	if strings.TrimSpace(a.Message) == "" {
		a.Message = shell.DefaultBlockMessage
	}
	return a
}

// metricName is a shell hook's name in metrics: its command, or its URL without secrets.
func metricName(h *shell.Hook) string {
	if h.Type == shell.TypeHTTP {
		return netguard.RedactURL(h.Command)
	}
	return h.Command
}
