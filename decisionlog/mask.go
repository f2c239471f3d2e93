package decisionlog

import (
	"fmt"
	"strings"
)

// Marker replaces every masked value.
const Marker = "<masked>"

// Masker replaces the values at a list of dotted paths (see the package's Masking). The
// zero value masks nothing. Safe for concurrent use.
type Masker struct {
	paths [][]string
}

// NewMasker compiles paths; an empty path or an empty segment ("args..x") is an error.
func NewMasker(paths []string) (*Masker, error) {
	m := &Masker{}
	for _, p := range paths {
		segs := strings.Split(p, ".")
		for _, s := range segs {
			if s == "" {
				return nil, fmt.Errorf("decisionlog: mask path %q has an empty segment (write a dotted path such as args.command or args.*.token)", p)
			}
		}
		m.paths = append(m.paths, segs)
	}
	return m, nil
}

// Apply returns a deep copy of v (maps of string keys and lists copied, other values
// shared) with the values at the masker's paths replaced by Marker. nil gives nil.
func (m *Masker) Apply(v map[string]any) map[string]any {
	if v == nil {
		return nil
	}
	out, _ := clone(v).(map[string]any)
	if m != nil {
		for _, p := range m.paths {
			maskAt(out, p)
		}
	}
	return out
}

// Empty reports whether the masker masks nothing.
func (m *Masker) Empty() bool { return m == nil || len(m.paths) == 0 }

// clone copies the maps and lists of v.
func clone(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = clone(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = clone(x)
		}
		return out
	case map[string]string:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = x
		}
		return out
	case []string:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = x
		}
		return out
	}
	return v
}

// maskAt replaces the values at path under v (a copy that is ours to change).
func maskAt(v any, path []string) {
	seg, last := path[0], len(path) == 1
	switch c := v.(type) {
	case map[string]any:
		for k, x := range c {
			if seg != "*" && seg != k {
				continue
			}
			if last {
				c[k] = Marker
			} else {
				maskAt(x, path[1:])
			}
		}
	case []any:
		if seg != "*" {
			return
		}
		for i, x := range c {
			if last {
				c[i] = Marker
			} else {
				maskAt(x, path[1:])
			}
		}
	}
}
