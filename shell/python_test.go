//go:build unix

package shell

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// pythonPlugin writes a plugin package holding init (its __init__.py) and returns the hooks
// of its registrations, closed at cleanup.
func pythonPlugin(t *testing.T, init string, mods ...func(*PythonSpec)) ([]*Hook, []PythonRegistration) {
	t.Helper()
	testutil.NeedPython(t)
	dir := filepath.Join(t.TempDir(), "plug")
	testutil.WriteFiles(t, dir, map[string]string{"__init__.py": init})
	spec := PythonSpec{Kind: PythonPlugin, Dir: dir, Timeout: 20 * time.Second, Memory: 1 << 30}
	for _, m := range mods {
		m(&spec)
	}
	desc, err := DescribePython(context.Background(), spec)
	if err != nil {
		t.Fatalf("DescribePython: %v", err)
	}
	if !strings.HasPrefix(desc.Version, "3.") {
		t.Fatalf("python version %q, want 3.x", desc.Version)
	}
	regs := desc.Hooks
	spec.Executable = desc.Executable
	hooks := NewPython(spec, regs)
	if len(hooks) > 0 {
		t.Cleanup(hooks[0].Close)
	}
	return hooks, regs
}

const pyGuard = `import asyncio, os

calls = []

def block_rm(tool_name, args, **kwargs):
    calls.append(tool_name)
    print("not an answer")  # a callback's prints must not corrupt the protocol
    os.write(1, b"nor this\n")
    if tool_name == "terminal" and "rm -rf /" in args.get("command", ""):
        return {"action": "block", "message": "rm -rf / is not permitted"}
    return None

async def count(**kwargs):
    await asyncio.sleep(0)
    return {"context": "calls so far: %d" % len(calls)}

def register(ctx):
    ctx.register_hook("pre_tool_call", block_rm)
    ctx.register_hook("pre_llm_call", count)
`

func TestPythonPluginAnswers(t *testing.T) {
	hooks, regs := pythonPlugin(t, pyGuard)
	if len(regs) != 2 || regs[0].Name != "pre_tool_call" || regs[1].Name != "pre_llm_call" || regs[0].Line != 5 {
		t.Fatalf("registrations = %+v, want pre_tool_call (line 5), pre_llm_call", regs)
	}
	ctx := context.Background()
	res := hooks[0].Run(ctx, map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "rm -rf /"}, "task_id": "t"}, RunOptions{})
	if res.Status != hookspec.StatusOK || res.Answer.Kind != hookspec.Block || res.Answer.Message != "rm -rf / is not permitted" {
		t.Fatalf("block: got %+v", res)
	}
	res = hooks[0].Run(ctx, map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "ls"}, "task_id": "t"}, RunOptions{})
	if res.Status != hookspec.StatusOK || res.Answer.Kind != hookspec.None || res.Err != "" {
		t.Fatalf("allow: got %+v", res)
	}
	// The async callback runs in the same process: it sees the module state the other left.
	res = hooks[1].Run(ctx, map[string]any{"session_id": "s", "user_message": "hi"}, RunOptions{})
	if res.Status != hookspec.StatusOK || res.Answer.Text != "calls so far: 2" {
		t.Fatalf("async context: got %+v", res)
	}
	if n := hooks[0].Starts(); n != 1 {
		t.Fatalf("started %d times, want one process for every call", n)
	}
}

func TestPythonPluginFailures(t *testing.T) {
	const src = `import time

def raises(**kwargs):
    return helper()

def helper():
    raise ValueError("boom")

def hangs(**kwargs):
    time.sleep(60)

def fine(**kwargs):
    return {"context": "still here"}

def register(ctx):
    ctx.register_hook("pre_tool_call", raises)
    ctx.register_hook("pre_tool_call", hangs)
    ctx.register_hook("pre_llm_call", fine)
`
	hooks, _ := pythonPlugin(t, src, func(s *PythonSpec) { s.Timeout = 3 * time.Second; s.FailClosed = true })
	ctx := context.Background()
	kw := map[string]any{"tool_name": "terminal", "args": map[string]any{}}
	res := hooks[0].Run(ctx, kw, RunOptions{})
	if res.Status != hookspec.StatusError || !strings.Contains(res.Err, "__init__.py:7: ValueError: boom") {
		t.Fatalf("raise: got status %v err %q, want the file:line of the raise", res.Status, res.Err)
	}
	if res.Answer.Kind != hookspec.Block || !strings.Contains(res.Answer.Message, "failed closed") {
		t.Fatalf("raise under fail_closed: answer %+v, want a block", res.Answer)
	}
	res = hooks[1].Run(ctx, kw, RunOptions{})
	if res.Status != hookspec.StatusTimeout || res.Answer.Kind != hookspec.Block {
		t.Fatalf("hang: got %+v, want a timeout that blocks", res)
	}
	res = hooks[2].Run(ctx, map[string]any{}, RunOptions{})
	if res.Status != hookspec.StatusOK || res.Answer.Text != "still here" {
		t.Fatalf("after a timeout: got %+v, want a restarted process answering", res)
	}
	if n := hooks[0].Starts(); n != 2 {
		t.Fatalf("started %d times, want 2 (restarted after the timeout)", n)
	}
}

