//go:build unix

package bench

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// BenchmarkPythonPlugin is a pre_tool_call through a Python plugin (block_rm, in its
// co-process) against the same plugin under the original's dispatch loop, in process
// (py_reference.py plugin), measured in the same run: ns/op is ours, python-ns/op the
// original's, and ours/original their ratio.
func BenchmarkPythonPlugin(b *testing.B) {
	testutil.NeedPython(b)
	home := b.TempDir()
	dir := filepath.Join(home, "plugins", "block_rm")
	for _, f := range []string{"plugin.yaml", "__init__.py"} {
		testutil.WriteFiles(b, dir, map[string]string{f: string(readTestdata(b, filepath.Join("pyplugin", "block_rm", f)))})
	}
	ctx := context.Background()
	e, err := engine.New(ctx, engine.Options{Home: home, AcceptHooks: true})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close(ctx)
	if d := e.DecideTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "rm -rf /"}}); d.Block == nil {
		b.Fatalf("the python plugin did not block rm -rf /: %+v", d)
	}
	call := hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls -la /tmp"}, TaskID: "t", SessionID: "s", ToolCallID: "c"}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if d := e.DecideTool(ctx, call); d.Block != nil {
			b.Fatal(d.Block.Message)
		}
	}
	b.StopTimer()
	ours := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	theirs := pythonPluginNs(b, testdata(b, filepath.Join("pyplugin", "block_rm")))
	b.ReportMetric(theirs, "python-ns/op")
	b.ReportMetric(ours/theirs, "ours/original")
}

// pythonPluginNs is the original's time per pre_tool_call dispatch through the plugin in dir.
func pythonPluginNs(b *testing.B, dir string) float64 {
	out, err := exec.Command("python3", testdata(b, "py_reference.py"), "plugin", dir, "100000").Output()
	if err != nil {
		b.Fatalf("py_reference.py plugin: %v", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 || f[0] != "plugin_ns_per_op" {
		b.Fatalf("py_reference.py plugin printed %q", out)
	}
	ns, err := strconv.ParseFloat(f[1], 64)
	if err != nil {
		b.Fatal(err)
	}
	return ns
}
