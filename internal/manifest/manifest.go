// Package manifest reads the YAML manifests of hooks and plugins (HOOK.yaml, plugin.yaml)
// and the top level of config.yaml: strict about types, tolerant of unknown keys (a warning),
// and precise about where each problem is (file and line).
package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/safefile"
	"github.com/hermes-hooks/hermes/internal/suggest"
	"gopkg.in/yaml.v3"
)

// MaxSize is the largest manifest or config file read.
const MaxSize = 1 << 20

// Warning is one problem in a file, for one line of output.
type Warning = hookspec.Warning

// Error is a problem that stops a file from being used; it is a Warning too.
type Error struct{ Warning }

func (e *Error) Error() string { return e.String() }

// Errorf builds an *Error located at node (node may be nil).
func Errorf(file string, node *yaml.Node, format string, args ...any) *Error {
	w := Warning{File: file, Msg: fmt.Sprintf(format, args...)}
	if node != nil {
		w.Line = node.Line
	}
	return &Error{w}
}

// Read reads and parses a YAML file whose top level must be a mapping. An empty file is an
// empty mapping. Errors are *Error values with the file and, where known, the line.
func Read(path string) (*yaml.Node, error) {
	data, err := ReadFile(path, MaxSize)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// ReadFile reads a regular file of at most max bytes, opened as safefile opens it: a FIFO,
// a device or a symbolic link in its place is refused, never waited on or followed. A
// missing file is an error satisfying errors.Is(err, fs.ErrNotExist); a file refused, or
// larger than max, is an *Error.
func ReadFile(path string, max int) ([]byte, error) {
	data, err := safefile.ReadFile(path, max)
	if se := (*safefile.Error)(nil); errors.As(err, &se) {
		return nil, &Error{Warning{File: se.Path, Msg: se.Msg}}
	}
	return data, err
}

// Parse parses data as the YAML file named file.
func Parse(file string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: 1}, nil
		}
		return nil, yamlError(file, data, err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: 1}, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, Errorf(file, root, "top level is not a mapping of keys to values")
	}
	return root, nil
}

// yamlError turns "yaml: line 3: did not find expected key" into file:3: did not find ...,
// with the line of the problem (see problemLine).
func yamlError(file string, data []byte, err error) *Error {
	msg, line := splitYAMLError(err)
	return &Error{Warning{File: file, Line: problemLine(data, msg, line), Msg: "invalid YAML: " + msg}}
}

// splitYAMLError separates the message of a yaml.v3 error from the line it names (0: none).
func splitYAMLError(err error) (msg string, line int) {
	msg = strings.TrimPrefix(err.Error(), "yaml: ")
	if n, _ := fmt.Sscanf(msg, "line %d:", &line); n == 1 {
		msg = strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
	}
	return msg, line
}

// problemLine is the line of data where the YAML error msg is. yaml.v3 names the line where
// the enclosing block starts, and counts it from 0 for a parse error (a key indented wrong
// on line 3 of a list begun on line 2 is "line 1"; an error in a construct begun on line 1
// names no line at all), so its line is only a lower bound. The problem is on the first line
// at which the document fails the same way: the shortest prefix of whole lines, from that
// bound on, whose parse gives the same message. reported is returned when none does.
func problemLine(data []byte, msg string, reported int) int {
	var ends []int // ends[k-1]: the end of line k, newline included
	for i, b := range data {
		if b == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(ends) == 0 || ends[len(ends)-1] != len(data) {
		ends = append(ends, len(data))
	}
	fails := func(k int) bool {
		var doc yaml.Node
		err := yaml.NewDecoder(bytes.NewReader(data[:ends[k-1]])).Decode(&doc)
		if err == nil {
			return false
		}
		m, _ := splitYAMLError(err)
		return m == msg
	}
	lo, hi := max(reported, 1), len(ends)
	if lo > hi || !fails(hi) {
		return reported
	}
	if hi-lo > 64 { // a long file: halve the range while its lower half still fails
		for hi-lo > 64 {
			mid := lo + (hi-lo)/2
			if fails(mid) {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
	}
	for k := lo; k < hi; k++ {
		if fails(k) {
			return k
		}
	}
	return hi
}

// Resolve follows YAML aliases (*name) to the node they stand for, keeping the alias's
// position so that errors point where the value is used.
func Resolve(n *yaml.Node) *yaml.Node {
	if n == nil || n.Kind != yaml.AliasNode {
		return n
	}
	target := n
	for i := 0; target.Kind == yaml.AliasNode && target.Alias != nil && i < 100; i++ {
		target = target.Alias
	}
	resolved := *target
	resolved.Line, resolved.Column = n.Line, n.Column
	return &resolved
}

// Fields returns the values of a mapping by key. Keys not in known give one warning each,
// with a "did you mean" hint when one is close; they are still returned.
func Fields(file string, m *yaml.Node, known []string) (map[string]*yaml.Node, []Warning) {
	out := make(map[string]*yaml.Node, len(m.Content)/2)
	var warns []Warning
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], Resolve(m.Content[i+1])
		out[k.Value] = v
		if !slices.Contains(known, k.Value) {
			msg := fmt.Sprintf("unknown key %q (ignored)", k.Value)
			if s := suggest.Closest(k.Value, known); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			warns = append(warns, Warning{File: file, Line: k.Line, Msg: msg})
		}
	}
	return out, warns
}

// String decodes a string scalar.
func String(file string, n *yaml.Node, key string) (string, error) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "", Errorf(file, n, "%s must be a string", key)
	}
	return n.Value, nil
}

