package lua

// Converting a Go string to a Lua value (an LString in an LValue interface) allocates a
// box for it every time. Values handed from Go to Lua repeat: a session's id, a tool's
// name, a model, a platform arrive with every call. StringValue gives a string the box of
// an equal string it boxed recently, from a small cache of each state: Lua cannot tell two
// equal strings apart, and a box is never written, so sharing it is invisible.

// stringBoxes is the number of boxes a state keeps, and stringBoxMax the longest string it
// keeps one for: past that, comparing could cost more than the allocation it saves.
const (
	stringBoxBits = 6
	stringBoxes   = 1 << stringBoxBits
	stringBoxMax  = 128
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
	// The length and three bytes, mixed by a multiplicative hash (Fibonacci hashing): the
	// top bits index the cache.
	h := uint64(n) | uint64(s[0])<<8 | uint64(s[n-1])<<16 | uint64(s[n/2])<<24
	e := &ls.boxes[(h*0x9E3779B97F4A7C15)>>(64-stringBoxBits)]
	if old, ok := (*e).(LString); ok && string(old) == s {
		return *e
	}
	v := LValue(LString(s))
	*e = v
	return v
}
