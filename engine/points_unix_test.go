//go:build unix

package engine

import (
	"context"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// The shell hooks of the lifecycle points answer with the same shapes as Lua's.
func TestShellHooksOfThePoints(t *testing.T) {
	home := testutil.Home(t, map[string]string{
		"verify.sh":  "#!/bin/sh\necho '{\"action\": \"continue\", \"reason\": \"lint first\"}'\n",
		"prompt.sh":  "#!/bin/sh\necho '{\"action\": \"block\", \"message\": \"not today\"}'\n",
		"approve.sh": "#!/bin/sh\necho '{\"action\": \"deny\", \"message\": \"ask the owner\", \"remember\": true}'\n",
		"compact.sh": "#!/bin/sh\necho '{\"context\": \"keep the plan\"}'\n",
	})
	for _, f := range []string{"verify.sh", "prompt.sh", "approve.sh", "compact.sh"} {
		if err := os.Chmod(home+"/"+f, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, home+"/config.yaml", "hooks:\n"+
		"  pre_verify: [{command: "+home+"/verify.sh}]\n"+
		"  pre_llm_call: [{command: "+home+"/prompt.sh}]\n"+
		"  pre_approval_request: [{command: "+home+"/approve.sh}]\n"+
		"  pre_compact: [{command: "+home+"/compact.sh}]\n")
	e := engineWith(t, home, Options{AcceptHooks: true})
	ctx := context.Background()
	if d := e.PreVerify(ctx, hookspec.Verify{}); !d.Continue || d.Reason != "lint first" {
		t.Errorf("pre_verify: %+v", d)
	}
	if d := e.DecideTurn(ctx, hookspec.LLMTurn{}); d.Block == nil || d.Block.Message != "not today" {
		t.Errorf("pre_llm_call: %+v", d)
	}
	if d := e.PreApprovalRequest(ctx, hookspec.Approval{Command: "x"}); !d.Answered || d.Allow || d.Message != "ask the owner" || !d.Remember {
		t.Errorf("pre_approval_request: %+v", d)
	}
	if c := e.PreCompact(ctx, hookspec.Compaction{}); c != "keep the plan" {
		t.Errorf("pre_compact: %q", c)
	}
	rep := e.Fire(ctx, hookspec.PreVerify, nil)
	if diff := cmp.Diff(map[string]any{"action": "continue", "reason": "lint first"}, rep.Outcome); diff != "" {
		t.Errorf("Fire(pre_verify).Outcome (-want +got):\n%s", diff)
	}
}
