package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/hermes-hooks/hermes/consent"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/gatewayhook"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/shell"
)

// Python plugins and gateway hooks (SPEC §5.8): a plugin directory holding __init__.py
// instead of handler.lua, a gateway hook directory holding handler.py, run unchanged by a
// persistent Python co-process (shell.NewPython). They are not sandboxed, so they are
// consented like shell hooks: the pair is ("python", the directory), and the approval pins
// every .py file of the directory (consent.Target.Files). In pinned mode a co-process does
// not start on files that changed since approval, and a plugin whose files changed
// registers, in its place, a guard on the points it can block.

// PythonConsentEvent is the event of a Python hook's consent pair: `hermesctl hooks allow
// python <directory>` approves it.
const PythonConsentEvent = "python"

// Python manifests.
const (
	pythonEntryPlugin   = "__init__.py"
	pythonEntryGateway  = "handler.py"
	defaultPythonMemory = 1 << 30 // RLIMIT_AS: Python maps much more than it uses
	maxPythonFiles      = 1000
)

// Runtimes of a plugin (PluginInfo.Runtime).
const (
	RuntimeLua    = "lua"
	RuntimePython = "python"
)

// pythonCode are the endings of the files Python imports code from.
var pythonCode = []string{".py", ".pyc", ".so", ".pyd"}

// pythonFiles lists the files under dir that Python may load as code (sources, sourceless
// bytecode, extension modules: pythonCode), sorted, without __pycache__ (whose bytecode the
// co-process never reads) and hidden directories; at most maxPythonFiles.
func pythonFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && (d.Name() == "__pycache__" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && slices.ContainsFunc(pythonCode, func(ext string) bool { return strings.HasSuffix(d.Name(), ext) }) {
			if len(files) == maxPythonFiles {
				return fmt.Errorf("more than %d files of Python code", maxPythonFiles)
			}
			files = append(files, p)
		}
		return nil
	})
	slices.Sort(files)
	return files, err
}

// pythonSources reads the .py files of a Python hook's directory into d (for its sum), when
// the directory has entry.
func (d *dirFiles) readPython(entry string) {
	p := filepath.Join(d.dir, entry)
	if _, err := os.Lstat(p); err != nil {
		return
	}
	d.pyEntry = p
	files, err := pythonFiles(d.dir)
	d.pyFiles, d.pyErr = files, err
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil && d.pyErr == nil {
			d.pyErr = err
		}
		d.pyData = append(d.pyData, []byte(f), b)
	}
}

// registerCall finds ctx.register_hook("name", ...) in Python source, to know the points a
// plugin guards without running it.
var registerCall = regexp.MustCompile(`register_hook\(\s*["']([A-Za-z_:*]+)["']`)

