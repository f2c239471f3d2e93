//go:build unix

package gateway

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// A Python gateway hook (HOOK.yaml + handler.py) gets its events on its own queue, in the
// order they were emitted, beside a Lua hook on the same events; Emit does not wait for it.
func TestPythonGatewayHookQueue(t *testing.T) {
	testutil.NeedPython(t)
	out := filepath.Join(t.TempDir(), "steps.log")
	home := testutil.Home(t, testutil.Merge(
		hookFiles("lua", "events: [\"agent:*\"]\n", echoHandler),
		map[string]string{
			"hooks/py/HOOK.yaml": "name: py\nevents: [\"agent:*\"]\ntimeout: 60\n",
			"hooks/py/handler.py": "async def handle(event_type, context):\n    with open('" + out + "', 'a') as f:\n" +
				"        f.write('%s %s\\n' % (event_type, context.get('iteration')))\n    return event_type\n",
		},
	))
	g, _ := newGateway(t, home, Options{Engine: engine.Options{AcceptHooks: true}})
	if rs := g.EmitSync(context.Background(), hookspec.NamedEvent{Name: "agent:start", Data: map[string]any{}}); len(rs) != 2 {
		t.Fatalf("EmitSync: %+v, want both hooks", rs)
	} else {
		for _, r := range rs {
			if r.Status != hookspec.StatusOK || r.Result != "agent:start" {
				t.Fatalf("EmitSync result %+v", r)
			}
		}
	}
	emitAll(t, g, 5)
	if err := g.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	want := "agent:start None\nagent:step 1\nagent:step 2\nagent:step 3\nagent:step 4\nagent:step 5\n"
	if string(b) != want {
		t.Fatalf("steps.log = %q, want every event handled in order", b)
	}
	for _, h := range g.Hooks() {
		if h.Name == "py" && (h.Runtime != "python" || !strings.HasPrefix(h.PythonVersion, "3.")) {
			t.Errorf("info %+v", h)
		}
	}
}
