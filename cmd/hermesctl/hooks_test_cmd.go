package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/hermes-hooks/hermes/hookspec"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/jsonvalue"
	"github.com/hermes-hooks/hermes/internal/suggest"
	"github.com/hermes-hooks/hermes/shell"
)

var hooksTestCommand = &command{
	name:     "hooks test",
	json:     true,
	args:     "<event>",
	more:     testableEvents,
	help:     "fire every matching hook on the default payload of <event> and show each answer and the merged outcome",
	examples: []string{"hermesctl hooks test pre_tool_call --for-tool terminal  # what a terminal call meets", "hermesctl hooks test agent:step  # a gateway event", "hermesctl hooks test pre_llm_call --payload-file kw.json --json"},
	flags: func(fs *flag.FlagSet) runFunc {
		var a hooksTestArgs
		fs.StringVar(&a.forTool, "for-tool", "", "set tool_name in the payload to `TOOL`")
		fs.StringVar(&a.subagent, "subagent", "", "pre_verify: a subagent of `TYPE` is about to stop, not the agent")
		fs.StringVar(&a.payloadFile, "payload-file", "", "a JSON object of kwargs in `FILE`, merged over the default payload")
		return func(ctx context.Context, c *cli, args []string) int { return runHooksTest(ctx, c, a, args) }
	},
}

// testableEvents are the events hooks test accepts, as its help lists them.
func testableEvents() []string {
	gatewayEvents := []string{hookspec.GatewayStartup, hookspec.SessionStart, hookspec.SessionEnd, hookspec.SessionReset,
		hookspec.AgentStart, hookspec.AgentStep, hookspec.AgentEnd, hookspec.CommandPrefix + "<name>"}
	return []string{
		"events (the hook points of plugins and shell hooks): " + strings.Join(hookspec.Names(), ", "),
		"gateway events (of gateway hooks): " + strings.Join(gatewayEvents, ", "),
	}
}

// hooksTestArgs are the flags of hooks test.
type hooksTestArgs struct{ forTool, payloadFile, subagent string }

func runHooksTest(ctx context.Context, c *cli, a hooksTestArgs, args []string) int {
	if !c.wantArgs(args, 1) {
		return exitUsage
	}
	event := args[0]
	payload, isGateway, argsWarned, code := c.testPayload(event, a)
	if code != exitOK {
		return code
	}
	host := &hostRecorder{}
	if event == hooknames.PreGatewayDispatch {
		host.install(payload)
	}
	release := func([]string) {}
	if !c.json {
		release = c.holdWarnings() // the report lists the load warnings that may change it
		defer release(nil)
	}
	t, code := c.fireForTest(ctx, event, payload, isGateway, host)
	if code != exitOK {
		return code
	}
	rep := t.report
	if rep.Hooks == nil {
		rep.Hooks = []hookspec.Result{}
	}
	host.uninstall(payload)
	if c.json {
		if code := c.printJSON(struct {
			Home string `json:"home"`
			engine.Report
			NotLoaded []string   `json:"not_loaded,omitempty"`
			Warnings  []string   `json:"warnings,omitempty"`
			HostCalls []hostCall `json:"host_calls,omitempty"`
		}{t.home, rep, t.notLoaded, warningStrings(t.warnings), host.calls}); code != exitOK {
			return code
		}
	} else {
		fmt.Fprintf(c.stdout, "home: %s\n", printable(t.home))
		printReport(c.stdout, rep)
		for _, n := range t.notLoaded {
			fmt.Fprintf(c.stdout, "not loaded: %s\n", printable(n))
		}
		for _, w := range t.warnings {
			fmt.Fprintf(c.stdout, "warning: %s\n", printable(w.String()))
		}
		release(append(warningStrings(t.warnings), t.notLoaded...))
		for _, hc := range host.calls {
			fmt.Fprintf(c.stdout, "host call: %s%s\n", hc.Func, printable(compactJSON(hc.Args)))
		}
	}
	if len(t.notLoaded) > 0 || len(t.warnings) > 0 || argsWarned {
		return exitFailed // a hook the user wrote may be missing from this test, or not do what it says
	}
	for _, h := range rep.Hooks {
		if h.Status.Failed() { // failed, or did not run
			return exitFailed
		}
	}
	return exitOK
}

