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
	"github.com/hermes-hooks/hermes/internal/gatewayhook"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// pyGatewayFiles returns the files of a Python gateway hook named name on events.
func pyGatewayFiles(name, events, handler string) map[string]string {
	return map[string]string{
		"hooks/" + name + "/HOOK.yaml":  "name: " + name + "\nevents: " + events + "\n",
		"hooks/" + name + "/handler.py": handler,
	}
}

// pyLogHandler appends "<event> <context[key]>" to out, plainly or async.
func pyLogHandler(out string, async bool) string {
	def := "def"
	if async {
		def = "async def"
	}
	return "import json\n\n" + def + " handle(event_type, context):\n    with open(" + quotePy(out) + ", 'a') as f:\n" +
		"        f.write('%s %s\\n' % (event_type, json.dumps(context, sort_keys=True)))\n    return {'seen': event_type}\n"
}

// loadPyGateway loads the gateway hooks of e, closed at cleanup.
func loadPyGateway(t *testing.T, e *Engine) ([]*gatewayHook, map[string]*gatewayHookInfo, []hookspec.Warning) {
	t.Helper()
	hooks, infos, warns, err := e.loadGatewayHooks(context.Background(), gatewayhook.Options{}, nil)
	if err != nil {
		t.Fatalf("loadGatewayHooks: %v", err)
	}
	t.Cleanup(func() {
		for _, h := range hooks {
			h.Close()
		}
	})
	byName := map[string]*gatewayHookInfo{}
	for _, info := range infos {
		byName[info.Name] = info
	}
	return hooks, byName, warns
}

// A handler.py's handle(event_type, context), plain or async, runs for its events with the
// context as a dict, in one co-process kept from call to call.
func TestPythonGatewayHookRuns(t *testing.T) {
	dir := t.TempDir()
	plain, async := filepath.Join(dir, "plain.log"), filepath.Join(dir, "async.log")
	home := testutil.Home(t, testutil.Merge(
		pyGatewayFiles("a-plain", "[agent:step]", pyLogHandler(plain, false)),
		pyGatewayFiles("b-async", "[\"command:*\"]", pyLogHandler(async, true)),
	))
	e, _ := newPyEngine(t, home, true)
	hooks, infos, warns := loadPyGateway(t, e)
	if len(hooks) != 2 || len(warns) != 0 {
		t.Fatalf("hooks %v, warnings %v: want both loaded", infos, warns)
	}
	if i := infos["a-plain"]; i.Runtime != RuntimePython || i.ApprovedBy != "flag" || i.Memory != defaultPythonMemory || !strings.HasPrefix(i.PythonVersion, "3.") {
		t.Fatalf("info %+v", i)
	}
	for _, step := range []int{1, 2} {
		v, st, err := hooks[0].Call(context.Background(), "agent:step", map[string]any{"iteration": step, "tool_names": []any{"terminal"}})
		if st != hookspec.StatusOK || err != nil || v.(map[string]any)["seen"] != "agent:step" {
			t.Fatalf("plain call: %v %v %v", v, st, err)
		}
	}
	if _, st, err := hooks[1].Call(context.Background(), "command:reset", map[string]any{"command": "reset", "args": ""}); st != hookspec.StatusOK || err != nil {
		t.Fatalf("async call: %v %v", st, err)
	}
	if b, _ := os.ReadFile(plain); string(b) != "agent:step {\"iteration\": 1, \"tool_names\": [\"terminal\"]}\nagent:step {\"iteration\": 2, \"tool_names\": [\"terminal\"]}\n" {
		t.Fatalf("plain.log = %q", b)
	}
	if b, _ := os.ReadFile(async); string(b) != "command:reset {\"args\": \"\", \"command\": \"reset\"}\n" {
		t.Fatalf("async.log = %q", b)
	}
	if n := hooks[0].py.Starts(); n != 1 {
		t.Fatalf("started %d times, want one co-process for both calls", n)
	}
}

