package lua

import "testing"

// An upvalue counts the writes through it (OP_SETUPVAL, SetUpvalue), whether they change
// its value or not; reading it, or writing the register of a local while it is open, does
// not count.
func TestUpvalueWrites(t *testing.T) {
	L := NewState()
	defer L.Close()
	if err := L.DoString(`
local helper = 1
local function same() helper = helper end
function READ() return helper end
function WRITE() helper = 2 end
function SAME() same() end
helper = 3 -- the register, while the upvalue is open
`); err != nil {
		t.Fatal(err)
	}
	read := L.GetGlobal("READ").(*LFunction)
	uv := read.Upvalues[0]
	if !uv.IsClosed() || uv.Writes() != 0 || uv.Value() != LNumber(3) {
		t.Fatalf("after the chunk: closed %v, %d writes, value %v", uv.IsClosed(), uv.Writes(), uv.Value())
	}
	for i, step := range []struct {
		code   string
		writes uint64
	}{{"READ()", 0}, {"WRITE()", 1}, {"SAME()", 2}, {"READ()", 2}} {
		if err := L.DoString(step.code); err != nil {
			t.Fatal(err)
		}
		if got := uv.Writes(); got != step.writes {
			t.Errorf("step %d (%s): %d writes, want %d", i, step.code, got, step.writes)
		}
	}
	L.SetUpvalue(read, 1, LNumber(4))
	if uv.Writes() != 3 || uv.Value() != LNumber(4) {
		t.Errorf("after SetUpvalue: %d writes, value %v", uv.Writes(), uv.Value())
	}
}
