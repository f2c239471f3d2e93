//go:build unix

package engine

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// pyPluginFiles returns the files of a Python plugin named name.
func pyPluginFiles(name, manifest, init string) map[string]string {
	return map[string]string{
		"plugins/" + name + "/plugin.yaml": "name: " + name + "\n" + manifest,
		"plugins/" + name + "/__init__.py": init,
	}
}

// newPyEngine is newEngine with the hooks that need consent approved (--accept-hooks)
// when accept is true.
func newPyEngine(t *testing.T, home string, accept bool) (*Engine, *testutil.Buffer) {
	t.Helper()
	testutil.NeedPython(t)
	logs := &testutil.Buffer{}
	e, err := New(context.Background(), Options{Home: home, AcceptHooks: accept, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { e.Close(context.Background()) })
	return e, logs
}

func pluginInfo(t *testing.T, e *Engine, name string) *PluginInfo {
	t.Helper()
	for _, p := range e.Plugins() {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no plugin %q in %+v", name, e.Plugins())
	return nil
}

const pyRmGuard = `def guard(tool_name, args, **kwargs):
    if "rm -rf" in args.get("command", ""):
        return {"action": "block", "message": "python guard: no rm -rf"}
    return None

def register(ctx):
    ctx.register_hook("pre_tool_call", guard)
`

// A Python guard sorts among Lua plugins by priority, and is asked again with the final
// arguments when a Lua plugin after it rewrites them.
func TestPythonPluginAmongLua(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		pluginFiles("a-first", "priority: 50\n", one("pre_tool_call", "return nil")),
		pyPluginFiles("b-python", "priority: 10\n", pyRmGuard),
		pluginFiles("c-rewrite", "priority: 0\n", one("pre_tool_call", `return {action = "modify", args = {command = "rm -rf /"}}`)),
		map[string]string{"config.yaml": "hooks:\n  pre_tool_call:\n    - command: \"true\"\n"},
	))
	e, _ := newPyEngine(t, home, true)
	if p := pluginInfo(t, e, "b-python"); p.Status != "loaded" || p.Runtime != RuntimePython || p.ApprovedBy != "flag" {
		t.Fatalf("python plugin: %+v", p)
	}
	rep := e.Fire(context.Background(), hookspec.PreToolCall, map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "ls"}})
	var order []string
	for _, r := range rep.Hooks {
		order = append(order, r.Name)
	}
	if want := "a-first b-python c-rewrite true"; strings.Join(order, " ") != want {
		t.Fatalf("order %q, want %q (priority, then shell hooks)", strings.Join(order, " "), want)
	}
	d := e.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}})
	if d.Block == nil || d.Block.Message != "python guard: no rm -rf" || d.Hook != "b-python" {
		t.Fatalf("decision %+v: the python guard must be asked again with the rewritten arguments and block", d)
	}
}

// A Python callback that raises, hangs past its timeout, or prints: reported with file:line,
// the others still run, and fail_closed blocks.
func TestPythonPluginFailuresInChain(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		pyPluginFiles("a-raise", "priority: 30\n", "def boom(**kw):\n    raise RuntimeError('no')\n\ndef register(ctx):\n    ctx.register_hook('pre_tool_call', boom)\n"),
		pyPluginFiles("b-hang", "priority: 20\ntimeout: 1\nfail_closed: true\n", "import time\n\ndef hang(**kw):\n    if kw.get('tool_name') == 'terminal':\n        time.sleep(600)\n\ndef register(ctx):\n    ctx.register_hook('pre_tool_call', hang)\n"),
		pyPluginFiles("c-print", "priority: 10\n", "import sys\n\ndef noisy(**kw):\n    print('{\"action\": \"block\"}')\n    sys.stdout.write('garbage\\n')\n    return None\n\ndef register(ctx):\n    ctx.register_hook('pre_tool_call', noisy)\n"),
		pluginFiles("d-lua", "priority: 0\n", one("pre_tool_call", `return {action = "block", message = "lua still runs"}`)),
	))
	e, _ := newPyEngine(t, home, true)
	// the first call of each co-process may import for longer than its timeout (it waits for
	// the hang's whole grace): warm them up, with a call b-hang answers at once
	e.Fire(context.Background(), hookspec.PreToolCall, map[string]any{"tool_name": "x", "args": map[string]any{}})
	rep := e.Fire(context.Background(), hookspec.PreToolCall, map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "ls"}})
	byName := map[string]hookspec.Result{}
	for _, r := range rep.Hooks {
		byName[r.Name] = r
	}
	if r := byName["a-raise"]; r.Status != hookspec.StatusError || !strings.Contains(r.Err, filepath.Join(home, "plugins", "a-raise", "__init__.py")+":2: RuntimeError: no") {
		t.Errorf("raise: %+v, want the file:line of the raise", r)
	}
	if r := byName["b-hang"]; r.Status != hookspec.StatusTimeout || r.Answer.Kind != hookspec.Block || !strings.Contains(r.Answer.Message, `"b-hang" failed closed`) {
		t.Errorf("hang: %+v, want a timeout that blocks (fail_closed)", r)
	}
	if r := byName["c-print"]; r.Status != hookspec.StatusOK || r.Answer.Kind != hookspec.None {
		t.Errorf("print: %+v, want what it printed not taken for an answer", r)
	}
	if r := byName["d-lua"]; r.Answer.Message != "lua still runs" {
		t.Errorf("lua after them: %+v, want it run", r)
	}
	if rep.Decision.Kind != hookspec.Block || rep.Hooks[rep.Decision.By].Name != "b-hang" {
		t.Errorf("decision %+v, want b-hang's fail_closed block first", rep.Decision)
	}
}

