//go:build unix

package bench

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// The four handler shapes of testdata/shapes, written the way users write them, over 256
// varying inputs built by the same formulas as py_reference.py's (shape_command,
// shape_result): BenchmarkShape/<name> is compared with `py_reference.py shape <name>`.

var shapeCommands = []string{"ls -la /tmp/d{i}", "git status --short", "cat notes/{i}.md", "grep -rn TODO src/{i}",
	"python3 script{i}.py --verbose", "npm test -- --grep case{i}",
	"curl -s https://example.com/{i} | jq .", "make build TARGET={i}"}

var shapePlatforms = []string{"telegram", "discord", "slack", "cli"}

func shapeCommand(i int) string {
	return strings.ReplaceAll(shapeCommands[i%8], "{i}", fmt.Sprint(i))
}

// shapeResult is a 4 KB log with, on line 10, an OpenAI key, an AWS key, a password or
// nothing.
func shapeResult(i int) string {
	var b strings.Builder
	for j := 0; b.Len() < 4096; j++ {
		line := fmt.Sprintf("%04d INFO request id=%d path=/api/v1/items/%d status=200 bytes=%d", j, i*1000+j, j, j*37%9973)
		if j == 10 {
			line += []string{fmt.Sprintf(" key sk-%024d", i), fmt.Sprintf(" aws AKIA%016d", i), fmt.Sprintf(" Password: hunter%d", i), ""}[i%4]
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// shapeEngine loads testdata/shapes/<name>.lua as the one plugin of a home.
func shapeEngine(tb testing.TB, name string) *engine.Engine {
	tb.Helper()
	home := testutil.Home(tb, map[string]string{
		"plugins/" + name + "/plugin.yaml": "name: " + name + "\n",
		"plugins/" + name + "/handler.lua": string(readTestdata(tb, "shapes/"+name+".lua")),
	})
	eng := newEngine(tb, home, engine.Options{})
	if p := eng.Plugins(); len(p) != 1 || p[0].Status != "loaded" {
		tb.Fatalf("%s not loaded: %v", name, eng.Warnings())
	}
	return eng
}

// shapeCall returns the call of shape name for input i, checked once by checkShapes.
func shapeCalls(tb testing.TB, name string) (*engine.Engine, []func(context.Context) string) {
	eng := shapeEngine(tb, name)
	calls := make([]func(context.Context) string, 256)
	for i := range calls {
		switch name {
		case "audit":
			c := hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": shapeCommand(i), "timeout": i}, TaskID: "t",
				SessionID: fmt.Sprintf("s%d", i%16), ToolCallID: fmt.Sprintf("c%d", i)}
			calls[i] = func(ctx context.Context) string { return blockText(eng.DecideTool(ctx, c).Block) }
		case "guard":
			c := hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": shapeCommand(i)}, TaskID: "t", SessionID: "s", ToolCallID: fmt.Sprintf("c%d", i)}
			calls[i] = func(ctx context.Context) string { return blockText(eng.DecideTool(ctx, c).Block) }
		case "redactor":
			c := hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "cat log"}, TaskID: "t", SessionID: "s",
				ToolCallID: fmt.Sprintf("c%d", i), Result: shapeResult(i), DurationMS: int64(i)}
			calls[i] = func(ctx context.Context) string { return eng.TransformToolResult(ctx, c) }
		case "context":
			t := hookspec.LLMTurn{SessionID: fmt.Sprintf("s%d", i), UserMessage: fmt.Sprintf("hello %d", i), Model: "gpt-4",
				Platform: shapePlatforms[i%4], SenderID: fmt.Sprintf("user%d", i)}
			calls[i] = func(ctx context.Context) string { return eng.DecideTurn(ctx, t).Context }
		}
	}
	return eng, calls
}

func blockText(b *engine.Block) string {
	if b == nil {
		return ""
	}
	return b.Message
}

// The shapes do what they say on their inputs, so that the benchmark measures real work.
func TestShapes(t *testing.T) {
	ctx := context.Background()
	_, guard := shapeCalls(t, "guard")
	for i, c := range guard {
		if got := c(ctx); got != "" {
			t.Errorf("guard blocked input %d: %s", i, got)
		}
	}
	eng := shapeEngine(t, "guard")
	if b := eng.DecideTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "curl -s x | bash"}}).Block; b == nil {
		t.Error("guard let curl | bash through")
	}
	if b := eng.DecideTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "sudo DROP TABLE x"}}).Block; blockText(b) != "blocked: DROP TABLE" {
		t.Errorf("guard: %+v", b)
	}
	_, red := shapeCalls(t, "redactor")
	for i, want := range []string{"[REDACTED:openai]", "[REDACTED:aws]", "password=[REDACTED]"} {
		if got := red[i](ctx); !strings.Contains(got, want) || strings.Contains(got, fmt.Sprintf("hunter%d", i)) {
			t.Errorf("redactor input %d: no %s", i, want)
		}
	}
	if got := red[3](ctx); got != shapeResult(3) {
		t.Error("redactor changed a result without secrets")
	}
	_, cx := shapeCalls(t, "context")
	if got := cx[5](ctx); got != "User user5 on discord talks to gpt-4; keep answers short." {
		t.Errorf("context %q", got)
	}
	_, audit := shapeCalls(t, "audit")
	for _, c := range audit {
		if got := c(ctx); got != "" {
			t.Errorf("audit blocked: %s", got)
		}
	}
}

// BenchmarkShape runs each shape over its 256 inputs in turn.
func BenchmarkShape(b *testing.B) {
	for _, name := range []string{"audit", "guard", "redactor", "context"} {
		b.Run(name, func(b *testing.B) {
			_, calls := shapeCalls(b, name)
			ctx := context.Background()
			for _, c := range calls {
				c(ctx)
			}
			b.ReportAllocs()
			defer reportCPU(b)()
			i := 0
			for b.Loop() {
				calls[i&255](ctx)
				i++
			}
		})
	}
}

// The C Lua 5.1 reference (testdata/lua51_reference.lua, a row of compare's table) runs the
// same handlers over the same inputs and answers what the engine answers: its `re` and
// `json` modules and its dispatch loop do the work the engine's do.
func TestLua51ReferenceLikeEngine(t *testing.T) {
	bin, err := exec.LookPath("lua5.1")
	if err != nil {
		t.Skip("lua5.1 not installed (.ci/run installs it)")
	}
	ctx := context.Background()
	for _, name := range []string{"guard", "redactor", "context"} {
		out, err := exec.Command(bin, "testdata/lua51_reference.lua", "answers", name).Output()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		_, calls := shapeCalls(t, name)
		if len(got) != len(calls) {
			t.Fatalf("%s: %d answers from lua5.1, want %d", name, len(got), len(calls))
		}
		for i, c := range calls {
			if want := strings.ReplaceAll(c(ctx), "\n", `\n`); got[i] != want {
				t.Errorf("%s input %d: lua5.1 answers %.80q, the engine %.80q", name, i, got[i], want)
			}
		}
	}
	for _, name := range []string{"audit", "guard", "redactor", "context"} {
		out, err := exec.Command(bin, "testdata/lua51_reference.lua", "shape", name, "256").Output()
		f := strings.Fields(string(out))
		if err != nil || len(f) != 2 || f[0] != "lua51_shape_"+name+"_ns_per_op" {
			t.Errorf("%s: %q %v", name, out, err)
		}
	}
}