// testPayload is the payload hooks test fires event with: the sample, with the flags' and
// the payload file's changes, checked. argsWarned: a misspelt argument of one of our tools
// was warned of (the hooks run; the exit code is 3).
func (c *cli) testPayload(event string, a hooksTestArgs) (payload map[string]any, isGateway, argsWarned bool, code int) {
	cwd, _ := os.Getwd()
	payload = hookspec.SampleKwargs(event, cwd)
	isGateway = payload == nil && hookspec.IsEvent(event)
	if isGateway {
		payload = hookspec.SampleContext(event)
	}
	if payload == nil {
		hint := ""
		if s := suggest.Closest(event, hookspec.Names()); s != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", s)
		}
		return nil, false, false, c.fail(exitUsage, "unknown event %q%s; valid events: %s, or a gateway event such as agent:step or command:reset", event, hint, strings.Join(hookspec.Names(), ", "))
	}
	if a.forTool != "" {
		payload["tool_name"] = a.forTool
	}
	if a.subagent != "" {
		if event != hooknames.PreVerify {
			return nil, false, false, c.fail(exitUsage, "--subagent is for pre_verify (a subagent about to stop), not %s", event)
		}
		payload["subagent"] = map[string]any{"agent_id": "test-agent", "agent_type": a.subagent, "agent_transcript_path": ""}
	}
	if a.payloadFile != "" {
		extra, data, err := readPayloadFile(a.payloadFile)
		if err != nil {
			return nil, false, false, c.fail(exitConfig, "%v", err)
		}
		if code := c.checkPayload(event, a.payloadFile, data, extra); code != exitOK {
			return nil, false, false, code
		}
		for k, v := range extra {
			payload[k] = v
		}
		argsWarned = c.checkToolArgs(payload, extra, a.payloadFile, data)
	}
	if code := c.checkToolName(payload, a); code != exitOK {
		return nil, false, false, code
	}
	return payload, isGateway, argsWarned, exitOK
}

// testRun is what hooks test fired, in which home, and what could not be loaded there.
type testRun struct {
	home      string
	report    engine.Report
	notLoaded []string           // "plugin name: file:line: error" of every hook that could have answered
	warnings  []hookspec.Warning // the load warnings that may change what was tested (testWarnings)
}

// checkPayload checks a payload file against the kwargs of event: a key that names another
// one (another agent's `prompt`, a typo) or a value of the wrong kind is an error (exit 5),
// one line each at the key, in the file's order; an unknown key that resembles none is
// passed on, with a warning.
func (c *cli) checkPayload(event, file string, data []byte, payload map[string]any) int {
	type located struct {
		line int
		msg  string
	}
	var errs []located
	for _, p := range hookspec.CheckKwargs(event, payload, suggest.Closest) {
		where, line := keyLine(file, data, p.Key)
		if p.Extra {
			c.logger.Warn(fmt.Sprintf("--payload-file %s: %s", where, p.Msg))
			continue
		}
		errs = append(errs, located{line, fmt.Sprintf("--payload-file %s: %s", where, p.Msg)})
	}
	slices.SortStableFunc(errs, func(x, y located) int { return x.line - y.line })
	for _, e := range errs {
		c.fail(exitConfig, "%s", e.msg)
	}
	if len(errs) > 0 {
		return exitConfig
	}
	return exitOK
}

