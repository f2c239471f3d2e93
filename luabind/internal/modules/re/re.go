package re

import (
	"time"

	"regexp"
	"strings"
	"unsafe"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/modules"
	"github.com/hermes-hooks/hermes/luabind/internal/stdlib"
)

const maxCachedRegexps = 256

// Module is the re module; it has nothing per hook.
type Module struct{}

// Instance is the re module in one state.
type Instance struct{ vu modules.VU }

var (
	_ modules.Module   = Module{}
	_ modules.Instance = (*Instance)(nil)
)

// NewModuleInstance implements modules.Module.
func (Module) NewModuleInstance(vu modules.VU) modules.Instance { return &Instance{vu: vu} }

// re.find_all returns at most reMaxResults matches: each costs about reResultSize bytes
// (its string header, its table slot and the boxed value), and limits.CheckSize refuses more.
const (
	reResultSize = 64
	reMaxResults = limits.MaxStringSize / reResultSize
)

// Exports implements modules.Instance: the re module, Go regular expressions (RE2 syntax).
//
//	re.match(s, pattern)          -> true if pattern matches anywhere in s
//	re.find(s, pattern)           -> the first match and its captures, or nil
//	re.find_all(s, pattern, n?)   -> an array of matches (at most n)
//	re.gsub(s, pattern, repl)     -> new string, number of replacements; repl is a
//	                                 string with $1 / ${name} references, or a function
//	                                 called with the match and its captures
//	re.quote(s)                   -> s with every metacharacter escaped
func (i *Instance) Exports() lua.LValue {
	L := i.vu.Runtime()
	timeout := i.vu.CallTimeout
	var c reCache
	return modules.FuncTable(L, map[string]lua.LGFunction{
		"match": modules.Fn2(func(L *lua.LState, s, pattern string) (bool, error) {
			re, err := c.compile(pattern)
			if err != nil {
				return false, err
			}
			if !re.mayMatch(s) {
				return false, nil
			}
			w := newReWork(L, timeout(), re, "re.match", s)
			return w.matches(s), nil
		}),
		"find": modules.Fn2(func(L *lua.LState, s, pattern string) (modules.Values, error) {
			return find(L, &c, timeout(), s, pattern)
		}),
		"find_all": modules.Fn3(func(L *lua.LState, s, pattern string, limit modules.Opt[int]) (lua.LValue, error) {
			return findAll(L, &c, timeout(), s, pattern, limit)
		}),
		"gsub": modules.Fn3(func(L *lua.LState, s, pattern string, repl lua.LValue) (modules.Values, error) {
			re, err := c.compile(pattern)
			if err != nil {
				return nil, err
			}
			add := reReplacement(L, re.Regexp, repl)
			if !re.mayMatch(s) {
				return modules.Values{lua.LString(s), lua.LNumber(0)}, nil
			}
			out, count := reReplaceAll(L, newReWork(L, timeout(), re, "re.gsub", s), s, add)
			return modules.Values{out, lua.LNumber(count)}, nil
		}),
		"quote": modules.Fn1(func(L *lua.LState, s string) (string, error) {
			limits.CheckSize(L, "re.quote", int64(quotedSize(s)))
			return regexp.QuoteMeta(s), nil
		}),
	})
}

// find is re.find: the first match and its captures ("" for one that did not take part),
// or nil.
func find(L *lua.LState, c *reCache, timeout time.Duration, s, pattern string) (modules.Values, error) {
	re, err := c.compile(pattern)
	if err != nil {
		return nil, err
	}
	var a []int
	if re.mayMatch(s) {
		a = newReWork(L, timeout, re, "re.find", s).search(s, 0)
	}
	if a == nil {
		return modules.Values{lua.LNil}, nil
	}
	out := make(modules.Values, len(a)/2)
	for i := range out {
		if a[2*i] >= 0 {
			out[i] = lua.LString(s[a[2*i]:a[2*i+1]])
		} else {
			out[i] = lua.LString("")
		}
	}
	return out, nil
}

// findAll is re.find_all: an array of the matches, at most limit of them.
func findAll(L *lua.LState, c *reCache, timeout time.Duration, s, pattern string, limit modules.Opt[int]) (lua.LValue, error) {
	re, err := c.compile(pattern)
	if err != nil {
		return nil, err
	}
	n := limit.V
	if !limit.Set || n < 0 || n > reMaxResults {
		n = reMaxResults + 1
	}
	t := L.CreateTable(0, 0)
	if n == 0 || !re.mayMatch(s) {
		return t, nil
	}
	w := newReWork(L, timeout, re, "re.find_all", s)
	count := 0
	w.each(s, func(a []int) bool {
		if count++; count > reMaxResults {
			limits.CheckSize(L, "re.find_all", int64(count)*reResultSize)
		}
		L.ChargeMemory(reResultSize)
		t.RawSetInt(count, lua.LString(s[a[0]:a[1]]))
		return count < n
	})
	return t, nil
}

