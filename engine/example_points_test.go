package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
)

// The agent is about to stop: pre_verify's hooks may keep it going, with a reason that is
// its next user turn, at most max_verify_nudges times a turn.
func ExampleEngine_PreVerify() {
	home, _ := os.MkdirTemp("", "hermes-example")
	defer os.RemoveAll(home)
	dir := filepath.Join(home, "plugins", "tests-pass")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("max_verify_nudges: 2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "plugin.yaml"), []byte("name: tests-pass\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "handler.lua"), []byte(`
function register(ctx)
  ctx.register_hook("pre_verify", function(kw)
    if not kw.response:find("tests pass") then
      return { action = "continue", reason = "Run the tests first." }
    end
  end)
end
`), 0o644)
	ctx := context.Background()
	eng, err := engine.New(ctx, engine.Options{Home: home})
	if err != nil {
		fmt.Println("config error:", err)
		return
	}
	defer eng.Close(ctx)

	responses := []string{"Done.", "Done, really.", "Still done.", "Done; the tests pass."}
	for nudges, response := range responses {
		d := eng.PreVerify(ctx, hookspec.Verify{SessionID: "s1", Response: response, Nudges: nudges})
		switch {
		case d.Continue:
			fmt.Printf("%q: keep going: %s\n", response, d.Reason)
			continue
		case d.Capped:
			fmt.Printf("%q: stop (max_verify_nudges reached)\n", response)
		default:
			fmt.Printf("%q: stop\n", response)
		}
		break
	}
	// Output:
	// "Done.": keep going: Run the tests first.
	// "Done, really.": keep going: Run the tests first.
	// "Still done.": stop (max_verify_nudges reached)
}

// A hook answers the approval itself; the person is asked only when none does.
func ExampleEngine_PreApprovalRequest() {
	home, _ := os.MkdirTemp("", "hermes-example")
	defer os.RemoveAll(home)
	dir := filepath.Join(home, "plugins", "cleanup")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "plugin.yaml"), []byte("name: cleanup\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "handler.lua"), []byte(`
function register(ctx)
  ctx.register_hook("pre_approval_request", function(kw)
    if kw.command:find("^rm %-rf /tmp/") then return { action = "allow", remember = true } end
    if kw.command == "rm -rf /" then return { action = "deny", message = "never" } end
  end)
end
`), 0o644)
	ctx := context.Background()
	eng, _ := engine.New(ctx, engine.Options{Home: home})
	defer eng.Close(ctx)
	for _, cmd := range []string{"rm -rf /tmp/build", "rm -rf /", "chmod 777 ."} {
		d := eng.PreApprovalRequest(ctx, hookspec.Approval{Command: cmd})
		switch {
		case !d.Answered:
			fmt.Println(cmd + ": ask the person")
		case d.Allow && d.Remember:
			fmt.Println(cmd+": allowed by", d.Hook, "(remember)")
		case d.Allow:
			fmt.Println(cmd+": allowed by", d.Hook)
		default:
			fmt.Println(cmd+": denied by", d.Hook+":", d.Message)
		}
	}
	// Output:
	// rm -rf /tmp/build: allowed by cleanup (remember)
	// rm -rf /: denied by cleanup: never
	// chmod 777 .: ask the person
}
