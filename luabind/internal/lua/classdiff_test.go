package lua

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
)

// TestDifferential runs generated programs of every class (genProgram's "general" and
// programClasses) here and in lua5.1, and compares what they print; runHere checks after
// every print that nothing but Lua values is held. A difference is either one of
// knownClassDifferences (counted under its reason) or an error. The normal run takes
// differentialDefault programs; the full run is a benchmark-style job:
//
//	go test ./luabind/internal/lua -run '^TestDifferential$' -v -differential.n=10000
//
// which logs the table of docs/lua51-differences.md.
var differentialN = flag.Int("differential.n", 0, "programs TestDifferential generates, over all classes (0: a few hundred)")

var differentialClass = flag.String("differential.class", "", "the one class of programs TestDifferential runs (default: every class)")

const differentialDefault = 250

// knownClassDifference is a difference from Lua 5.1 left on purpose, or fixed elsewhere, and
// how to recognise it: every line where the outputs differ matches here and lua51; or, for
// a class, any difference in a program of that class.
type knownClassDifference struct {
	reason      string
	here, lua51 *regexp.Regexp
	class       string
}

var knownClassDifferences = []knownClassDifference{
	{reason: "an argument error's message names the function and the position otherwise",
		here:  regexp.MustCompile(`^\d+: false 'program:\d+: bad argument #\d+ to \(anonymous\) \(.*\)'`),
		lua51: regexp.MustCompile(`^\d+: false 'bad argument #\d+ to '\?' \(.*\)'`)},
}

// explain gives the reason of the known difference that accounts for every differing line
// of an output of a program of class, or "".
func explain(class, here, lua51 string) string {
	for _, k := range knownClassDifferences {
		if k.class != "" && k.class == class {
			return k.reason
		}
	}
	h := strings.Split(normalise(here), "\n")
	w := strings.Split(normalise(lua51), "\n")
	if len(h) != len(w) {
		return ""
	}
	for _, k := range knownClassDifferences {
		if k.class != "" {
			continue
		}
		ok := true
		for i := range h {
			if h[i] == w[i] {
				continue
			}
			if !k.here.MatchString(h[i]) || !k.lua51.MatchString(w[i]) {
				ok = false
				break
			}
		}
		if ok {
			return k.reason
		}
	}
	return ""
}

type classCount struct {
	programs, same int
	known          map[string]int
	unexplained    []difference
}

func TestDifferential(t *testing.T) {
	if raceEnabled {
		t.Skip("compares programs with C Lua one by one, in one goroutine: run without -race")
	}
	skipWithoutLua51(t)
	n := *differentialN
	if n <= 0 {
		n = differentialDefault
		if testing.Short() {
			n = 100
		}
	}
	classes := append([]string{"general"}, programClasses...)
	if *differentialClass != "" {
		classes = []string{*differentialClass}
	}
	type prog struct {
		class, src string
	}
	rng := rand.New(rand.NewPCG(uint64(n), 5151))
	progs := make([]prog, n)
	opt := currentOptions()
	for i := range progs {
		data := make([]byte, 8)
		for j := range data {
			data[j] = byte(rng.IntN(256))
		}
		class := classes[i%len(classes)]
		if class == "general" {
			progs[i] = prog{class, genProgram(data, opt)}
		} else {
			progs[i] = prog{class, genClassProgram(class, data)}
		}
	}
	var r lua51Runner
	defer r.close()
	wants := make([]string, n)
	var werr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // lua5.1 runs the programs while they run here
		defer wg.Done()
		for i, p := range progs {
			if wants[i], werr = r.run(p.src); werr != nil {
				werr = fmt.Errorf("program %d: %w", i, werr)
				return
			}
		}
	}()
	gots := make([]string, n)
	for i, p := range progs {
		gots[i] = runHere(p.src, progTimeout)
	}
	wg.Wait()
	if werr != nil {
		t.Fatal(werr)
	}
	counts := map[string]*classCount{}
	for _, c := range classes {
		counts[c] = &classCount{known: map[string]int{}}
	}
	for i, p := range progs {
		c := counts[p.class]
		c.programs++
		switch {
		case sameOutput(gots[i], wants[i]):
			c.same++
		case explain(p.class, gots[i], wants[i]) != "":
			c.known[explain(p.class, gots[i], wants[i])]++
		default:
			c.unexplained = append(c.unexplained, difference{src: p.src, here: gots[i], lua51: wants[i]})
		}
	}
	var table strings.Builder
	fmt.Fprintf(&table, "| class | programs | as lua5.1 | known differences | unexplained |\n|---|---|---|---|---|\n")
	for _, cl := range classes {
		c := counts[cl]
		var known []string
		for reason, k := range c.known {
			known = append(known, fmt.Sprintf("%d: %s", k, reason))
		}
		sort.Strings(known)
		fmt.Fprintf(&table, "| %s | %d | %d | %s | %d |\n", cl, c.programs, c.same, strings.Join(known, "; "), len(c.unexplained))
		for k, d := range c.unexplained {
			if k == 3 {
				t.Errorf("%s: and %d more", cl, len(c.unexplained)-k)
				break
			}
			t.Errorf("a %s program differs from Lua 5.1:\n%s", cl, d)
		}
	}
	t.Logf("%d programs:\n%s", n, table.String())
}