// checkToolArgs warns, at the key's line, about each key of the payload file's args that
// misspells an argument of the payload's tool, one of ours (terminal's "comand"): the hooks
// would see the call without it. It reports whether it warned.
func (c *cli) checkToolArgs(payload, extra map[string]any, file string, data []byte) bool {
	args, given := extra["args"].(map[string]any)
	tool, _ := payload["tool_name"].(string)
	if !given {
		return false
	}
	problems := hookspec.CheckToolArgs(tool, args, suggest.Closest)
	for _, p := range problems {
		where, _ := keyLine(file, data, p.Key)
		c.logger.Warn(fmt.Sprintf("--payload-file %s: %s", where, p.Msg))
	}
	return len(problems) > 0
}

// readPayloadFile reads a JSON object of kwargs; numbers stay integers where they are. It
// returns the file's bytes too, to locate the keys of its problems.
func readPayloadFile(file string) (map[string]any, []byte, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read --payload-file: %v", err)
	}
	v, err := jsonvalue.Decode(data)
	if err != nil {
		return nil, nil, fmt.Errorf("--payload-file %s is not valid JSON: %v", file, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, nil, fmt.Errorf("--payload-file %s must hold a JSON object of kwargs, e.g. {\"tool_name\": \"terminal\"}", file)
	}
	return m, data, nil
}

// keyLine is file:line of the first place data writes key as an object key ("key" then a
// colon), and the line (0 and file alone when it cannot tell: a key written with escapes).
func keyLine(file string, data []byte, key string) (string, int) {
	quoted, _ := json.Marshal(key)
	for i := 0; ; {
		j := bytes.Index(data[i:], quoted)
		if j < 0 {
			return file, 0
		}
		at := i + j
		i = at + len(quoted)
		if rest := bytes.TrimLeft(data[i:], " \t\r\n"); len(rest) > 0 && rest[0] == ':' {
			line := 1 + bytes.Count(data[:at], []byte("\n"))
			return fmt.Sprintf("%s:%d", file, line), line
		}
	}
}

// printJSON prints v indented. A value that cannot be encoded is an internal error (exit
// 1), never silently empty output.
func (c *cli) printJSON(v any) int {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return c.fail(exitInternal, "cannot encode the result as JSON: %v", err)
	}
	c.stdout.Write(buf.Bytes())
	return exitOK
}

// compactJSON renders v on one line for text output.
func compactJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSpace(buf.String())
}

// recheckedNote marks the answer of a hook asked a second time, with the arguments a later
// hook's modification left.
const recheckedNote = "(asked again with the arguments a later hook left; both calls timed)"