func TestPythonPluginLoadErrors(t *testing.T) {
	testutil.NeedPython(t)
	for _, tc := range []struct{ name, src, where, msg string }{
		{"syntax", "def register(ctx):\n    return (\n", "__init__.py:2", "SyntaxError"},
		{"raises", "import os\n\ndef register(ctx):\n    os.nope()\n", "__init__.py:4", "AttributeError"},
		{"no register", "x = 1\n", "", "defines no register(ctx)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "plug")
			testutil.WriteFiles(t, dir, map[string]string{"__init__.py": tc.src})
			_, err := DescribePython(context.Background(), PythonSpec{Kind: PythonPlugin, Dir: dir})
			var pe *PythonError
			if !errors.As(err, &pe) || !strings.Contains(pe.Msg, tc.msg) || !strings.HasSuffix(pe.Where, tc.where) {
				t.Fatalf("got %v, want a PythonError at %q saying %q", err, tc.where, tc.msg)
			}
		})
	}
	_, err := DescribePython(context.Background(), PythonSpec{Kind: PythonPlugin, Dir: t.TempDir(), Python: "no-such-python3"})
	if err == nil || !strings.Contains(err.Error(), "not found on $PATH") {
		t.Fatalf("missing interpreter: got %v", err)
	}
}

func TestPythonMemoryCap(t *testing.T) {
	const src = `def grab(**kwargs):
    b = bytearray(400 << 20)
    return {"context": str(len(b))}

def register(ctx):
    ctx.register_hook("pre_llm_call", grab)
`
	hooks, _ := pythonPlugin(t, src, func(s *PythonSpec) { s.Memory = 256 << 20 })
	res := hooks[0].Run(context.Background(), map[string]any{}, RunOptions{})
	if res.Status != hookspec.StatusError || !strings.Contains(res.Err, "MemoryError") || !strings.Contains(res.Err, "__init__.py:2") {
		t.Fatalf("got %+v, want a MemoryError at __init__.py:2", res)
	}
}

func TestPythonGatewayHook(t *testing.T) {
	testutil.NeedPython(t)
	dir := filepath.Join(t.TempDir(), "log")
	out := filepath.Join(dir, "seen.txt")
	testutil.WriteFiles(t, dir, map[string]string{"handler.py": `from pathlib import Path

async def handle(event_type, context):
    with open(Path(__file__).parent / "seen.txt", "a") as f:
        f.write("%s %s\n" % (event_type, context.get("iteration")))
`})
	spec := PythonSpec{Kind: PythonGateway, Dir: dir, Timeout: 20 * time.Second}
	desc, err := DescribePython(context.Background(), spec)
	regs := desc.Hooks
	if err != nil || len(regs) != 1 || regs[0].Name != "handle" {
		t.Fatalf("describe: %+v, %v", regs, err)
	}
	h := NewPython(spec, regs)[0]
	t.Cleanup(h.Close)
	res := h.Run(context.Background(), map[string]any{"event": "agent:step", "context": map[string]any{"iteration": 3}}, RunOptions{})
	if res.Status != hookspec.StatusOK {
		t.Fatalf("got %+v", res)
	}
	if b, _ := os.ReadFile(out); string(b) != "agent:step 3\n" {
		t.Fatalf("seen.txt = %q, want the event handled", b)
	}
}

