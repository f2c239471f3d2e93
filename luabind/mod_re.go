package luabind

import (
	"regexp"
	"strings"
	"unicode/utf8"
	"unsafe"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

const maxCachedRegexps = 256

// re.find_all returns at most reMaxResults matches: each costs about reResultSize bytes
// (its string header, its table slot and the boxed value), and checkSize refuses more.
const (
	reResultSize = 64
	reMaxResults = maxStringSize / reResultSize
)

// openRe builds the re module: Go regular expressions (RE2 syntax).
//
//	re.match(s, pattern)          -> true if pattern matches anywhere in s
//	re.find(s, pattern)           -> the first match and its captures, or nil
//	re.find_all(s, pattern, n?)   -> an array of matches (at most n)
//	re.gsub(s, pattern, repl)     -> new string, number of replacements; repl is a
//	                                 string with $1 / ${name} references, or a function
//	                                 called with the match and its captures
//	re.quote(s)                   -> s with every metacharacter escaped
func openRe(L *lua.LState, _ *env) lua.LValue {
	var c reCache
	return funcTable(L, map[string]lua.LGFunction{
		"match": fn2(func(_ *lua.LState, s, pattern string) (bool, error) {
			re, err := c.compile(pattern)
			if err != nil {
				return false, err
			}
			return re.mayMatch(s) && re.MatchString(s), nil
		}),
		"find": fn2(func(_ *lua.LState, s, pattern string) (values, error) {
			re, err := c.compile(pattern)
			if err != nil {
				return nil, err
			}
			var m []string
			if re.mayMatch(s) {
				m = re.FindStringSubmatch(s)
			}
			if m == nil {
				return values{lua.LNil}, nil
			}
			out := make(values, len(m))
			for i, part := range m {
				out[i] = lua.LString(part)
			}
			return out, nil
		}),
		"find_all": fn3(func(L *lua.LState, s, pattern string, limit Opt[int]) (lua.LValue, error) {
			re, err := c.compile(pattern)
			if err != nil {
				return nil, err
			}
			n := limit.V
			if !limit.Set || n < 0 || n > reMaxResults {
				n = reMaxResults + 1
			}
			var all []string
			if re.mayMatch(s) {
				all = re.FindAllString(s, n)
			}
			checkSize(L, "re.find_all", int64(len(all))*reResultSize)
			poll := poller{L: L}
			t := L.CreateTable(len(all), 0)
			for i, m := range all {
				poll.tick()
				t.RawSetInt(i+1, lua.LString(m))
			}
			return t, nil
		}),
		"gsub": fn3(func(L *lua.LState, s, pattern string, repl lua.LValue) (values, error) {
			re, err := c.compile(pattern)
			if err != nil {
				return nil, err
			}
			add := reReplacement(L, re.Regexp, repl)
			if !re.mayMatch(s) {
				return values{lua.LString(s), lua.LNumber(0)}, nil
			}
			var out lua.LString
			var count int
			if re.resumable {
				out, count = reReplaceAll(L, re, s, add)
			} else {
				out, count = reReplaceAllFunc(L, re.Regexp, s, add)
			}
			return values{out, lua.LNumber(count)}, nil
		}),
		"quote": fn1(func(_ *lua.LState, s string) (string, error) { return regexp.QuoteMeta(s), nil }),
	})
}

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
		return nil, &argError{n: 2, msg: "invalid regular expression: " + err.Error()}
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
type reAdd func(out *resultBuilder, src string, a []int)

// reReplacement returns what re.gsub replaces a match with: repl, a string with $1 /
// ${name} references, or a function called with the match and its captures (a result that
// is not a string or a number keeps the match).
func reReplacement(L *lua.LState, re *regexp.Regexp, repl lua.LValue) reAdd {
	switch repl := repl.(type) {
	case lua.LString:
		return func(out *resultBuilder, src string, a []int) { out.expand(re, string(repl), src, a) }
	case *lua.LFunction:
		return func(out *resultBuilder, src string, a []int) {
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
				out.add(string(r))
			case lua.LNumber:
				out.add(r.String())
			default:
				if a != nil {
					src = src[a[0]:a[1]]
				}
				out.add(src)
			}
		}
	}
	L.ArgError(3, "string or function expected")
	return nil
}

// reReplaceAll is regexp's ReplaceAllString (same matches, same rule for empty matches)
// for a resumable re, building the result in a resultBuilder and polling per match.
func reReplaceAll(L *lua.LState, re *rePattern, s string, add reAdd) (lua.LString, int) {
	out := resultBuilder{L: L, what: "re.gsub"}
	poll := poller{L: L}
	last, search, count := 0, 0, 0
	for search <= len(s) {
		poll.tick()
		from := re.nextStart(s, search)
		if from < 0 {
			break
		}
		a := re.FindStringSubmatchIndex(s[from:])
		if a == nil {
			break
		}
		for i := range a {
			if a[i] >= 0 {
				a[i] += from
			}
		}
		out.add(s[last:a[0]])
		if a[1] > last || a[0] == 0 { // not an empty match right after the previous one
			count++
			add(&out, s, a)
		}
		last = a[1]
		_, width := utf8.DecodeRuneInString(s[search:])
		switch {
		case search+width > a[1]:
			search += width
		case search+1 > a[1]:
			search++
		default:
			search = a[1]
		}
	}
	if count == 0 {
		return lua.LString(s), 0
	}
	out.add(s[last:])
	return out.string(), count
}

// reReplaceAllFunc is re.gsub for the other regular expressions, through regexp's
// ReplaceAllStringFunc, which hands over the text of a match only: its submatches are
// found again in that text. What it builds is bounded by the size of its result if no
// other match followed.
func reReplaceAllFunc(L *lua.LState, re *regexp.Regexp, s string, add reAdd) (lua.LString, int) {
	poll := poller{L: L}
	count, size := 0, int64(len(s))
	out := re.ReplaceAllStringFunc(s, func(m string) string {
		count++
		poll.tick()
		piece := resultBuilder{L: L, what: "re.gsub"}
		add(&piece, m, re.FindStringSubmatchIndex(m))
		if size += int64(len(piece.b) - len(m)); size > maxStringSize {
			checkSize(L, "re.gsub", size)
		}
		return string(piece.string())
	})
	return lua.LString(out), count
}

// expand appends template expanded for the match a of src (nothing for a reference when a
// is nil). It expands one reference at a time, each into a scratch buffer first, since a
// reference may repeat the whole match: every addition is checked before it is made.
func (r *resultBuilder) expand(re *regexp.Regexp, template, src string, a []int) {
	var scratch []byte
	for template != "" {
		end := reNextReference(template)
		if template[0] != '$' {
			r.add(template[:end])
		} else {
			scratch = re.ExpandString(scratch[:0], template[:end], src, a)
			r.add(unsafe.String(unsafe.SliceData(scratch), len(scratch)))
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