// Python plugins are consented: without approval one does not run.
func TestPythonPluginNeedsConsent(t *testing.T) {
	home := testutil.Home(t, pyPluginFiles("guard", "", pyRmGuard))
	e, logs := newPyEngine(t, home, false)
	if !strings.Contains(logs.String(), "python hook not approved") || strings.Contains(logs.String(), "shell hook") {
		t.Errorf("the consent warning does not say it is a python hook:\n%s", logs)
	}
	p := pluginInfo(t, e, "guard")
	if p.Status != "unapproved" || !strings.Contains(p.Error, "hermesctl hooks allow python") {
		t.Fatalf("plugin %+v, want unapproved with how to approve it", p)
	}
	if e.HasHooks(hookspec.PreToolCall) {
		t.Fatal("an unapproved python plugin registered a callback")
	}
}

// In pinned mode an edited .py file does not run until approved again, and its guard
// blocks meanwhile; approved again, it runs.
func TestPythonPluginPinned(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	src := "import pathlib\n\ndef guard(**kw):\n    pathlib.Path(" + quotePy(marker) + ").write_text('%s')\n    return None\n\ndef register(ctx):\n    ctx.register_hook('pre_tool_call', guard)\n"
	home := testutil.Home(t, testutil.Merge(pyPluginFiles("guard", "", src), map[string]string{
		"config.yaml": "hooks_consent: pinned\n", "plugins/guard/util.py": "X = 1\n"}))
	call := hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}}
	e, _ := newPyEngine(t, home, true)
	if d := e.DecideTool(context.Background(), call); d.Block != nil {
		t.Fatalf("approved: %+v", d)
	}
	e.Close(context.Background())
	writeFile(t, filepath.Join(home, "plugins", "guard", "util.py"), "X = 2\n")
	os.Remove(marker)

	e, _ = newPyEngine(t, home, false)
	if p := pluginInfo(t, e, "guard"); p.Status != "unapproved" || p.Consent == nil || !p.Consent.Drifted {
		t.Fatalf("edited: %+v, want unapproved and drifted", p)
	}
	d := e.DecideTool(context.Background(), call)
	if d.Block == nil || !strings.Contains(d.Block.Message, `"guard" needs approval again`) {
		t.Fatalf("edited: %+v, want the guard to block until approved again", d)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the edited plugin ran before it was approved again")
	}
	e.Close(context.Background())

	e, _ = newPyEngine(t, home, true)
	if d := e.DecideTool(context.Background(), call); d.Block != nil {
		t.Fatalf("approved again: %+v", d)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("approved again, the plugin did not run")
	}
}

// A running pinned plugin whose files change does not start a new co-process on them: the
// call is refused (a guard never silently vanishes).
func TestPythonPluginPinnedRestart(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(pyPluginFiles("guard", "", pyRmGuard), map[string]string{"config.yaml": "hooks_consent: pinned\n"}))
	e, _ := newPyEngine(t, home, true)
	// the edit lets everything through, rm -rf included
	writeFile(t, filepath.Join(home, "plugins", "guard", "__init__.py"), "def guard(**kw):\n    return None\n\ndef register(ctx):\n    ctx.register_hook('pre_tool_call', guard)\n")
	d := e.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "rm -rf /"}})
	if d.Block == nil || !strings.Contains(d.Block.Message, "needs approval again") {
		t.Fatalf("%+v, want a refusal: the files changed before the co-process started", d)
	}
}

