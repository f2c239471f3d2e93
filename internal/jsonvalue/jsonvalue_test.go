package jsonvalue

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecode(t *testing.T) {
	got, err := Decode([]byte(` {"n": 3, "f": 1.5, "big": 12345678901234567890, "huge": 1e400, "list": [1, -0, {"x": 2}]} `))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"n": int64(3), "f": 1.5, "big": 1.2345678901234567e19, "huge": "+Inf",
		"list": []any{int64(1), int64(0), map[string]any{"x": int64(2)}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, bad := range []string{``, `{`, `{} {}`, `1 x`} {
		if _, err := Decode([]byte(bad)); err == nil {
			t.Errorf("Decode(%q) succeeded", bad)
		}
	}
}
