package jsonvalue

import (
	"testing"
)

// A file read and written back unchanged keeps its keys' order, its numbers as written and
// its text unescaped; a key set or deleted changes only that key.
func TestOrderedRoundTrip(t *testing.T) {
	in := `{"z": 1, "a": {"y": 1.50, "b": ["<x>", true, null, "a"]}, "m": 1e3, "a2": "a2"}`
	v, err := DecodeOrdered([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := EncodeIndented(v)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"z\": 1,\n  \"a\": {\n    \"y\": 1.50,\n    \"b\": [\n      \"<x>\",\n      true,\n      null,\n      \"a\"\n    ]\n  },\n  \"m\": 1e3,\n  \"a2\": \"a2\"\n}\n"
	if string(out) != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	o := v.(*Object)
	o.Delete("a")
	o.Set("z", "new")
	o.Set("n", NewObject())
	out, _ = EncodeIndented(o)
	if want := "{\n  \"z\": \"new\",\n  \"m\": 1e3,\n  \"a2\": \"a2\",\n  \"n\": {}\n}\n"; string(out) != want {
		t.Fatalf("after edits got\n%s", out)
	}
	if _, err := DecodeOrdered([]byte(`{"a": 1} {}`)); err == nil {
		t.Error("trailing data read without an error")
	}
	if _, err := DecodeOrdered([]byte(`{"a": `)); err == nil {
		t.Error("a cut document read without an error")
	}
}
