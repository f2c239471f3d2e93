package time_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/luabind/internal/modules/modulestest"
	timemod "github.com/hermes-hooks/hermes/luabind/internal/modules/time"
)

// A sleep is a wait outside Lua (the pool and the memory guard rely on it), and a sleep
// whose call is cancelled stops at once with an error.
func TestSleepIsAWaitAndStopsWithItsCall(t *testing.T) {
	vu := modulestest.New(t)
	vu.Require("time", timemod.Module{})
	if err := vu.L.DoString(`time.sleep(0.001)`); err != nil {
		t.Fatal(err)
	}
	if vu.Waits != 1 || vu.Ended != 1 {
		t.Errorf("a sleep began %d waits and ended %d, want 1 and 1", vu.Waits, vu.Ended)
	}
	if err := vu.L.DoString(`time.sleep(0)`); err != nil || vu.Waits != 1 {
		t.Errorf("sleep(0): %v, %d waits; want no wait", err, vu.Waits)
	}
	ctx, cancel := context.WithCancel(context.Background())
	vu.OnWait = cancel // the call is cancelled once the sleep has begun
	vu.L.SetContext(ctx)
	err := vu.L.DoString(`time.sleep(3600)`)
	if err == nil || !strings.Contains(err.Error(), "time.sleep interrupted") {
		t.Errorf("sleep in a cancelled call: %v, want it interrupted", err)
	}
	if vu.Ended != vu.Waits {
		t.Errorf("%d waits begun, %d ended", vu.Waits, vu.Ended)
	}
}
