package re

import (
	"io"
	"regexp"
	"regexp/syntax"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// The re module's searches under the call's limits (SPEC §6.6). Go's regexp runs in time
// linear in its input, but the constant is the pattern: its automaton steps every live
// thread (at most one per instruction of the compiled program) for every rune, about 6ns
// per instruction and rune when every thread is live (a{1000}b over 256 KiB takes 2s), and
// find_all and gsub search again after every match, so a search that reads to the end of
// the input before it settles on a match makes them quadratic. A regexp call cannot be
// interrupted, so:
//
//   - a call whose worst case, instructions times bytes at reStepNanos each, is longer than
//     the hook's timeout is refused before it starts (reWork.refuse);
//   - a search whose worst case is small (reDirectWork) runs on the string, with all of
//     regexp's fast paths; a larger one reads its input through a reReader, which looks at
//     the call's context every reWorkPerPoll units of work and stops the call there;
//   - between searches the work is counted the same way, and the results charged to the
//     state's memory account as they are made.

const (
	// reStepNanos is the least time one step (one instruction on one rune) is assumed to
	// take when refusing a call: a sixth of what the automaton takes with every thread live.
	reStepNanos = 1
	// reDirectWork is the most work (instructions times bytes) a search may do on the
	// string, without looking at the context: at most a few milliseconds.
	reDirectWork = 1 << 20
	// reWorkPerPoll is the work between two looks at the context: well under a millisecond.
	reWorkPerPoll = 1 << 16
)

// reWork is one call's searches with one pattern.
type reWork struct {
	L     *lua.LState
	p     *rePattern
	poll  limits.Poller
	spent int64 // work since the last look at the context
	// direct is the most work a search does on the string (reDirectWork; tests lower it
	// to try the reader).
	direct int64
}

// newReWork checks that the call what of p over s may finish within timeout (the call's;
// 0: none), and
// raises a limit error when its worst case cannot.
func newReWork(L *lua.LState, timeout time.Duration, p *rePattern, what string, s string) *reWork {
	w := &reWork{L: L, p: p, poll: limits.Poller{L: L}, direct: reDirectWork}
	if work := int64(p.insts) * int64(len(s)); timeout > 0 && work > int64(timeout)/reStepNanos {
		L.RaiseError("%s%s: a pattern of %d instructions over %s of text may take longer than the hook's timeout (%s); "+
			"search a shorter string or use a simpler pattern", limits.Prefix, what, p.insts, limits.ByteSize(int64(len(s))), timeout)
	}
	return w
}

// spend counts work done outside a reReader, and looks at the context when enough was.
func (w *reWork) spend(work int64) {
	if w.spent += work; w.spent >= reWorkPerPoll {
		w.spent = 0
		w.poll.Check()
	}
}

// matches reports whether p matches anywhere in s.
func (w *reWork) matches(s string) bool {
	work := int64(w.p.insts) * int64(len(s))
	if work <= w.direct {
		w.spend(work)
		return w.p.MatchString(s)
	}
	return w.p.MatchReader(&reReader{s: s, w: w})
}

// search is the leftmost match of p in s that starts at from or after it, as regexp finds
// it searching s from from (what is before from counts for ^, \b and \B): the absolute
// indexes of the match and its submatches, or nil.
func (w *reWork) search(s string, from int) []int {
	if from > len(s) {
		return nil
	}
	if from = w.p.nextStart(s, from); from < 0 {
		return nil
	}
	re, base, skip := w.p.Regexp, from, false
	if from > 0 && !w.p.resumable {
		// Search from the rune before: (?s:.)(?:pattern) puts the pattern's match after
		// one rune, which it sees as the text before it.
		_, n := utf8.DecodeLastRuneInString(s[:from])
		re, base, skip = w.p.behind(w.L), from-n, true
	}
	var a []int
	if work := int64(w.p.insts) * int64(len(s)-base); work <= w.direct {
		w.spend(work)
		a = re.FindStringSubmatchIndex(s[base:])
	} else {
		a = re.FindReaderSubmatchIndex(&reReader{s: s[base:], w: w})
	}
	if a == nil {
		return nil
	}
	for i := range a {
		if a[i] >= 0 {
			a[i] += base
		}
	}
	if skip {
		_, n := utf8.DecodeRuneInString(s[a[0]:])
		a[0] += n
	}
	return a
}

// each calls fn with every match of p in s, as regexp's FindAll finds them (an empty match
// right after a match is skipped), until fn returns false.
func (w *reWork) each(s string, fn func(a []int) bool) {
	for pos, prevEnd := 0, -1; pos <= len(s); {
		a := w.search(s, pos)
		if a == nil {
			return
		}
		accept := true
		if a[1] == pos { // an empty match: not right after a match; go on one rune later
			if a[0] == prevEnd {
				accept = false
			}
			if pos < len(s) {
				_, n := utf8.DecodeRuneInString(s[pos:])
				pos += n
			} else {
				pos = len(s) + 1
			}
		} else {
			pos = a[1]
		}
		prevEnd = a[1]
		if accept && !fn(a) {
			return
		}
	}
}

// eachReplace calls fn with every match of p in s as regexp's ReplaceAll finds them, and
// whether ReplaceAll replaces it (not an empty match right after a match).
func (w *reWork) eachReplace(s string, fn func(a []int, replace bool)) {
	last := 0
	for search := 0; search <= len(s); {
		a := w.search(s, search)
		if a == nil {
			return
		}
		fn(a, a[1] > last || a[0] == 0)
		last = a[1]
		// Go on from the match's end, at least one rune after where this search began.
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
}

// behind is p preceded by any one rune, compiled on first use, for a search that must see
// the rune before where it starts.
func (p *rePattern) behind(L *lua.LState) *regexp.Regexp {
	if p.back == nil {
		src := p.String()
		if strings.Contains(src, `\Q`) { // quoting would swallow the closing parenthesis
			tree, err := syntax.Parse(src, syntax.Perl)
			if err != nil {
				L.RaiseError("re: cannot search %q from the middle of a string: %v", src, err)
			}
			src = tree.String()
		}
		back, err := regexp.Compile(`(?s:.)(?:` + src + `)`)
		if err != nil || back.NumSubexp() != p.NumSubexp() {
			L.RaiseError("re: cannot search %q from the middle of a string: %v", p.String(), err)
		}
		p.back = back
	}
	return p.back
}

// reReader hands s to regexp one rune at a time, counting the work each rune costs the
// automaton and looking at the call's context every reWorkPerPoll of it.
type reReader struct {
	s string
	i int
	w *reWork
}

// ReadRune implements io.RuneReader. An invalid byte is utf8.RuneError of width 1, as
// regexp reads a string.
func (r *reReader) ReadRune() (rune, int, error) {
	if r.i >= len(r.s) {
		return 0, 0, io.EOF
	}
	r.w.spend(int64(r.w.p.insts))
	c, n := rune(r.s[r.i]), 1
	if c >= utf8.RuneSelf {
		c, n = utf8.DecodeRuneInString(r.s[r.i:])
	}
	r.i += n
	return c, n, nil
}

// progSize is the number of instructions of the program regexp compiles re to, or of a
// generous estimate when it cannot be known.
func progSize(re *regexp.Regexp, simple *syntax.Regexp) int {
	if simple != nil {
		if prog, err := syntax.Compile(simple); err == nil {
			return len(prog.Inst)
		}
	}
	return max(1, 4*len(re.String()))
}