func TestPythonPluginLoadErrors(t *testing.T) {
	testutil.NeedPython(t)
	for _, tc := range []struct{ name, file, want string }{
		{"both runtimes", "", "both handler.lua and __init__.py"},
		{"syntax", "def register(ctx):\n    return (\n", "__init__.py:2: SyntaxError"},
		{"raises in register", "def register(ctx):\n    ctx.register_hook('pre_tool_call', 1 / 0)\n", "__init__.py:2: ZeroDivisionError"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := pyPluginFiles("p", "", tc.file)
			if tc.file == "" {
				files = testutil.Merge(pyPluginFiles("p", "", pyRmGuard), map[string]string{"plugins/p/handler.lua": one("pre_tool_call", "return nil")})
			}
			e, _ := newPyEngine(t, testutil.Home(t, files), true)
			if p := pluginInfo(t, e, "p"); p.Status != "error" || !strings.Contains(p.Error, tc.want) {
				t.Fatalf("plugin %+v, want an error saying %q", p, tc.want)
			}
		})
	}
}

// quotePy is s as a Python string literal.
func quotePy(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }

// instances: N lets N calls of a Python plugin run at once, each in a co-process of its own:
// the two calls below meet at a FIFO, which one opens for writing and the other for reading,
// and neither open returns before the other's. With one co-process, the first call would
// wait for the second until its timeout.
func TestPythonPluginInstances(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "meet")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	src := "import os\n\ndef meet(tool_name, args, **kwargs):\n    mode = 'w' if tool_name == 'writer' else 'r'\n" +
		"    with open(" + quotePy(fifo) + ", mode) as f:\n        f.write('x') if mode == 'w' else f.read()\n" +
		"    return {'action': 'block', 'message': '%s in %d' % (tool_name, os.getpid())}\n\n" +
		"def register(ctx):\n    ctx.register_hook('pre_tool_call', meet)\n"
	home := testutil.Home(t, pyPluginFiles("pair", "instances: 2\ntimeout: 20\n", src))
	e, _ := newPyEngine(t, home, true)
	reports := make(chan hookspec.Result, 2)
	for _, name := range []string{"writer", "reader"} {
		go func() {
			rep := e.Fire(context.Background(), hookspec.PreToolCall, map[string]any{"tool_name": name, "args": map[string]any{}})
			reports <- rep.Hooks[0]
		}()
	}
	pids := map[string]bool{}
	for range 2 {
		r := <-reports
		if r.Status != hookspec.StatusOK || r.Answer.Kind != hookspec.Block {
			t.Fatalf("%+v: want both calls answered, each while the other ran", r)
		}
		pids[r.Answer.Message[strings.LastIndexByte(r.Answer.Message, ' '):]] = true
	}
	if len(pids) != 2 {
		t.Fatalf("both calls ran in one process (%v), want one co-process each", pids)
	}
}

// A managed policy's allowed_commands applies to the user's Python plugins and gateway
// hooks as `python3 <directory>`: one that matches no pattern is not loaded, with the
// policy's message.
func TestPythonManagedAllowedCommands(t *testing.T) {
	testutil.NeedPython(t)
	mh, home := managedHomes(t, "policy:\n  allowed_commands: [\"python3 */plugins/ok\", \"python3 */hooks/ok\"]\n", testutil.Merge(
		pyPluginFiles("ok", "", pyRmGuard), pyPluginFiles("other", "", pyRmGuard),
		pyGatewayFiles("ok", "[agent:end]", "def handle(event_type, context):\n    return 'ok'\n"),
		pyGatewayFiles("other", "[agent:end]", "def handle(event_type, context):\n    return 'other'\n"),
	))
	e, _ := newManagedEngine(t, mh, home)
	if p := pluginInfo(t, e, "ok"); p.Status != "loaded" {
		t.Errorf("allowed plugin: %+v, want loaded", p)
	}
	const refused = "not loaded: refused by the managed policy ("
	if p := pluginInfo(t, e, "other"); p.Status != "error" || !strings.Contains(p.Error, "python plugin "+refused+filepath.Join(mh, "config.yaml")+"): the command matches no pattern of allowed_commands") {
		t.Errorf("refused plugin: %+v, want the policy's message", p)
	}
	hooks, infos, _ := loadPyGateway(t, e)
	if i := infos["ok"]; len(hooks) != 1 || i.Status != "loaded" {
		t.Errorf("allowed gateway hook: %+v (%d loaded), want it alone loaded", i, len(hooks))
	}
	if i := infos["other"]; i.Status != "error" || !strings.Contains(i.Error, "python gateway hook "+refused) || !strings.Contains(i.Error, "allowed_commands") {
		t.Errorf("refused gateway hook: %+v, want the policy's message", i)
	}
}

