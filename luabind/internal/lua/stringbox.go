package lua

// Converting a Go string to a Lua value (an LString in an LValue interface) allocates a
// box for it every time. Values handed from Go to Lua repeat: a session's id, a tool's
// name, a model, a platform arrive with every call. StringValue gives a string the box of
// an equal string it boxed recently, from a small cache of each state: Lua cannot tell two
// equal strings apart, and a box is never written, so sharing it is invisible.

// stringBoxes is the number of boxes a state keeps, and stringBoxMax the longest string it
// keeps one for: past that, comparing could cost more than the allocation it saves.
const (
	stringBoxes  = 64
	stringBoxMax = 128
)

// StringValue is LString(s) as a Lua value, in the box of an equal string this state boxed
// recently when there is one.
func (ls *LState) StringValue(s string) LValue {
	n := len(s)
	if n == 0 || n > stringBoxMax {
		return LString(s)
	}
	if ls.boxes == nil {
		ls.boxes = new([stringBoxes]LValue)
	}
	h := uint(n)*31 + uint(s[0])
	h = h*31 + uint(s[n-1])
	h = h*31 + uint(s[n/2])
	e := &ls.boxes[h%stringBoxes]
	if old, ok := (*e).(LString); ok && string(old) == s {
		return *e
	}
	v := LValue(LString(s))
	*e = v
	return v
}