// registeredNames are the hook names the .py files register literally (found in their
// text, not run), in order of appearance.
func registeredNames(files []string) []string {
	var names []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, m := range registerCall.FindAllSubmatch(b, -1) {
			if n := string(m[1]); !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

// guardedPoints are the points that can block that the .py files register; pre_tool_call
// when they name none literally (a guard is assumed).
func guardedPoints(files []string) []string {
	names := registeredNames(files)
	if len(names) == 0 {
		return []string{hooknames.PreToolCall}
	}
	return slices.DeleteFunc(names, func(n string) bool { return !hooknames.CanBlock(n) })
}

// PythonTarget is the consent target of the Python hook in dir: the pair
// (PythonConsentEvent, dir made absolute), pinning every .py file under it (without
// __pycache__ and hidden directories).
func PythonTarget(dir string) (consent.Target, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return consent.Target{}, err
	}
	files, err := pythonFiles(abs)
	if files == nil {
		files = []string{}
	}
	return consent.Target{Event: PythonConsentEvent, Command: abs, Files: files, What: "python hook"}, err
}

// pythonConsent decides whether the Python hook in d may run, as a shell hook's consent is
// decided (l.consent nil: the managed layer, which needs none). It returns the target, the
// status, how it was approved ("" = not), and, for a pinned mode, the check a co-process
// must pass before it starts.
func (e *Engine) pythonConsent(ctx context.Context, l pluginLayer, d *dirFiles) (consent.Status, string, func() error) {
	if l.consent == nil {
		return consent.Status{Approved: true}, LayerManaged, nil
	}
	target, err := PythonTarget(d.dir)
	if err != nil {
		return consent.Status{Reason: err.Error()}, "", nil
	}
	st := l.consent.store.CheckTarget(target, l.consent.mode)
	if e.opts.IgnoreConsent { // listing: an unapproved plugin is not imported either
		if st.Approved {
			return st, "ignored", nil
		}
		return st, "", nil
	}
	ok, how := l.consent.decider.DecideTarget(ctx, target)
	if !ok {
		return st, "", nil
	}
	st = l.consent.store.CheckTarget(target, l.consent.mode)
	var check func() error
	if l.consent.mode == consent.ModePinned {
		store, dir := l.consent.store, d.dir
		check = func() error {
			t, err := PythonTarget(dir)
			if err != nil {
				return err
			}
			if st := store.CheckTarget(t, consent.ModePinned); !st.Approved {
				return errors.New(st.Reason)
			}
			return nil
		}
	}
	return st, how, check
}

// loadPythonPlugin loads the Python plugin of d, whose manifest filled info.
func (e *Engine) loadPythonPlugin(ctx context.Context, d *dirFiles, l pluginLayer, info *PluginInfo, warns []hookspec.Warning) (*plugin, *PluginInfo, []hookspec.Warning) {
	info.Runtime = RuntimePython
	if !info.memorySet {
		info.Memory = defaultPythonMemory
	}
	fail := func(w hookspec.Warning) (*plugin, *PluginInfo, []hookspec.Warning) {
		info.Status, info.Error = "error", w.String()
		return nil, info, append(warns, w)
	}
	if d.herr == nil {
		return fail(hookspec.Warning{File: d.pyEntry, Line: 1, Msg: "the directory holds both handler.lua and __init__.py: a plugin is written in Lua or in Python; move one of them out"})
	}
	if d.pyErr != nil {
		return fail(hookspec.Warning{File: d.dir, Msg: "cannot read its .py files: " + d.pyErr.Error()})
	}
	if why := l.policy.refuses("", pythonCommand(d.dir)); l.layer == LayerUser && why != "" {
		return fail(hookspec.Warning{File: d.pyEntry, Msg: "python plugin not loaded: " + why})
	}
	st, how, check := e.pythonConsent(ctx, l, d)
	info.Consent, info.ApprovedBy = &st, how
	if how == "" {
		info.Status, info.Error = "unapproved", strings.TrimSpace(st.Reason)
		if !strings.HasPrefix(info.Error, "not approved") {
			info.Error = "not approved: " + info.Error
		}
		info.Hooks = registeredNames(d.pyFiles) // found in its text: it is not run
		if !st.Drifted {
			return nil, info, warns
		}
		return e.driftedPython(d, info, st), info, warns
	}
	if e.opts.DryRun { // not sandboxed: listed with the hooks its files name, never run
		info.Hooks, info.Status = registeredNames(d.pyFiles), "loaded"
		return &plugin{info: info, file: d.pyEntry, sum: d.sum, warns: warns}, info, warns
	}
	spec := shell.PythonSpec{Kind: shell.PythonPlugin, Dir: d.dir, Python: info.Python, Timeout: seconds(info.Timeout),
		Instances: info.Instances, Memory: info.Memory, Check: check}
	desc, err := shell.DescribePython(ctx, spec)
	if err != nil {
		return fail(pythonWarning(d.pyEntry, err))
	}
	info.PythonVersion, spec.Executable = desc.Version, desc.Executable
	var kept []shell.PythonRegistration
	for _, r := range desc.Hooks {
		if hooknames.IsWrap(r.Name) {
			warns = append(warns, hookspec.Warning{File: r.File, Line: r.Line, Msg: fmt.Sprintf(
				"%s is for Lua plugins only: a Python callback cannot call next (not registered)", r.Name)})
			continue
		}
		kept = append(kept, r)
		info.Hooks = append(info.Hooks, r.Name)
		if !hookspec.IsHook(r.Name) {
			warns = append(warns, hookspec.Warning{File: r.File, Line: r.Line, Msg: fmt.Sprintf(
				"unknown hook %q%s (kept for hosts that fire it); valid hooks: %s", r.Name, didYouMean(r.Name, hookNames), strings.Join(hookNames, ", "))})
		}
	}
	if info.FailClosed && !slices.Contains(info.Hooks, hooknames.PreToolCall) {
		warns = append(warns, hookspec.Warning{File: d.manifest, Msg: "fail_closed only applies to pre_tool_call, which this plugin does not register"})
	}
	info.Status = "loaded"
	return &plugin{info: info, file: d.pyEntry, py: shell.NewPython(spec, kept), pyRegs: kept, check: check, sum: d.sum, warns: warns}, info, warns
}

// pythonCommand is how a managed policy's allowed_commands sees a Python hook: the
// interpreter running its directory.
func pythonCommand(dir string) string { return shell.DefaultPython + " " + dir }

// pythonWarning is the load error of a Python hook: at the file:line of its traceback.
func pythonWarning(file string, err error) hookspec.Warning {
	var pe *shell.PythonError
	if errors.As(err, &pe) {
		w := hookspec.Warning{File: file, Msg: pe.Msg}
		if i := strings.LastIndexByte(pe.Where, ':'); i > 0 {
			if n, err := strconv.Atoi(pe.Where[i+1:]); err == nil {
				w.File, w.Line = pe.Where[:i], n
			}
		}
		return w
	}
	return hookspec.Warning{File: file, Msg: err.Error()}
}

// driftedPython stands for a Python plugin approved once whose files changed since, in
// pinned mode: it runs nothing, and on each point that can block that its files register
// it blocks every call, saying how to approve it again; elsewhere it is skipped.
func (e *Engine) driftedPython(d *dirFiles, info *PluginInfo, st consent.Status) *plugin {
	points := guardedPoints(d.pyFiles)
	info.Hooks = points
	e.loadLog.Warn(fmt.Sprintf("%s: python plugin %q is not run: it was approved, but %s", d.dir, info.Name, st.Reason))
	return &plugin{info: info, file: d.pyEntry, drift: points, sum: d.sum,
		driftMsg: fmt.Sprintf("python plugin %q is not run: it was approved, but %s", info.Name, st.Reason)}
}

// pythonCallback is one callback a Python plugin registered, run by its co-process.
type pythonCallback struct {
	p       *plugin
	index   int
	logger  *slog.Logger
	metrics *hookMetrics
	warns   warnLimiter
}

func (c *pythonCallback) stats() *hookMetrics { return c.metrics }

func (c *pythonCallback) fire(ctx context.Context, hook string, kw args, _ bool, _ map[string]any, r *hookspec.Result) {
	h, reg := c.p.py[c.index], c.p.pyRegs[c.index]
	res := h.Run(ctx, kw.Map(), shell.RunOptions{Logger: c.logger})
	*r = hookspec.Result{Source: hookspec.SourcePlugin, Name: c.p.info.Name, Status: res.Status, Result: res.Parsed,
		Answer: res.Answer, Err: res.Err, Duration: res.Duration, Wait: res.Wait}
	where := fmt.Sprintf("%s:%d: ", reg.File, reg.Line)
	if r.Status == hookspec.StatusOK && r.Result != nil && r.Answer.Kind == hookspec.None {
		if err := unanswered(hook, r.Result, where); err != nil {
			r.Status, r.Err = hookspec.StatusError, err.Error()
		}
	}
	if r.Status == hookspec.StatusOK && r.Answer.Kind == hookspec.Ask {
		if p := hookspec.AskProblem(hook, r.Result); p != "" {
			r.Status, r.Err = hookspec.StatusError, where+p
		}
	}
	c.metrics.observe(r.Status, r.Duration)
	c.metrics.observeWait(r.Status, r.Wait)
	if r.Status == hookspec.StatusOK {
		return
	}
	c.warns.warn(c.logger, "plugin hook failed", "plugin", c.p.info.Name, "hook", hook, "status", r.Status.String(), "error", r.Err)
	switch {
	case c.p.check != nil && hooknames.CanBlock(hook) && c.p.check() != nil:
		// Its files changed since approval (pinned): a guard never silently vanishes.
		r.Answer = refuseWith(hook, fmt.Sprintf("blocked: python plugin %q needs approval again", c.p.info.Name))
	case c.p.info.FailClosed && hook == hooknames.PreToolCall:
		r.FailClosed(failedClosed(c.p.info.Name, r.Status))
	}
}

// driftedPluginCallback is the guard of a drifted Python plugin on one point (driftedPython).
type driftedPluginCallback struct {
	p       *plugin
	metrics *hookMetrics
}

func (c *driftedPluginCallback) stats() *hookMetrics { return c.metrics }

func (c *driftedPluginCallback) fire(_ context.Context, hook string, _ args, _ bool, _ map[string]any, r *hookspec.Result) {
	*r = hookspec.Failed(hookspec.SourcePlugin, c.p.info.Name, hookspec.StatusError, c.p.driftMsg, 0)
	r.Answer = refuseWith(hook, fmt.Sprintf("blocked: python plugin %q needs approval again", c.p.info.Name))
	c.metrics.observe(r.Status, 0)
}

// loadPythonGatewayHook loads the Python gateway hook of d (handler.py), whose HOOK.yaml
// filled info: consented as a Python plugin, run by a co-process of its own, one call at a
// time (the gateway's queue of the hook).
func (e *Engine) loadPythonGatewayHook(ctx context.Context, d *dirFiles, l pluginLayer, opts gatewayhook.Options, info *gatewayHookInfo, memorySet bool, warns []hookspec.Warning) (*gatewayHook, *gatewayHookInfo, []hookspec.Warning) {
	info.Runtime = RuntimePython
	if !memorySet {
		info.Memory = defaultPythonMemory
	}
	fail := func(w hookspec.Warning) (*gatewayHook, *gatewayHookInfo, []hookspec.Warning) {
		info.Status, info.Error = "error", w.String()
		return nil, info, append(warns, w)
	}
	if d.pyErr != nil {
		return fail(hookspec.Warning{File: d.dir, Msg: "cannot read its .py files: " + d.pyErr.Error()})
	}
	if why := l.policy.refuses("", pythonCommand(d.dir)); l.layer == LayerUser && why != "" {
		return fail(hookspec.Warning{File: d.pyEntry, Msg: "python gateway hook not loaded: " + why})
	}
	st, how, check := e.pythonConsent(ctx, l, d)
	info.ApprovedBy, info.Consent = how, st.State()
	if how == "" {
		info.Status, info.Error = "unapproved", strings.TrimSpace(st.Reason)
		if !strings.HasPrefix(info.Error, "not approved") {
			info.Error = "not approved: " + info.Error
		}
		if st.Drifted && !e.opts.IgnoreConsent {
			e.loadLog.Warn(fmt.Sprintf("%s: python gateway hook %q is not run: it was approved, but %s", d.dir, info.Name, st.Reason))
		}
		return nil, info, warns
	}
	if e.opts.DryRun { // not sandboxed: listed with its events, never run
		info.Status = "loaded"
		return nil, info, warns
	}
	spec := shell.PythonSpec{Kind: shell.PythonGateway, Dir: d.dir, Python: info.Python, Timeout: seconds(info.Timeout),
		Memory: info.Memory, Check: check}
	desc, err := shell.DescribePython(ctx, spec)
	if err != nil {
		return fail(pythonWarning(d.pyEntry, err))
	}
	info.PythonVersion, spec.Executable = desc.Version, desc.Executable
	info.Status = "loaded"
	return &gatewayHook{info: info, py: shell.NewPython(spec, desc.Hooks)[0], logger: opts.Logger.With("hook", info.Name), sum: d.sum, warns: warns}, info, warns
}
