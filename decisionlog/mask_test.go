package decisionlog

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMask(t *testing.T) {
	in := func() map[string]any {
		return map[string]any{
			"tool_name": "terminal",
			"args":      map[string]any{"command": "curl -H 'x: k'", "headers": []any{map[string]any{"token": "a"}, map[string]any{"token": "b", "n": "c"}}},
			"list":      []string{"x", "y"},
		}
	}
	for _, tc := range []struct {
		paths []string
		want  map[string]any
	}{
		{nil, map[string]any{"tool_name": "terminal",
			"args": map[string]any{"command": "curl -H 'x: k'", "headers": []any{map[string]any{"token": "a"}, map[string]any{"token": "b", "n": "c"}}}, "list": []any{"x", "y"}}},
		{[]string{"args.command"}, map[string]any{"tool_name": "terminal",
			"args": map[string]any{"command": Marker, "headers": []any{map[string]any{"token": "a"}, map[string]any{"token": "b", "n": "c"}}}, "list": []any{"x", "y"}}},
		{[]string{"args.headers.*.token", "list.*", "missing.path", "tool_name.x"}, map[string]any{"tool_name": "terminal",
			"args": map[string]any{"command": "curl -H 'x: k'", "headers": []any{map[string]any{"token": Marker}, map[string]any{"token": Marker, "n": "c"}}}, "list": []any{Marker, Marker}}},
		{[]string{"*"}, map[string]any{"tool_name": Marker, "args": Marker, "list": Marker}},
	} {
		m, err := NewMasker(tc.paths)
		if err != nil {
			t.Fatal(err)
		}
		orig := in()
		if d := cmp.Diff(tc.want, m.Apply(orig)); d != "" {
			t.Errorf("%q (-want +got):\n%s", tc.paths, d)
		}
		if d := cmp.Diff(in(), orig); d != "" {
			t.Errorf("%q changed its input:\n%s", tc.paths, d)
		}
	}
}

func FuzzMaskPath(f *testing.F) {
	f.Add("args.*.token")
	f.Add("a..b")
	f.Fuzz(func(t *testing.T, p string) {
		m, err := NewMasker([]string{p})
		if err != nil {
			return
		}
		m.Apply(map[string]any{"args": map[string]any{"x": []any{map[string]any{"token": "t"}}}})
	})
}
