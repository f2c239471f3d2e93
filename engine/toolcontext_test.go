package engine

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// A context given beside a tool decision reaches the model after the tool's result: from a
// Lua hook ({context=...}, alone or beside a modify), a shell hook ({"context": ...}) and a
// hook written for Claude Code (PreToolUse's additionalContext), joined in hook order, before post_tool_call's feedback;
// on a block it follows the block's message.
func TestToolContextReachesTheModel(t *testing.T) {
	home := testutil.Home(t, pluginFiles("lua", "", one("pre_tool_call", `
    if kw.args.command == "rm -rf x" then return {action = "block", message = "no rm", context = "use trash instead"} end
    if kw.args.command == "ls" then return {action = "modify", args = {command = "ls -la"}, context = "lua: listing in long form"} end
    return {context = "lua: the tree is clean"}`)))
	claude := script(t, home, "ctx.sh", `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"claude: rg is faster than grep"}}'`)
	plain := script(t, home, "plain.sh", `cat >/dev/null; echo '{"context":"shell: tests pass"}'`)
	feedback := script(t, home, "post.sh", `cat >/dev/null; echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"claude: output checked"}}'`)
	writeFile(t, filepath.Join(home, "config.yaml"), `
hooks:
  pre_tool_call:
    - {command: `+claude+`, dialect: claude, matcher: Bash}
    - {command: `+plain+`}
  post_tool_call:
    - {command: `+feedback+`, dialect: claude, matcher: Bash}
`)
	logs := &testutil.Buffer{}
	ctx := context.Background()
	eng, err := New(ctx, Options{Home: home, AcceptHooks: true, Logger: newTestLogger(logs)})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	var ran hookspec.ToolCall
	tool := func(_ context.Context, call hookspec.ToolCall) (string, error) {
		ran = call
		return `{"output":"ok"}`, nil
	}

	run := eng.RunTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}}, tool)
	wantCtx := "lua: listing in long form\n\nclaude: rg is faster than grep\n\nshell: tests pass"
	if run.Context != wantCtx {
		t.Errorf("ToolRun.Context %q, want %q", run.Context, wantCtx)
	}
	if want := `{"output":"ok"}` + "\n\n" + wantCtx + "\n\nclaude: output checked"; run.Result != want {
		t.Errorf("result the model sees:\n%q\nwant\n%q", run.Result, want)
	}
	if ran.Args["command"] != "ls -la" || !run.Modified {
		t.Errorf("the modify beside the context was lost: ran %v", ran.Args)
	}

	run = eng.RunTool(ctx, hookspec.ToolCall{Name: "read_file", Args: map[string]any{"path": "/a"}}, tool)
	if run.Context != "lua: the tree is clean\n\nshell: tests pass" || run.Result != `{"output":"ok"}`+"\n\nlua: the tree is clean\n\nshell: tests pass" {
		t.Errorf("a Lua context alone: context %q, result %q", run.Context, run.Result)
	}

	ran = hookspec.ToolCall{}
	run = eng.RunTool(ctx, hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "rm -rf x"}}, tool)
	if run.Block == nil || ran.Name != "" {
		t.Fatalf("the block beside a context did not block: %+v", run)
	}
	blockCtx := "use trash instead\n\nclaude: rg is faster than grep\n\nshell: tests pass"
	if want := `{"error":"no rm"}` + "\n\n" + blockCtx; run.Result != want || run.Context != blockCtx {
		t.Errorf("blocked call: result %q, context %q", run.Result, run.Context)
	}

	d := eng.DecideTool(ctx, hookspec.ToolCall{Name: "read_file", Args: map[string]any{"path": "/a"}})
	if d.Context != "lua: the tree is clean\n\nshell: tests pass" || d.Hook != "" || d.Block != nil || d.Modified || d.Approved {
		t.Errorf("a context alone decides nothing else: %+v", d)
	}
}