// quotedSize is the length of regexp.QuoteMeta(s), which escapes each of its special
// characters with a backslash: up to twice the length of s, checked and charged before it
// is built.
func quotedSize(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		if quoted[s[i]] {
			n++
		}
	}
	return n
}

// quoted marks the characters regexp.QuoteMeta escapes.
var quoted = func() (q [256]bool) {
	for _, c := range []byte(`\.+*?()|[]{}^$`) {
		q[c] = true
	}
	return q
}()

// reCache is a state's compiled patterns, by pattern; it is emptied when full.
type reCache map[string]*rePattern

// compile returns the compiled pattern, or an error about argument 2 (every function takes
// its pattern second).
func (c *reCache) compile(pat string) (*rePattern, error) {
	if re, ok := (*c)[pat]; ok {
		return re, nil
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil, &modules.ArgError{N: 2, Msg: "invalid regular expression: " + err.Error()}
	}
	if *c == nil || len(*c) >= maxCachedRegexps {
		*c = reCache{}
	}
	p := newRePattern(re)
	(*c)[pat] = p
	return p, nil
}

// A reAdd appends to out the replacement of the match a (submatch indexes, or nil) of
// src, all of src when a is nil.
type reAdd func(out *stdlib.ResultBuilder, src string, a []int)

// reReplacement returns what re.gsub replaces a match with: repl, a string with $1 /
// ${name} references, or a function called with the match and its captures (a result that
// is not a string or a number keeps the match).
func reReplacement(L *lua.LState, re *regexp.Regexp, repl lua.LValue) reAdd {
	switch repl := repl.(type) {
	case lua.LString:
		return func(out *stdlib.ResultBuilder, src string, a []int) { reExpand(out, re, string(repl), src, a) }
	case *lua.LFunction:
		return func(out *stdlib.ResultBuilder, src string, a []int) {
			L.Push(repl)
			for i := 0; i+1 < len(a); i += 2 {
				if a[i] >= 0 {
					L.Push(lua.LString(src[a[i]:a[i+1]]))
				} else {
					L.Push(lua.LString(""))
				}
			}
			L.Call(len(a)/2, 1)
			r := L.Get(-1)
			L.Pop(1)
			switch r := r.(type) {
			case lua.LString:
				out.Add(string(r))
			case lua.LNumber:
				out.Add(r.String())
			default:
				if a != nil {
					src = src[a[0]:a[1]]
				}
				out.Add(src)
			}
		}
	}
	L.ArgError(3, "string or function expected")
	return nil
}

// reReplaceAll is regexp's ReplaceAllString (same matches, same rule for empty matches),
// building the result in a stdlib.ResultBuilder, under w's limits.
func reReplaceAll(L *lua.LState, w *reWork, s string, add reAdd) (lua.LString, int) {
	out := stdlib.ResultBuilder{L: L, What: "re.gsub"}
	last, count := 0, 0
	w.eachReplace(s, func(a []int, replace bool) {
		out.Add(s[last:a[0]])
		if replace {
			count++
			add(&out, s, a)
		}
		last = a[1]
	})
	if count == 0 {
		return lua.LString(s), 0
	}
	out.Add(s[last:])
	return out.Result(), count
}

// reExpand appends to r template expanded for the match a of src (nothing for a reference when a
// is nil). It expands one reference at a time, each into a scratch buffer first, since a
// reference may repeat the whole match: every addition is checked before it is made.
func reExpand(r *stdlib.ResultBuilder, re *regexp.Regexp, template, src string, a []int) {
	var scratch []byte
	for template != "" {
		end := reNextReference(template)
		if template[0] != '$' {
			r.Add(template[:end])
		} else {
			scratch = re.ExpandString(scratch[:0], template[:end], src, a)
			r.Add(unsafe.String(unsafe.SliceData(scratch), len(scratch)))
		}
		template = template[end:]
	}
}

// reNextReference returns the index of the first '$' in t after its start that begins a
// reference ("$$" is an escaped '$', kept whole), or len(t).
func reNextReference(t string) int {
	i := 1
	if strings.HasPrefix(t, "$$") {
		i = 2
	}
	if j := strings.IndexByte(t[min(i, len(t)):], '$'); j >= 0 {
		return i + j
	}
	return len(t)
}
