package stdlib

import (
	"strings"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// Lua 5.1 patterns (reference manual §5.4.1), matched by backtracking the way C Lua's
// lstrlib.c does, so that results, captures and error messages are C Lua's. The matcher
// ticks a limits.Poller on every step: a pathological pattern (`a-a-a-b` over a long subject
// backtracks for minutes) stops when its call times out or is cancelled. Two extensions
// over C Lua 5.1: recursion is bounded ("pattern too complex"), since every level nests the
// Go stack. As in C Lua 5.1, whose matcher reads the pattern as a C string, a "\0" ends the
// pattern (cPattern).

// patSpecials are the characters that make string.find use the matcher rather than a
// plain search.
const patSpecials = "^$*+?.([%-"

const (
	patMaxCaptures = 32   // as LUA_MAXCAPTURES
	patMaxDepth    = 1000 // nested items being matched: each level is a Go frame
	capUnfinished  = -1   // a capture's len while its ')' has not been reached
	capPosition    = -2   // the len of a position capture `()`
)

type patCapture struct{ init, len int }

// A matcher matches one pattern against one subject; find, match, gmatch and gsub reset it
// before each attempt.
type matcher struct {
	src, pat string
	level    int // captures opened so far
	depth    int // nested match calls
	first    int // a byte every match must start with, or -1
	capture  [patMaxCaptures]patCapture
	poll     limits.Poller
}

func newMatcher(L *lua.LState, src, pat string) *matcher {
	pat = cPattern(pat)
	m := &matcher{src: src, pat: pat, poll: limits.Poller{L: L}}
	m.first = firstLiteral(pat)
	return m
}

// cPattern is pat up to its first "\0", where C Lua 5.1 stops reading a pattern.
func cPattern(pat string) string {
	if i := strings.IndexByte(pat, 0); i >= 0 {
		return pat[:i]
	}
	return pat
}

// firstLiteral returns the byte a match of pat must start with when pat begins with a
// literal character that is not quantified, or -1.
func firstLiteral(pat string) int {
	if pat == "" || strings.IndexByte("^$*+?.([%-)]", pat[0]) >= 0 {
		return -1
	}
	if len(pat) > 1 && strings.IndexByte("*?-", pat[1]) >= 0 {
		return -1
	}
	return int(pat[0])
}

func (m *matcher) raise(msg string) { m.poll.L.RaiseError("%s", msg) }

func (m *matcher) reset() { m.level, m.depth = 0, 0 }

// next returns the first position at or after s where a match of the whole pattern (not
// anchored) may start, or len(src)+1 when there is none.
func (m *matcher) next(s int) int {
	if m.first < 0 || s > len(m.src) {
		return s
	}
	i := strings.IndexByte(m.src[s:], byte(m.first))
	if i < 0 {
		return len(m.src) + 1
	}
	return s + i
}

// find returns the bounds of the first match starting at init or later, or -1, -1.
func (m *matcher) find(init int) (start, end int) {
	p, anchor := 0, len(m.pat) > 0 && m.pat[0] == '^'
	if anchor {
		p = 1
	}
	for s := init; s <= len(m.src); s++ {
		if !anchor {
			if s = m.next(s); s > len(m.src) {
				break
			}
		}
		m.reset()
		if e := m.match(s, p); e >= 0 {
			return s, e
		}
		if anchor {
			break
		}
	}
	return -1, -1
}

// match matches the pattern from p against the subject from s and returns the end of the
// match, or -1.
func (m *matcher) match(s, p int) int {
	if m.depth++; m.depth > patMaxDepth {
		m.raise("pattern too complex")
	}
	e := m.matchItems(s, p)
	m.depth--
	return e
}

// matchItems is lstrlib.c's match: items that need no backtracking loop here, the others
// recurse.
func (m *matcher) matchItems(s, p int) int {
	pat := m.pat
	for {
		m.poll.Tick()
		if p == len(pat) {
			return s
		}
		switch pat[p] {
		case '(':
			if p+1 < len(pat) && pat[p+1] == ')' {
				return m.startCapture(s, p+2, capPosition)
			}
			return m.startCapture(s, p+1, capUnfinished)
		case ')':
			return m.endCapture(s, p+1)
		case '$':
			if p+1 == len(pat) {
				if s == len(m.src) {
					return s
				}
				return -1
			}
		case '%':
			if p+1 < len(pat) {
				if s2, p2, special := m.matchEscape(s, p); special {
					if p2 < 0 {
						return -1
					}
					s, p = s2, p2
					continue
				}
			}
		}
		ep := m.classEnd(p)
		ok := s < len(m.src) && m.singleMatch(m.src[s], p, ep)
		if ep < len(pat) {
			switch pat[ep] {
			case '?':
				if ok {
					if e := m.match(s+1, ep+1); e >= 0 {
						return e
					}
				}
				p = ep + 1
				continue
			case '*':
				return m.maxExpand(s, p, ep)
			case '+':
				if !ok {
					return -1
				}
				return m.maxExpand(s+1, p, ep)
			case '-':
				return m.minExpand(s, p, ep)
			}
		}
		if !ok {
			return -1
		}
		s, p = s+1, ep
	}
}

// matchEscape matches %b, %f and back references at p. special is false when the item at
// p is a class such as %d; otherwise p2 is where the pattern goes on, or -1 when the item
// does not match.
func (m *matcher) matchEscape(s, p int) (s2, p2 int, special bool) {
	pat := m.pat
	switch c := pat[p+1]; {
	case c == 'b':
		if s = m.matchBalance(s, p+2); s < 0 {
			return s, -1, true
		}
		return s, p + 4, true
	case c == 'f':
		p += 2
		if p >= len(pat) || pat[p] != '[' {
			m.raise("missing '[' after '%f' in pattern")
		}
		ep := m.classEnd(p)
		var prev, cur byte // "\0" before the subject and after it, as in C
		if s > 0 {
			prev = m.src[s-1]
		}
		if s < len(m.src) {
			cur = m.src[s]
		}
		if m.matchBracketClass(prev, p, ep-1) || !m.matchBracketClass(cur, p, ep-1) {
			return s, -1, true
		}
		return s, ep, true
	case isDigit(c):
		if s = m.matchCapture(s, c); s < 0 {
			return s, -1, true
		}
		return s, p + 2, true
	}
	return s, p, false
}

// classEnd returns the index just after the single-character class at p.
func (m *matcher) classEnd(p int) int {
	pat := m.pat
	c := pat[p]
	p++
	switch c {
	case '%':
		if p >= len(pat) {
			m.raise("malformed pattern (ends with '%')")
		}
		return p + 1
	case '[':
		if p < len(pat) && pat[p] == '^' {
			p++
		}
		for { // the first character is never the closing ']'
			if p >= len(pat) {
				m.raise("malformed pattern (missing ']')")
			}
			c := pat[p]
			p++
			if c == '%' && p < len(pat) {
				p++ // an escaped character, such as %]
			}
			if p < len(pat) && pat[p] == ']' {
				return p + 1
			}
		}
	}
	return p
}

// singleMatch reports whether c matches the class that spans pat[p:ep].
func (m *matcher) singleMatch(c byte, p, ep int) bool {
	switch m.pat[p] {
	case '.':
		return true
	case '%':
		return matchClass(c, m.pat[p+1])
	case '[':
		return m.matchBracketClass(c, p, ep-1)
	}
	return m.pat[p] == c
}

// matchBracketClass matches c against the set [...] from p (the '[') to ec (the ']').
func (m *matcher) matchBracketClass(c byte, p, ec int) bool {
	pat := m.pat
	sig := true
	if pat[p+1] == '^' {
		sig = false
		p++
	}
	for p++; p < ec; p++ {
		switch {
		case pat[p] == '%':
			p++
			if matchClass(c, pat[p]) {
				return sig
			}
		case pat[p+1] == '-' && p+2 < ec:
			p += 2
			if pat[p-2] <= c && c <= pat[p] {
				return sig
			}
		case pat[p] == c:
			return sig
		}
	}
	return !sig
}

// maxExpand matches as many repetitions of the class pat[p:ep] as possible, then gives
// them back one by one until the rest of the pattern matches.
func (m *matcher) maxExpand(s, p, ep int) int {
	i := 0
	for s+i < len(m.src) && m.singleMatch(m.src[s+i], p, ep) {
		i++
		m.poll.Tick()
	}
	for ; i >= 0; i-- {
		if e := m.match(s+i, ep+1); e >= 0 {
			return e
		}
	}
	return -1
}

// minExpand matches as few repetitions of the class pat[p:ep] as the rest needs.
func (m *matcher) minExpand(s, p, ep int) int {
	for {
		if e := m.match(s, ep+1); e >= 0 {
			return e
		}
		if s < len(m.src) && m.singleMatch(m.src[s], p, ep) {
			s++
		} else {
			return -1
		}
	}
}

func (m *matcher) startCapture(s, p, what int) int {
	if m.level >= patMaxCaptures {
		m.raise("too many captures")
	}
	m.capture[m.level] = patCapture{init: s, len: what}
	m.level++
	e := m.match(s, p)
	if e < 0 {
		m.level--
	}
	return e
}

func (m *matcher) endCapture(s, p int) int {
	l := m.captureToClose()
	m.capture[l].len = s - m.capture[l].init
	e := m.match(s, p)
	if e < 0 {
		m.capture[l].len = capUnfinished
	}
	return e
}

func (m *matcher) captureToClose() int {
	for l := m.level - 1; l >= 0; l-- {
		if m.capture[l].len == capUnfinished {
			return l
		}
	}
	m.raise("invalid pattern capture")
	return 0
}

// matchBalance matches %bxy, whose x is at p.
func (m *matcher) matchBalance(s, p int) int {
	if p+1 >= len(m.pat) {
		m.raise("unbalanced pattern")
	}
	if s >= len(m.src) || m.src[s] != m.pat[p] {
		return -1
	}
	b, e := m.pat[p], m.pat[p+1]
	open := 1
	for s++; s < len(m.src); s++ {
		m.poll.Tick()
		switch m.src[s] {
		case e:
			if open--; open == 0 {
				return s + 1
			}
		case b:
			open++
		}
	}
	return -1
}

// matchCapture matches a back reference %1-%9 to an earlier capture.
func (m *matcher) matchCapture(s int, c byte) int {
	l := int(c) - '1'
	if l < 0 || l >= m.level || m.capture[l].len == capUnfinished {
		m.raise("invalid capture index")
	}
	cp := m.capture[l]
	if cp.len < 0 || len(m.src)-s < cp.len || m.src[s:s+cp.len] != m.src[cp.init:cp.init+cp.len] {
		return -1 // a position capture never matches, as in C Lua
	}
	return s + cp.len
}

// captureValue returns capture i of the last match, which spans src[s:e]: the whole match
// when the pattern has no captures and i is 0.
func (m *matcher) captureValue(i, s, e int) lua.LValue {
	if i >= m.level {
		if i != 0 {
			m.raise("invalid capture index")
		}
		return lua.LString(m.src[s:e])
	}
	switch cp := m.capture[i]; cp.len {
	case capUnfinished:
		m.raise("unfinished capture")
	case capPosition:
		return lua.LNumber(cp.init + 1)
	default:
		return lua.LString(m.src[cp.init : cp.init+cp.len])
	}
	return lua.LNil
}

// pushCaptures pushes the captures of the last match, or the whole match src[s:e] when
// there are none and whole is set, and returns how many values it pushed.
func (m *matcher) pushCaptures(L *lua.LState, s, e int, whole bool) int {
	n := m.level
	if n == 0 && whole {
		n = 1
	}
	for i := range n {
		L.Push(m.captureValue(i, s, e))
	}
	return n
}

// Character classes of the C locale, as lstrlib.c's match_class sees them.
const (
	ctAlpha = 1 << iota
	ctCntrl
	ctDigit
	ctLower
	ctPunct
	ctSpace
	ctUpper
	ctXdigit
)

var ctype = func() (t [256]uint8) {
	for c := range 128 {
		switch {
		case c >= 'a' && c <= 'z':
			t[c] |= ctAlpha | ctLower
		case c >= 'A' && c <= 'Z':
			t[c] |= ctAlpha | ctUpper
		case c >= '0' && c <= '9':
			t[c] |= ctDigit
		case c < 32 || c == 127:
			t[c] |= ctCntrl
		case c > 32:
			t[c] |= ctPunct
		}
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' {
			t[c] |= ctXdigit
		}
		if c == ' ' || c >= '\t' && c <= '\r' {
			t[c] |= ctSpace
		}
	}
	return t
}()

func isDigit(c byte) bool { return ctype[c]&ctDigit != 0 }

// matchClass reports whether c belongs to the class %cl; an upper-case class letter is
// the complement, and any other cl stands for itself.
func matchClass(c, cl byte) bool {
	var bits uint8
	switch cl | 0x20 { // lower case, for letters only
	case 'a':
		bits = ctAlpha
	case 'c':
		bits = ctCntrl
	case 'd':
		bits = ctDigit
	case 'l':
		bits = ctLower
	case 'p':
		bits = ctPunct
	case 's':
		bits = ctSpace
	case 'u':
		bits = ctUpper
	case 'w':
		bits = ctAlpha | ctDigit
	case 'x':
		bits = ctXdigit
	case 'z':
		return (c == 0) == (cl == 'z')
	default:
		return cl == c
	}
	return (ctype[c]&bits != 0) == (ctype[cl]&ctLower != 0)
}