// printReport prints one firing for people; text from hooks is made printable.
func printReport(w io.Writer, rep engine.Report) {
	fmt.Fprintf(w, "%s: %d hook(s)\n", printable(rep.Event.String()), len(rep.Hooks))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, h := range rep.Hooks {
		detail := "result: " + printable(compactJSON(h.Result))
		if h.StatusMessage != "" {
			detail = "[" + printable(h.StatusMessage) + "] " + detail
		}
		if h.ExitCode != nil {
			detail = fmt.Sprintf("exit %d, %s", *h.ExitCode, detail)
		}
		if h.Err != "" {
			detail += "; error: " + printable(h.Err)
		}
		if h.Rechecked {
			detail += "; " + recheckedNote
		}
		if h.Nexts != nil {
			detail += " " + wrapNote(*h.Nexts, h.Status)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%.2f ms\t%s\n", h.Source, printable(h.Name), h.Status, float64(h.Duration.Microseconds())/1000, detail)
	}
	tw.Flush()
	fmt.Fprintf(w, "outcome: %s\n", describeOutcome(rep.Outcome))
}

// describeOutcome describes a merged outcome on one printable line.
func describeOutcome(o any) string {
	return printable(outcomeText(o))
}

// outcomeText describes o, the text not yet made printable.
func outcomeText(o any) string {
	m, ok := o.(map[string]any)
	switch {
	case o == nil:
		return "none (nothing changed)"
	case isEmptyList(o):
		return "none (nothing changed)"
	case !ok:
		return compactJSON(o)
	case m["action"] == "block" && m["context"] != nil: // pre_tool_call's context after the message
		return fmt.Sprintf("BLOCK: %v (then context: %q)", m["message"], m["context"])
	case m["action"] == "block":
		return fmt.Sprintf("BLOCK: %v", m["message"])
	case m["action"] == "skip":
		return fmt.Sprintf("SKIP: %v", m["reason"])
	case m["action"] == "rewrite":
		return fmt.Sprintf("REWRITE to %q", m["text"])
	case m["action"] == "allow" && len(m) == 1:
		return "ALLOW"
	case m["action"] == "allow" && m["args"] != nil:
		return "ALLOW with args " + compactJSON(m["args"]) + rememberNote(m)
	case m["action"] == "allow":
		return "ALLOW" + rememberNote(m)
	case m["action"] == "deny":
		return fmt.Sprintf("DENY: %v", m["message"]) + rememberNote(m)
	case m["action"] == "continue":
		return fmt.Sprintf("CONTINUE: %v", m["reason"])
	case m["action"] == "modify" && m["request"] != nil:
		return "REWRITE REQUEST: " + truncate(compactJSON(m["request"]), 160)
	case m["action"] == "respond":
		return "RESPOND (the model is not called): " + truncate(compactJSON(m["response"]), 160)
	case m["runs"] != nil: // a wrap_tool_call chain
		return fmt.Sprintf("tool ran %v time(s); %s", m["runs"], wrapResult(m, "result"))
	case m["calls"] != nil: // a wrap_llm_call chain
		return fmt.Sprintf("model called %v time(s); %s", m["calls"], wrapResult(m, "response"))
	case m["context"] != nil:
		return fmt.Sprintf("inject context: %q", m["context"])
	case m["text"] != nil:
		return fmt.Sprintf("replace with: %q", m["text"])
	}
	return compactJSON(o)
}

// wrapResult says what a wrap chain gave: its error, or its result (key).
func wrapResult(m map[string]any, key string) string {
	if e, ok := m["error"]; ok {
		return fmt.Sprintf("error: %v", e)
	}
	return key + " " + truncate(compactJSON(m[key]), 120)
}

// rememberNote says an approval answer asks the host to remember it.
func rememberNote(m map[string]any) string {
	if m["remember"] == true {
		return " (remember)"
	}
	return ""
}

func isEmptyList(o any) bool {
	l, ok := o.([]any)
	return ok && len(l) == 0
}

// hostCall is one call a hook made on the stand-in host objects of pre_gateway_dispatch.
type hostCall struct {
	Func string `json:"func"`
	Args []any  `json:"args"`
}

// hostRecorder provides stand-ins for what a real gateway gives hooks: the gateway and
// session_store objects of pre_gateway_dispatch and hermes.run_agent. Calls are recorded.
type hostRecorder struct {
	mu        sync.Mutex
	calls     []hostCall
	installed []string
}

func (h *hostRecorder) fn(name string) hookspec.Func {
	return func(_ context.Context, args []any) (any, error) {
		if len(args) > 0 {
			if _, self := args[0].(map[string]any); self { // obj:method(...) form
				args = args[1:]
			}
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		h.calls = append(h.calls, hostCall{Func: name, Args: args})
		return true, nil
	}
}

// funcs are the host functions of the hermes module a gateway provides: run_agent is
// answered with "[SILENT]" (nothing needs attention) and recorded.
func (h *hostRecorder) funcs() map[string]hookspec.Func {
	record := h.fn("hermes.run_agent")
	return map[string]hookspec.Func{"run_agent": func(ctx context.Context, args []any) (any, error) {
		record(ctx, args)
		return "[SILENT]", nil
	}}
}

// install adds the stand-ins to payload, unless the payload file gave its own values.
func (h *hostRecorder) install(payload map[string]any) {
	objects := map[string]map[string]any{
		"gateway":       {"send": h.fn("gateway.send")},
		"session_store": {"append_to_transcript": h.fn("session_store.append_to_transcript")},
	}
	for key, obj := range objects {
		if _, given := payload[key]; !given {
			payload[key] = obj
			h.installed = append(h.installed, key)
		}
	}
}

// uninstall replaces the stand-ins by a description, so the payload prints as JSON.
func (h *hostRecorder) uninstall(payload map[string]any) {
	for _, key := range h.installed {
		payload[key] = "<host object: " + key + ">"
	}
}

// fireForTest fires event with payload: through the gateway's hooks for a gateway event,
// else through an engine that runs every shell hook, approved or not. It lists the hooks of
// that kind that failed to load: any of them might have answered.
func (c *cli) fireForTest(ctx context.Context, event string, payload map[string]any, isGateway bool, host *hostRecorder) (testRun, int) {
	if !isGateway {
		eng, code := c.openEngine(ctx, engine.Options{IgnoreConsent: true, HostFuncs: host.funcs()})
		if eng == nil {
			return testRun{}, code
		}
		defer eng.Close(ctx)
		t := testRun{home: eng.Home(), report: eng.Fire(ctx, hookspec.HookNamed(event), payload), warnings: testWarnings(event, eng, nil)}
		for _, p := range eng.Plugins() {
			if p.Status == "error" || p.Status == "unapproved" && slices.Contains(p.Hooks, event) {
				t.notLoaded = append(t.notLoaded, "plugin "+p.Name+": "+p.Error)
			}
		}
		return t, exitOK
	}
	l, code := c.loadHomeWith(ctx, host.funcs())
	if l == nil {
		return testRun{}, code
	}
	defer l.close(ctx)
	hooks := l.gw.EmitSync(ctx, hookspec.NamedEvent{Name: event, Data: payload})
	outcome := []any{}
	for _, h := range hooks {
		if h.Result != nil {
			outcome = append(outcome, h.Result)
		}
	}
	t := testRun{home: l.eng.Home(), report: engine.Report{Event: hookspec.HookNamed(event), Payload: payload, Hooks: hooks, Outcome: outcome},
		warnings: testWarnings(event, l.eng, l.gw)}
	for _, h := range l.gw.Hooks() {
		if h.Status == "error" || h.Status == "unapproved" && subscribed(h.Events, event) {
			t.notLoaded = append(t.notLoaded, "gateway hook "+h.Name+": "+h.Error)
		}
	}
	return t, exitOK
}

// subscribed reports whether a gateway hook on events ("agent:start", "command:*") handles
// event.
func subscribed(events []string, event string) bool {
	for _, ev := range events {
		if prefix, ok := strings.CutSuffix(ev, ":*"); ev == event || ok && strings.HasPrefix(event, prefix+":") {
			return true
		}
	}
	return false
}

// checkToolName refuses a payload whose tool_name is another agent's name for a tool of
// ours (--for-tool Bash, where hooks see "terminal"): every hook would be tested against a
// call the host never makes, and a matcher written for "terminal" would seem not to fire.
func (c *cli) checkToolName(payload map[string]any, a hooksTestArgs) int {
	name, _ := payload["tool_name"].(string)
	ours, agent, ok := shell.AgentToolName(name)
	if !ok {
		return exitOK
	}
	where := "--for-tool"
	if a.forTool != name {
		data, _ := os.ReadFile(a.payloadFile)
		file, _ := keyLine(a.payloadFile, data, "tool_name")
		where = "--payload-file " + file
	}
	return c.fail(exitFailed, "%s: tool_name %q is %s's name for the tool hooks see as %q: did you mean %q? (hooks written for %s are given %q in its own words)",
		where, name, agent, ours, ours, agent, name)
}