// Bool decodes a YAML boolean (true/false only; "yes" strings are not booleans here).
func Bool(file string, n *yaml.Node, key string) (bool, error) {
	var b bool
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&b) != nil {
		return false, Errorf(file, n, "%s must be true or false, got %q", key, n.Value)
	}
	return b, nil
}

// Int decodes an integer scalar.
func Int(file string, n *yaml.Node, key string) (int, error) {
	var i int
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || n.Decode(&i) != nil {
		return 0, Errorf(file, n, "%s must be an integer, got %q", key, n.Value)
	}
	return i, nil
}

// Number decodes an integer or float scalar.
func Number(file string, n *yaml.Node, key string) (float64, error) {
	var f float64
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") || n.Decode(&f) != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, Errorf(file, n, "%s must be a number, got %q", key, n.Value)
	}
	return f, nil
}

// StringList decodes a sequence of strings (a single string is not accepted).
func StringList(file string, n *yaml.Node, key string) ([]string, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, Errorf(file, n, "%s must be a list of strings", key)
	}
	out := make([]string, 0, len(n.Content))
	for _, item := range n.Content {
		item = Resolve(item)
		if item.Kind != yaml.ScalarNode {
			return nil, Errorf(file, item, "%s must be a list of strings, found a nested list or mapping", key)
		}
		if item.Tag != "!!str" {
			return nil, Errorf(file, item, "%s must be a list of strings, found %q", key, item.Value)
		}
		out = append(out, item.Value)
	}
	return out, nil
}

// Any decodes a node into plain Go values (maps, slices, scalars).
func Any(file string, n *yaml.Node, key string) (any, error) {
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, Errorf(file, n, "%s: %v", key, err)
	}
	return v, nil
}

// Permissions decodes a permissions mapping.
func Permissions(file string, n *yaml.Node) (hookspec.Permissions, []Warning, error) {
	var p hookspec.Permissions
	if n.Kind != yaml.MappingNode {
		return p, nil, Errorf(file, n, "permissions must be a mapping with fs, net, exec and env lists")
	}
	fields, warns := Fields(file, n, []string{"fs", "net", "exec", "env"})
	for key, dst := range map[string]*[]string{"fs": &p.FS, "net": &p.Net, "exec": &p.Exec, "env": &p.Env} {
		if v, ok := fields[key]; ok {
			list, err := StringList(file, v, "permissions."+key)
			if err != nil {
				return p, warns, err
			}
			*dst = list
		}
	}
	return p, warns, nil
}

// Timeout decodes a timeout in seconds: def when absent; zero or negative values use def and
// values above maxSeconds use maxSeconds, each with a warning. Fractions are allowed.
func Timeout(file string, n *yaml.Node, def, maxSeconds float64) (float64, []Warning, error) {
	if n == nil {
		return def, nil, nil
	}
	f, err := Number(file, n, "timeout")
	if err != nil {
		return def, nil, err
	}
	switch {
	case f <= 0:
		return def, []Warning{{File: file, Line: n.Line, Msg: fmt.Sprintf("timeout %v must be positive; using %v", n.Value, def)}}, nil
	case f > maxSeconds:
		return maxSeconds, []Warning{{File: file, Line: n.Line, Msg: fmt.Sprintf("timeout %v is above the maximum; using %v", n.Value, maxSeconds)}}, nil
	}
	return f, nil, nil
}