// A handler that raises is the call's error at the file:line of the raise; both handler.lua
// and handler.py in one directory is a load error.
func TestPythonGatewayHookErrors(t *testing.T) {
	home := testutil.Home(t, testutil.Merge(
		pyGatewayFiles("a-raise", "[agent:end]", "def handle(event_type, context):\n    raise ValueError('boom')\n"),
		pyGatewayFiles("b-both", "[agent:end]", "def handle(event_type, context):\n    pass\n"),
		map[string]string{"hooks/b-both/handler.lua": "function handle(event, ctx) end\n"},
		pyGatewayFiles("c-syntax", "[agent:end]", "def handle(event_type, context):\n    return (\n"),
	))
	e, _ := newPyEngine(t, home, true)
	hooks, infos, _ := loadPyGateway(t, e)
	if i := infos["b-both"]; i.Status != "error" || !strings.Contains(i.Error, filepath.Join(home, "hooks", "b-both", "handler.py")+":1: the directory holds both handler.lua and handler.py") {
		t.Errorf("both: %+v", i)
	}
	if i := infos["c-syntax"]; i.Status != "error" || !strings.Contains(i.Error, "handler.py:2: SyntaxError") {
		t.Errorf("syntax: %+v", i)
	}
	if len(hooks) != 1 {
		t.Fatalf("%d hooks loaded, want a-raise only", len(hooks))
	}
	_, st, err := hooks[0].Call(context.Background(), "agent:end", map[string]any{})
	if st != hookspec.StatusError || err == nil || !strings.Contains(err.Error(), filepath.Join(home, "hooks", "a-raise", "handler.py")+":2: ValueError: boom") {
		t.Fatalf("raise: %v %v, want the file:line of the raise", st, err)
	}
}

// A Python gateway hook of the user's home is consented as a Python plugin: unapproved, it
// is not imported; in pinned mode an edited file does not run until approved again. One of
// the managed home needs no consent.
func TestPythonGatewayHookConsent(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	home := testutil.Home(t, testutil.Merge(
		pyGatewayFiles("log", "[agent:end]", "open("+quotePy(marker)+", 'a').write('imported\\n')\n\ndef handle(event_type, context):\n    pass\n"),
		map[string]string{"config.yaml": "hooks_consent: pinned\n", "hooks/log/util.py": "X = 1\n"},
	))
	e, _ := newPyEngine(t, home, false)
	hooks, infos, _ := loadPyGateway(t, e)
	if i := infos["log"]; len(hooks) != 0 || i.Status != "unapproved" || !strings.Contains(i.Error, "hermesctl hooks allow python") {
		t.Fatalf("unapproved: %+v", i)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an unapproved python gateway hook was imported")
	}
	e.Close(context.Background())

	e, _ = newPyEngine(t, home, true)
	if hooks, infos, _ = loadPyGateway(t, e); len(hooks) != 1 || infos["log"].Status != "loaded" {
		t.Fatalf("approved: %+v", infos["log"])
	}
	hooks[0].Close()
	e.Close(context.Background())
	writeFile(t, filepath.Join(home, "hooks", "log", "util.py"), "X = 2\n")
	os.Remove(marker)

	logs := &testutil.Buffer{}
	e, err := New(context.Background(), Options{Home: home, Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	hooks, infos, _ = loadPyGateway(t, e)
	if i := infos["log"]; len(hooks) != 0 || i.Status != "unapproved" || i.Consent == nil || !i.Consent.Drifted {
		t.Fatalf("edited: %+v, want unapproved and drifted", i)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the edited hook ran before it was approved again")
	}

	mh, user := managedHomes(t, "", nil)
	testutil.WriteFiles(t, mh, pyGatewayFiles("audit", "[agent:end]", "def handle(event_type, context):\n    return 'managed'\n"))
	testutil.NeedPython(t)
	e, err = New(context.Background(), Options{Home: user, ManagedHome: mh})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	hooks, infos, _ = loadPyGateway(t, e)
	if i := infos["audit"]; len(hooks) != 1 || i.Status != "loaded" || i.ApprovedBy != LayerManaged {
		t.Fatalf("managed: %+v, want loaded without consent", i)
	}
	if v, st, _ := hooks[0].Call(context.Background(), "agent:end", map[string]any{}); st != hookspec.StatusOK || v != "managed" {
		t.Fatalf("managed call: %v %v", v, st)
	}
}
