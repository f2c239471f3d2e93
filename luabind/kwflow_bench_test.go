package luabind

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/hermes-hooks/hermes/luabind/internal/kwflow"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// benchToolArgs is a pre_tool_call's kwargs as the engine hands them (engine/kwargs.go
// toolArgs): a Table that writes its fields straight into Lua's table.
type benchToolArgs struct {
	name, taskID, sessionID, callID string
	args                            map[string]any
}

func (a *benchToolArgs) FillLua(w TableWriter) {
	w.String("tool_name", a.name)
	w.Value("args", a.args)
	w.String("task_id", a.taskID)
	w.String("session_id", a.sessionID)
	w.String("tool_call_id", a.callID)
}

func (a *benchToolArgs) FieldCount() int { return 5 }

// BenchmarkKwargsReuse measures what refilling the kwargs table (internal/kwflow) saves over
// building it for every call, on the handlers of tests/bench: reference.lua (the
// PreToolCallLua workload) and shapes/guard.lua, with calls that differ like real ones
// (their own tool_call_id and command, a ring of 256). reuse=off replaces the analysis by
// one that never proves a function blind to the reuse, as for a callback that lets kw
// escape. Compare reuse=on with reuse=off from the same run.
func BenchmarkKwargsReuse(b *testing.B) {
	calls := make([]*benchToolArgs, 256)
	for i := range calls {
		calls[i] = &benchToolArgs{name: "terminal", taskID: "task-1", sessionID: "session-1",
			callID: fmt.Sprintf("call_%d", i), args: map[string]any{"command": fmt.Sprintf("ls -la /tmp/d%d", i)}}
	}
	for _, shape := range []string{"reference.lua", "shapes/guard.lua"} {
		src, err := os.ReadFile("../tests/bench/testdata/" + shape)
		if err != nil {
			b.Fatal(err)
		}
		for _, reuse := range []bool{true, false} {
			b.Run(fmt.Sprintf("%s/reuse=%s", shape, map[bool]string{true: "on", false: "off"}[reuse]), func(b *testing.B) {
				if !reuse {
					analyze = func(*lua.LFunction, int) kwflow.Use { return kwflow.Use{Why: "reuse off"} }
					defer func() { analyze = kwflow.AnalyzeFunc }()
				}
				p, err := LoadPlugin(context.Background(), src, Options{})
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				if fresh := p.Registrations()[0].FreshKwargs; (fresh == "") != reuse {
					b.Fatalf("reuse=%v but FreshKwargs = %q", reuse, fresh)
				}
				ctx := context.Background()
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if _, _, err := p.CallTimed(ctx, 0, calls[i&255], false); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}