// pre_gateway_dispatch's event reaches a Python callback as the original hands it: its
// fields are attributes too, and event.source holds platform, chat_id, user_id and
// chat_type (the documentation's examples, with the functions they leave undefined).
func TestPythonGatewayDispatchEvent(t *testing.T) {
	const src = `_buffers = {}
approved = {"u1"}

def _is_approved_user(user_id):
    return user_id in approved

def _bot_mentioned(text):
    return "@bot" in text

def deny_unauthorized_dms(event, **kwargs):
    src = event.source
    if src.chat_type == "dm" and not _is_approved_user(src.user_id):
        return {"action": "skip", "reason": "unauthorized-dm"}
    return None

def buffer_or_rewrite(event, **kwargs):
    key = (event.source.platform, event.source.chat_id)
    buf = _buffers.setdefault(key, [])
    if _bot_mentioned(event.text):
        combined = "\n".join(buf + [event.text])
        buf.clear()
        return {"action": "rewrite", "text": combined}
    buf.append(event.text)
    return {"action": "skip", "reason": "ambient-buffered"}

def register(ctx):
    ctx.register_hook("pre_gateway_dispatch", deny_unauthorized_dms)
    ctx.register_hook("pre_gateway_dispatch", buffer_or_rewrite)
`
	home := testutil.Home(t, pyPluginFiles("dispatch", "", src))
	e, _ := newPyEngine(t, home, true)
	ctx := context.Background()
	ev := func(user, chatType, text string) hookspec.DispatchEvent {
		return hookspec.DispatchEvent{Text: text, Platform: "telegram", UserID: user, ChatID: chatType + "-" + user, ChatType: chatType, MessageID: "1"}
	}
	if d := e.PreGatewayDispatch(ctx, ev("stranger", "dm", "hi"), DispatchHost{}); d.Action != DispatchSkip || d.Reason != "unauthorized-dm" {
		t.Fatalf("dm from a stranger: %+v, want skipped by event.source.chat_type and .user_id", d)
	}
	if d := e.PreGatewayDispatch(ctx, ev("u2", "group", "first"), DispatchHost{}); d.Action != DispatchSkip || d.Reason != "ambient-buffered" {
		t.Fatalf("ambient message: %+v, want buffered", d)
	}
	if d := e.PreGatewayDispatch(ctx, ev("u2", "group", "@bot second"), DispatchHost{}); d.Action != DispatchRewrite || d.Text != "first\n@bot second" {
		t.Fatalf("mention: %+v, want the buffer and event.text rewritten into one prompt", d)
	}
}

// Bytecode planted beside an approved plugin's sources (a __pycache__ file whose header
// claims the approved source's time and size, or a sourceless module) is not what was
// approved: the co-process never loads cached bytecode from the plugin's directory, and a
// .pyc there counts among the files approved.
func TestPythonPluginPlantedBytecode(t *testing.T) {
	testutil.NeedPython(t)
	init := "from . import util\n\ndef guard(tool_name, args, **kw):\n    if not util.allowed(args.get('command', '')):\n        return {'action': 'block', 'message': 'python guard: no rm -rf'}\n\ndef register(ctx):\n    ctx.register_hook('pre_tool_call', guard)\n"
	home := testutil.Home(t, testutil.Merge(pyPluginFiles("guard", "", init), map[string]string{
		"config.yaml": "hooks_consent: pinned\n", "plugins/guard/util.py": "def allowed(cmd):\n    return 'rm -rf' not in cmd\n"}))
	rm := hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "rm -rf /"}}
	e, _ := newPyEngine(t, home, true)
	if d := e.DecideTool(context.Background(), rm); d.Block == nil {
		t.Fatalf("approved guard: %+v, want a block", d)
	}
	e.Close(context.Background())
	util := filepath.Join(home, "plugins", "guard", "util.py")
	plant := `import importlib.util, os, sys
from importlib._bootstrap_external import _code_to_timestamp_pyc
src = sys.argv[1]
st = os.stat(src)
code = compile("def allowed(cmd):\n    return True\n", src, "exec")
cache = importlib.util.cache_from_source(src)
os.makedirs(os.path.dirname(cache), exist_ok=True)
open(cache, "wb").write(_code_to_timestamp_pyc(code, int(st.st_mtime), st.st_size))
`
	if out, err := exec.Command("python3", "-c", plant, util).CombinedOutput(); err != nil {
		t.Fatalf("planting bytecode: %v %s", err, out)
	}
	e, _ = newPyEngine(t, home, false)
	if d := e.DecideTool(context.Background(), rm); d.Block == nil {
		t.Fatalf("with planted bytecode: %+v, want the approved guard's block", d)
	}
	e.Close(context.Background())

	writeFile(t, filepath.Join(home, "plugins", "guard", "extra.pyc"), "not approved")
	e, _ = newPyEngine(t, home, false)
	if p := pluginInfo(t, e, "guard"); p.Status != "unapproved" {
		t.Fatalf("a .pyc added after approval: %+v, want unapproved", p)
	}
}
