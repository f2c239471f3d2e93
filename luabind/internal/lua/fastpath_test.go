package lua

import (
	"strings"
	"testing"
)

// TestMaxStringSize: `..` refuses a result longer than Options.MaxStringSize, counting a
// number as 32 bytes, with StringSizeError's message, before building it; results at the
// bound are built, and a state without the option has no bound.
func TestMaxStringSize(t *testing.T) {
	for _, tt := range []struct {
		src, msg string
		max      int
		ok       bool
	}{
		{`local a = "12345" return a .. a`, "", 10, true},
		{`local a = "12345" return a .. a .. "x"`, "too long here", 10, false},
		{`local a = "12345" return a .. a .. "x"`, "", 10, false},
		{`local a = "12345" return a .. 1`, "", 40, true},
		{`local a = "12345" return a .. 1`, "", 36, false},
		{`local a = "12345" return a .. a .. "x"`, "", 0, true},
	} {
		for _, plain := range []bool{false, true} {
			L := NewState(Options{MaxStringSize: tt.max, StringSizeError: tt.msg, SkipFastPaths: plain})
			err := L.DoString(tt.src)
			L.Close()
			want := tt.msg
			if want == "" {
				want = "string too large"
			}
			switch {
			case tt.ok && err != nil:
				t.Errorf("%s (max %d): %v", tt.src, tt.max, err)
			case !tt.ok && (err == nil || !strings.Contains(err.Error(), "<string>:1: "+want)):
				t.Errorf("%s (max %d): got %v, want %q", tt.src, tt.max, err, want)
			}
		}
	}
}

// TestPollAfterLongConcat: a `..` that builds 64 KiB or more is followed by a poll of the
// context; a short one is not.
func TestPollAfterLongConcat(t *testing.T) {
	L := NewState()
	defer L.Close()
	L.SetGlobal("big", LString(strings.Repeat("x", concatPollSize/2)))
	for _, tt := range []struct {
		src  string
		stop bool // before done is set
	}{
		{`local s = big .. "x" .. big done = true`, true},
		{`local s = big .. "x" done = true`, false},
	} {
		L.SetGlobal("done", LFalse)
		// The poll before the first instruction passes; the next one (after the join, or on
		// returning) stops.
		ctx := newStopAfter(2)
		L.SetContext(ctx)
		err := L.DoString(tt.src)
		L.RemoveContext()
		if err == nil || (L.GetGlobal("done") == LTrue) == tt.stop {
			t.Errorf("%s: got %v, done = %v", tt.src, err, L.GetGlobal("done"))
		}
	}
}