// Bounds of a hook's memory limit (memory:), in bytes.
const (
	MinMemory = 1 << 20
	MaxMemory = 4 << 30
)

// sizeUnits are the units Size accepts, in bytes.
var sizeUnits = map[string]int64{"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}

// Size decodes a size in bytes: an integer (bytes), or a string of a whole number and a
// unit, with or without a space between: B, KiB, MiB or GiB ("64MiB", "256 MiB"). def when
// absent; zero or negative values use def, values below minBytes use minBytes and values
// above maxBytes use maxBytes, each with a warning.
func Size(file string, n *yaml.Node, key string, def, minBytes, maxBytes int64) (int64, []Warning, error) {
	if n == nil {
		return def, nil, nil
	}
	bad := Errorf(file, n, "%s must be a size such as 64MiB, 256 MiB or 1GiB (units B, KiB, MiB, GiB) or a number of bytes, got %q", key, n.Value)
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!str") {
		return def, nil, bad
	}
	text := strings.TrimSpace(n.Value)
	digits := strings.TrimLeft(text, "+-0123456789")
	num, unit := text[:len(text)-len(digits)], strings.TrimSpace(digits)
	scale, ok := sizeUnits[unit]
	if !ok || num == "" || (n.Tag == "!!int" && unit != "") {
		return def, nil, bad
	}
	v, err := strconv.ParseInt(num, 10, 64)
	over := err != nil && errors.Is(err, strconv.ErrRange) && num[0] != '-'
	if err != nil && !over {
		return def, nil, bad
	}
	warn := func(format string, args ...any) []Warning {
		return []Warning{{File: file, Line: n.Line, Msg: fmt.Sprintf(format, args...)}}
	}
	switch {
	case over || v > maxBytes/scale:
		return maxBytes, warn("%s %s is above the maximum; using %s", key, n.Value, formatSize(maxBytes)), nil
	case v <= 0:
		return def, warn("%s %s must be positive; using %s", key, n.Value, formatSize(def)), nil
	case v*scale < minBytes:
		return minBytes, warn("%s %s is below the minimum; using %s", key, n.Value, formatSize(minBytes)), nil
	}
	return v * scale, nil, nil
}

// formatSize writes n bytes the way Size reads them, in the largest unit that divides it
// ("0" for the default).
func formatSize(n int64) string {
	switch {
	case n == 0:
		return "the default"
	case n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// Common holds the keys plugin.yaml and HOOK.yaml share. Set the defaults before Decode.
type Common struct {
	Name        string
	Description string
	Enabled     bool
	Timeout     float64 // seconds
	Memory      int64   // bytes a Lua state of the hook may hold
	Permissions hookspec.Permissions
}

// CommonKeys are the keys Decode reads.
var CommonKeys = []string{"name", "description", "enabled", "timeout", "memory", "permissions"}

// Decode reads the shared keys present in fields; timeouts above maxTimeout are capped.
func (c *Common) Decode(file string, fields map[string]*yaml.Node, maxTimeout float64) ([]Warning, error) {
	var warns []Warning
	for _, key := range CommonKeys {
		n, ok := fields[key]
		if !ok {
			continue
		}
		var err error
		var w []Warning
		switch key {
		case "name":
			c.Name, err = String(file, n, key)
			if err == nil && strings.TrimSpace(c.Name) == "" {
				err = Errorf(file, n, "name must not be empty")
			}
		case "description":
			c.Description, err = String(file, n, key)
		case "enabled":
			c.Enabled, err = Bool(file, n, key)
		case "timeout":
			c.Timeout, w, err = Timeout(file, n, c.Timeout, maxTimeout)
		case "memory":
			c.Memory, w, err = Size(file, n, key, c.Memory, MinMemory, MaxMemory)
		case "permissions":
			c.Permissions, w, err = Permissions(file, n)
		}
		warns = append(warns, w...)
		if err != nil {
			return warns, err
		}
	}
	return warns, nil
}
