//go:build unix

package engine

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
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
		pyPluginFiles("b-hang", "priority: 20\ntimeout: 1\nfail_closed: true\n", "import time\n\ndef hang(**kw):\n    time.sleep(600)\n\ndef register(ctx):\n    ctx.register_hook('pre_tool_call', hang)\n"),
		pyPluginFiles("c-print", "priority: 10\n", "import sys\n\ndef noisy(**kw):\n    print('{\"action\": \"block\"}')\n    sys.stdout.write('garbage\\n')\n    return None\n\ndef register(ctx):\n    ctx.register_hook('pre_tool_call', noisy)\n"),
		pluginFiles("d-lua", "priority: 0\n", one("pre_tool_call", `return {action = "block", message = "lua still runs"}`)),
	))
	e, _ := newPyEngine(t, home, true)
	// the first call of each co-process may import for longer than its timeout: warm them up
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
	if !strings.Contains(logs.String(), "python hook not approved") || strings.Contains(logs.String(), "shell hook not approved") {
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
