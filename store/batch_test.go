package store

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// mixedBatch is the batch the group-commit and pipelining tests queue together on one
// backend, where key "text" of ns holds "abc" and the byte quota is 1000: increments, an
// increment of a string, a write past the quota, a read and a write, in this order.
type mixedBatch struct {
	n1, n2 int64
	got    []byte
	found  bool
}

// calls are the batch's calls on b, to be queued in order.
func (m *mixedBatch) calls(ctx context.Context, b Backend, ns string) []func() error {
	return []func() error{
		func() (err error) { m.n1, err = b.Incr(ctx, ns, "n", 1, 0); return },
		func() error { _, err := b.Incr(ctx, ns, "text", 1, 0); return err },
		func() error { return b.Set(ctx, ns, "big", []byte(`"`+strings.Repeat("x", 2000)+`"`), 0) },
		func() (err error) { m.n2, err = b.Incr(ctx, ns, "n", 5, 0); return },
		func() (err error) { m.got, m.found, err = b.Get(ctx, ns, "n"); return },
		func() error { return b.Set(ctx, ns, "s", []byte(`"small"`), 0) },
	}
}

// check checks that each call of the batch (in) kept its own result, errs, and what b holds
// after it.
func (m *mixedBatch) check(t *testing.T, ctx context.Context, b Backend, ns, in string, errs []error) {
	t.Helper()
	if errs[0] != nil || m.n1 != 1 {
		t.Errorf("incr n: %d, %v; want 1", m.n1, errs[0])
	}
	if !errors.Is(errs[1], ErrNotInteger) || !strings.Contains(errs[1].Error(), "abc") {
		t.Errorf("incr of a string: %v, want ErrNotInteger naming the value", errs[1])
	}
	if !errors.Is(errs[2], ErrByteQuota) {
		t.Errorf("a set past the byte quota: %v, want ErrByteQuota", errs[2])
	}
	if errs[3] != nil || m.n2 != 6 {
		t.Errorf("incr n again: %d, %v; want 6", m.n2, errs[3])
	}
	if errs[4] != nil || !m.found || string(m.got) != "6" {
		t.Errorf("get n in the same %s: %q %v %v, want 6", in, m.got, m.found, errs[4])
	}
	if errs[5] != nil {
		t.Errorf("set s: %v", errs[5])
	}
	for key, want := range map[string]string{"n": "6", "text": `"abc"`, "s": `"small"`, "big": ""} {
		v, ok, err := b.Get(ctx, ns, key)
		if err != nil || string(v) != want || ok != (want != "") {
			t.Errorf("after the %s, %s = %q (%v, %v), want %q", in, key, v, ok, err, want)
		}
	}
}
