package lua

import (
	"strings"
	"testing"
)

// TestStringValue: a string handed to StringValue comes back as itself, whatever the
// strings before it (equal ones, ones that share its slot of the cache, empty and long
// ones), and an equal string boxed again shares the first one's box.
func TestStringValue(t *testing.T) {
	L := NewState()
	defer L.Close()
	long := strings.Repeat("x", stringBoxMax+1)
	inputs := []string{"terminal", "terminal", "s1", "s2", "", "a", "b", "ab", "ba", "aXb", "aYb", "abcdef", "axcdef", "abcdef", long, long, "s1", "\x00", "terminal"}
	for i := range 300 { // more strings than boxes: slots are shared and replaced
		inputs = append(inputs, strings.Repeat("k", i%stringBoxMax+1), "c"+string(rune('a'+i%26))+"d")
	}
	for _, s := range inputs {
		v := L.StringValue(s)
		if got, ok := v.(LString); !ok || string(got) != s {
			t.Fatalf("StringValue(%q) = %#v", s, v)
		}
	}
	allocs := testing.AllocsPerRun(100, func() { L.StringValue("session-1234") })
	if allocs != 0 {
		t.Errorf("boxing an equal string again allocated %.0f times", allocs)
	}
}

// FuzzStringValue: StringValue gives each of a run of strings (the fuzzer's, split on
// '|') back as itself.
func FuzzStringValue(f *testing.F) {
	f.Add("terminal|terminal|s1|s2||ab|ba")
	f.Add("a|b|c|a|b|c")
	f.Fuzz(func(t *testing.T, data string) {
		L := NewState()
		defer L.Close()
		for _, s := range strings.Split(data, "|") {
			if got, ok := L.StringValue(s).(LString); !ok || string(got) != s {
				t.Fatalf("StringValue(%q) = %q", s, got)
			}
		}
	})
}
