package re

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// rePattern is a compiled pattern of the re module with what is known of it in advance.
type rePattern struct {
	*regexp.Regexp
	resumable bool   // a search may start in the middle of a string: no lookBehind
	lit       string // a literal every match contains ("" = none known); lowercase when fold
	fold      bool   // lit is matched without regard to ASCII case
	// foldsWide: lit has k or s, which Unicode folding also matches with a non-ASCII rune
	// (the Kelvin sign, the long s): then a string that holds one of them gets the
	// automaton (wideFolds).
	foldsWide bool
	prefix    bool           // every match starts with lit: a search may skip to its next occurrence
	insts     int            // instructions of the compiled program: the automaton's work per rune, at most
	back      *regexp.Regexp // the pattern after any one rune (rework.go), once needed
}

// newRePattern analyses re once, when it is compiled.
func newRePattern(re *regexp.Regexp) *rePattern {
	p := &rePattern{Regexp: re}
	tree, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		p.insts = progSize(re, nil)
		return p
	}
	p.resumable = !lookBehind(tree)
	simple := tree.Simplify()
	p.insts = progSize(re, simple)
	p.lit, p.fold = requiredLiteral(simple)
	if pre, fold := prefixLiteral(simple); pre != "" && pre == p.lit && fold == p.fold {
		p.prefix = true
	}
	if p.fold {
		p.lit = strings.ToLower(p.lit)
		p.foldsWide = strings.ContainsAny(p.lit, "ks")
	}
	return p
}

// mayMatch reports whether s can hold a match: false only when the required literal is not
// in s. It costs a substring search, far less than running the automaton over s.
func (p *rePattern) mayMatch(s string) bool {
	switch {
	case p.lit == "":
		return true
	case p.fold:
		return (p.foldsWide && wideFolds(s)) || indexFold(s, p.lit) >= 0
	}
	return strings.Contains(s, p.lit)
}

// nextStart is where, at from or after it, a match of a resumable pattern may start in s:
// the next occurrence of its prefix literal, or from when none is known; -1 when there is
// no match.
func (p *rePattern) nextStart(s string, from int) int {
	if !p.prefix || !p.resumable || (p.foldsWide && wideFolds(s)) {
		return from
	}
	var i int
	if p.fold {
		i = indexFold(s[from:], p.lit)
	} else {
		i = strings.Index(s[from:], p.lit)
	}
	if i < 0 {
		return -1
	}
	return from + i
}

// prefixLiteral is the literal every match of r starts with, when r is a literal, or a
// capture or concatenation that begins with one.
func prefixLiteral(r *syntax.Regexp) (string, bool) {
	switch r.Op {
	case syntax.OpLiteral:
		return literalOf(r)
	case syntax.OpCapture, syntax.OpConcat:
		return prefixLiteral(r.Sub[0])
	}
	return "", false
}

// requiredLiteral finds a literal that every match of r contains: r itself when it is a
// literal, else the longest required literal of the parts of a concatenation, of a capture,
// or of what is repeated at least once. A case-insensitive literal is only used when it is
// ASCII (fold says so). "" when none is known.
func requiredLiteral(r *syntax.Regexp) (lit string, fold bool) {
	switch r.Op {
	case syntax.OpLiteral:
		return literalOf(r)
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(r.Sub[0])
	case syntax.OpRepeat:
		if r.Min >= 1 {
			return requiredLiteral(r.Sub[0])
		}
	case syntax.OpConcat:
		for _, sub := range r.Sub {
			if l, f := requiredLiteral(sub); len(l) > len(lit) {
				lit, fold = l, f
			}
		}
	}
	return lit, fold
}

// literalOf is the text of an OpLiteral and whether it ignores case; a case-insensitive
// literal that is not ASCII is none ("").
func literalOf(r *syntax.Regexp) (string, bool) {
	s, fold := string(r.Rune), r.Flags&syntax.FoldCase != 0
	if fold && !isASCII(s) {
		return "", false
	}
	return s, fold
}

// wideFolds reports whether s holds one of the two runes that are not ASCII and fold to an
// ASCII letter: the Kelvin sign (k) and the long s (s). Every other rune of s folds only to
// runes that are not ASCII, which an ASCII literal cannot match. A substring search, where
// checking that s is ASCII read every byte of it again for each match of a gsub.
func wideFolds(s string) bool {
	return strings.Contains(s, "\u212a") || strings.Contains(s, "\u017f")
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// indexFold is the index of the first occurrence of lower (lowercase ASCII) in s, compared
// without regard to ASCII case, or -1.
func indexFold(s, lower string) int {
	n := len(lower)
	if n == 0 {
		return 0
	}
	first, upper := lower[0], lower[0]
	if 'a' <= first && first <= 'z' {
		upper = first - 'a' + 'A'
	}
	for i := 0; i+n <= len(s); {
		j := strings.IndexByte(s[i:len(s)-n+1], first)
		if upper != first {
			if k := strings.IndexByte(s[i:len(s)-n+1], upper); k >= 0 && (j < 0 || k < j) {
				j = k
			}
		}
		if j < 0 {
			return -1
		}
		if strings.EqualFold(s[i+j:i+j+n], lower) {
			return i + j
		}
		i += j + 1
	}
	return -1
}

// lookBehind reports whether r looks before its position (^, \A, \b, \B).
func lookBehind(r *syntax.Regexp) bool {
	switch r.Op {
	case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	for _, sub := range r.Sub {
		if lookBehind(sub) {
			return true
		}
	}
	return false
}
