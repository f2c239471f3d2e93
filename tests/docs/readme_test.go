package docs

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// readmeExample holds the README's embedding example, line for line (TestReadmeShowsExample
// checks that README.md shows exactly the lines between the markers).
func readmeExample(ctx context.Context, home string, logger *slog.Logger, sid, msg string,
	askModel func(msg, context string) hookspec.ToolCall, runTool func(context.Context, hookspec.ToolCall) (string, error),
	reply func(string) error) error {
	// README begin
	eng, err := engine.New(ctx, engine.Options{Home: home, Logger: logger})
	if err != nil {
		return err // only a broken config.yaml fails: broken hooks are skipped with a warning
	}
	defer eng.Close(ctx)

	turn := eng.DecideTurn(ctx, hookspec.LLMTurn{SessionID: sid, UserMessage: msg})
	if turn.Block != nil {
		return reply(turn.Block.Message) // a hook stopped the prompt
	}
	call := askModel(msg, turn.Context)    // hooks' context is for this turn only
	run := eng.RunTool(ctx, call, runTool) // the guards, then the tool with the arguments hooks left
	return reply(run.Result)               // a blocked call's result is {"error": "<why>"}
	// README end
}

// The README shows the example this test runs.
func TestReadmeShowsExample(t *testing.T) {
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	code := string(src)
	code = code[strings.Index(code, "// README begin\n")+len("// README begin\n") : strings.Index(code, "\t// README end")]
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(code, "\n"), "\n") {
		lines = append(lines, strings.TrimPrefix(l, "\t"))
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := "```go\n" + strings.Join(lines, "\n") + "\n```"
	if !strings.Contains(string(readme), block) {
		t.Errorf("README.md does not show the example readmeExample runs; it should show:\n%s", block)
	}
}

// A host written as the README shows runs the tool with the arguments a hook rewrote, and
// never runs a call a guard blocks, even when another hook rewrote it first.
func TestReadmeExampleKeepsRewrites(t *testing.T) {
	home := testutil.Home(t, map[string]string{
		"plugins/lease/plugin.yaml": "name: lease\npriority: 10\n",
		"plugins/lease/handler.lua": `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    local c = kw.args.command
    if c:find("--force", 1, true) and not c:find("--force-with-lease", 1, true) then
      return {action = "modify", args = {command = c:gsub("%-%-force", "--force-with-lease")}}
    end
  end)
  ctx.register_hook("pre_llm_call", function(kw) return "on branch main" end)
end`,
		"plugins/guard/plugin.yaml": "name: guard\n",
		"plugins/guard/handler.lua": `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if kw.args.command:find("origin main", 1, true) then return {action = "block", message = "not main"} end
  end)
end`,
	})
	for _, tt := range []struct{ command, ran, reply string }{
		{"git push --force origin topic", "git push --force-with-lease origin topic", "pushed"},
		{"git push --force origin main", "", `{"error":"not main"}`},
	} {
		var ran, given, replied string
		err := readmeExample(context.Background(), home, slog.New(slog.DiscardHandler), "s1", "push it",
			func(_, ctx string) hookspec.ToolCall {
				given = ctx
				return hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": tt.command}, SessionID: "s1"}
			},
			func(_ context.Context, c hookspec.ToolCall) (string, error) {
				ran = c.Args["command"].(string)
				return "pushed", nil
			},
			func(s string) error { replied = s; return nil })
		if err != nil {
			t.Fatal(err)
		}
		if ran != tt.ran || replied != tt.reply || given != "on branch main" {
			t.Errorf("%q: the tool ran %q and the reply was %q (context %q), want %q and %q", tt.command, ran, replied, given, tt.ran, tt.reply)
		}
	}
}
