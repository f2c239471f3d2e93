package re

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/stdlib"
)

// The prefilter never says "no match" for a string the pattern matches.
func TestRePrefilter(t *testing.T) {
	cases := []struct {
		pattern, s string
		lit        string
	}{
		{`sk-[A-Za-z0-9]{20,}`, "key sk-0123456789abcdefghijkl", "sk-"},
		{`(?i)password\s*[:=]\s*\S+`, "PassWord: x", "password"},
		{`(?i)password`, "pAsSwOrD", "password"},
		{`(?i)kelvin`, "\u212aelvin", "kelvin"}, // the Kelvin sign folds to k
		{`(?i)mask`, "ma\u017fk", "mask"},       // the long s folds to s
		{`(?i)mask`, "é ma\u017fk ü", "mask"},   // and among other runes that are not ASCII
		{`(?i)(mask)+`, "ü\u212a mask", "mask"}, // a Kelvin sign anywhere: the automaton decides
		{`a|b`, "b", ""},
		{`(abc)+x`, "abcabcx", "abc"},
		{`x(?:ab){2,}`, "xabab", "ab"},
		{`x(?:ab)*`, "x", "x"},
		{`^AKIA[0-9A-Z]{16}$`, "AKIA0000000000000000", "AKIA"},
		{`(?i)é`, "É", ""}, // not ASCII: no case-insensitive literal
	}
	for _, c := range cases {
		p := newRePattern(regexp.MustCompile(c.pattern))
		if p.lit != strings.ToLower(c.lit) && p.lit != c.lit {
			t.Errorf("%s: literal %q, want %q", c.pattern, p.lit, c.lit)
		}
		if !p.MatchString(c.s) || !p.mayMatch(c.s) {
			t.Errorf("%s on %q: match %v, mayMatch %v", c.pattern, c.s, p.MatchString(c.s), p.mayMatch(c.s))
		}
	}
	p := newRePattern(regexp.MustCompile(`(?i)password\s*=`))
	if p.mayMatch(strings.Repeat("no secrets here\n", 300)) {
		t.Error("the prefilter let a string without the literal through")
	}
	// Runes that are not ASCII, but fold to none of k and s, leave the prefilter working.
	if p := newRePattern(regexp.MustCompile(`(?i)mask`)); p.mayMatch("ü é ß ø ma k") {
		t.Error("the prefilter let a string without the literal through because it is not ASCII")
	}
}

// FuzzRePrefilter: for any pattern and string, a match implies mayMatch.
func FuzzRePrefilter(f *testing.F) {
	for _, seed := range [][2]string{
		{`(?i)password\s*[:=]\s*\S+`, "PASSWORD=x"}, {`sk-[a-z]+`, "sk-abc"}, {`(?i)k`, "\u212a"},
		{`(ab|cd)ef`, "cdef"}, {`(?i)ss`, "\u017f\u017f"}, {`x{2,3}y`, "xxy"}, {`(?i)[a-z]+ing`, "RUNNING"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return
		}
		p := newRePattern(re)
		if re.MatchString(s) && !p.mayMatch(s) {
			t.Fatalf("%q matches %q but the prefilter (literal %q, fold %v) said no", pattern, s, p.lit, p.fold)
		}
	})
}

// indexFold finds what a lowercase search of a lowercased ASCII string finds.
func FuzzIndexFold(f *testing.F) {
	f.Add("Hello PassWord world", "password")
	f.Add("aAaAb", "aab")
	f.Fuzz(func(t *testing.T, s, lit string) {
		if !isASCII(s) || !isASCII(lit) {
			return
		}
		lit = strings.ToLower(lit)
		if got, want := indexFold(s, lit), strings.Index(strings.ToLower(s), lit); got != want {
			t.Fatalf("indexFold(%q, %q) = %d, want %d", s, lit, got, want)
		}
	})
}

// FuzzReGsub: re.gsub's replacement loop, which skips to the next occurrence of a prefix
// literal and searches from the middle of the string, replaces what regexp's
// ReplaceAllString replaces, searching the string or reading it through a reReader.
func FuzzReGsub(f *testing.F) {
	for _, seed := range reSeeds {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		re, err := regexp.Compile(pattern)
		if err != nil || len(s) > 2000 {
			return
		}
		p := newRePattern(re)
		L := lua.NewState()
		defer L.Close()
		want := re.ReplaceAllString(s, "<$0>")
		for _, direct := range []int64{reDirectWork, 0} {
			w := newReWork(L, 0, p, "re.gsub", s)
			w.direct = direct
			got, _ := reReplaceAll(L, w, s, func(out *stdlib.ResultBuilder, src string, a []int) { reExpand(out, re, "<$0>", src, a) })
			if string(got) != want {
				t.Fatalf("%q on %q (direct work %d): %q, want %q", pattern, s, direct, got, want)
			}
		}
	})
}

// FuzzReFindAll: re.find_all's loop finds what regexp's FindAllStringSubmatchIndex finds,
// captures included, searching the string or reading it through a reReader.
func FuzzReFindAll(f *testing.F) {
	for _, seed := range reSeeds {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		re, err := regexp.Compile(pattern)
		if err != nil || len(s) > 2000 {
			return
		}
		p := newRePattern(re)
		L := lua.NewState()
		defer L.Close()
		want := re.FindAllStringSubmatchIndex(s, -1)
		for _, direct := range []int64{reDirectWork, 0} {
			w := newReWork(L, 0, p, "re.find_all", s)
			w.direct = direct
			var got [][]int
			w.each(s, func(a []int) bool { got = append(got, a); return true })
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("%q on %q (direct work %d): %v, want %v", pattern, s, direct, got, want)
			}
			if m := w.matches(s); m != (want != nil) {
				t.Fatalf("%q on %q (direct work %d): matches %v, want %v", pattern, s, direct, m, want != nil)
			}
		}
	})
}

var reSeeds = [][2]string{
	{`(?i)password\s*[:=]\s*\S+`, "x PASSWORD: a password=b passw"}, {`sk-[a-z]{2,}`, "sk-ab sk- sk-abc"},
	{`(?i)kk`, "\u212ak KK"}, {`ab*`, "abbb a ab"}, {`(?i)s`, "\u017f S s"}, {`x`, ""}, {`a|`, "bab"},
	{`\bfoo\b`, "foo foofoo xfoo foo"}, {`^a|b`, "aab ab"}, {`(?m)^(\w+)$`, "ab\ncd\n\nef"}, {`\B`, "abc de"},
	{`(?m)^`, "a\n\nb\n"}, {`\b`, "\xffa\xe2\x82b"}, {`\Qa)\E(b)?`, "a)b a) a)bb"}, {`(?P<x>\w)\B`, "ab c"},
	{`x*`, "\xff\xfex"}, {`\Ba*`, "baaa aa"}, {`(a|ab)(c|bcd)(d*)`, "abcd abcdd"},
}