// An error raised in a module of the plugin's package other than __init__.py is reported at
// that module's file:line, at call time and at import alike.
func TestPythonErrorInPackageModule(t *testing.T) {
	testutil.NeedPython(t)
	dir := filepath.Join(t.TempDir(), "plug")
	testutil.WriteFiles(t, dir, map[string]string{
		"__init__.py": "from . import checks\n\ndef guard(**kwargs):\n    return checks.check(kwargs)\n\ndef register(ctx):\n    ctx.register_hook('pre_tool_call', guard)\n",
		"checks.py":   "import json\n\ndef check(kwargs):\n    return json.loads(kwargs['raw'])\n",
	})
	spec := PythonSpec{Kind: PythonPlugin, Dir: dir, Timeout: 20 * time.Second}
	desc, err := DescribePython(context.Background(), spec)
	regs := desc.Hooks
	if err != nil {
		t.Fatalf("DescribePython: %v", err)
	}
	hooks := NewPython(spec, regs)
	t.Cleanup(hooks[0].Close)
	res := hooks[0].Run(context.Background(), map[string]any{"raw": "{"}, RunOptions{})
	if want := filepath.Join(dir, "checks.py") + ":4: json.decoder.JSONDecodeError"; res.Status != hookspec.StatusError || !strings.HasPrefix(res.Err, want) {
		t.Fatalf("got %v %q, want the error at %q (the innermost frame of the package, not json's)", res.Status, res.Err, want)
	}

	testutil.WriteFiles(t, dir, map[string]string{"checks.py": "def check(kwargs):\n    return 1 +\n"})
	_, err = DescribePython(context.Background(), spec)
	var pe *PythonError
	if !errors.As(err, &pe) || pe.Where != filepath.Join(dir, "checks.py")+":2" || !strings.HasPrefix(pe.Msg, "SyntaxError") {
		t.Fatalf("got %v, want a SyntaxError at checks.py:2", err)
	}
}

// A module in the working directory (the project an agent works in) or in a sibling
// directory of the hook (another, unapproved plugin) does not take the place of the one a
// hook imports: the standard library and the installed packages come first, and the working
// directory is not searched.
func TestPythonImportsAreNotShadowed(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "shadowed")
	shadow := "open(" + strconv.Quote(marker) + ", 'w').write('ran')\n"
	cwd := t.TempDir()
	testutil.WriteFiles(t, cwd, map[string]string{"colorsys.py": shadow, "hermes_cwd_only.py": shadow})
	t.Chdir(cwd)
	hooks, _ := pythonPlugin(t, `import colorsys, importlib

def probe(**kw):
    try:
        importlib.import_module("hermes_cwd_only")
        cwd = "imported"
    except ImportError:
        cwd = "not found"
    return {"context": "%s %s" % (hasattr(colorsys, "rgb_to_hsv"), cwd)}

def register(ctx):
    ctx.register_hook("pre_llm_call", probe)
`, func(s *PythonSpec) {
		testutil.WriteFiles(t, filepath.Dir(s.Dir), map[string]string{"colorsys/__init__.py": shadow})
	})
	res := hooks[0].Run(context.Background(), map[string]any{"session_id": "s", "user_message": "hi"}, RunOptions{})
	if res.Status != hookspec.StatusOK || res.Answer.Text != "True not found" {
		t.Fatalf("got %+v, want the standard library's colorsys and no module from the working directory", res)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a shadowing module ran")
	}
}

// A Python reached through a launcher (pyenv's shim: a tree of shell scripts at each start)
// runs the launcher once, to describe the hook; the co-processes run the interpreter it
// reported, which is what the launcher would have chosen.
func TestPythonCoProcessesRunTheInterpreterItself(t *testing.T) {
	testutil.NeedPython(t)
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log, launcher := filepath.Join(dir, "starts"), filepath.Join(dir, "python-launcher")
	testutil.WriteFiles(t, dir, map[string]string{"python-launcher": "#!/bin/sh\necho start >> " + log + "\nexec " + strings.TrimSpace(string(out)) + ` "$@"` + "\n"})
	if err := os.Chmod(launcher, 0o755); err != nil {
		t.Fatal(err)
	}
	hooks, _ := pythonPlugin(t, pyGuard, func(s *PythonSpec) { s.Python = launcher; s.Instances = 2 })
	ctx := context.Background()
	for range 3 {
		res := hooks[0].Run(ctx, map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "rm -rf /"}, "task_id": "t"}, RunOptions{})
		if res.Status != hookspec.StatusOK || res.Answer.Kind != hookspec.Block {
			t.Fatalf("through the reported interpreter: %+v", res)
		}
	}
	if starts, _ := os.ReadFile(log); string(starts) != "start\n" {
		t.Errorf("the launcher ran %d times, want once (the description)", strings.Count(string(starts), "start"))
	}
}
