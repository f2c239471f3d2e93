package docs

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Markers, HTML comments on the line before a fenced block:
//
//	<!-- docs-test: skip -->    the sh block after it is not run (it never ends, or runs the tests)
//	<!-- docs-test: output -->  the block after it is the output of the sh block before it
//
// A sh block that prints something (stdout or stderr) must be followed by its output block.
const (
	skipMarker   = "<!-- docs-test: skip -->"
	outputMarker = "<!-- docs-test: output -->"
)

// snippet is one sh block and the output the document shows for it, if marked.
type snippet struct {
	line   int // of the sh block
	code   string
	skip   bool
	output string // "" when no output block is marked
	outAt  int
}

// parse reads a markdown file's sh blocks and their marked output blocks.
func parse(t *testing.T, file string) []*snippet {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*snippet
	var cur *snippet
	var marker, fence string
	var body strings.Builder
	start := 0
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case fence != "" && strings.TrimSpace(line) == "```":
			switch {
			case fence == "sh":
				cur = &snippet{line: start, code: body.String(), skip: marker == skipMarker}
				out = append(out, cur)
			case marker == outputMarker && cur != nil:
				cur.output, cur.outAt = body.String(), start
			}
			fence, marker = "", ""
		case fence != "":
			body.WriteString(line + "\n")
		case strings.HasPrefix(line, "```"):
			fence, start = strings.TrimPrefix(line, "```"), n
			if fence == "" {
				fence = "text"
			}
			body.Reset()
		case strings.TrimSpace(line) == skipMarker || strings.TrimSpace(line) == outputMarker:
			marker = strings.TrimSpace(line)
		case strings.TrimSpace(line) != "":
			marker = ""
		}
	}
	return out
}

// TestDocs runs, for each document, its sh snippets in order in one bash session, with a
// hermesctl built from this checkout first on PATH, HOME and every /tmp/ path moved into a
// temporary directory, and the repository as the working directory. Each marked output block
// must match what its snippet printed (stdout and stderr): every line of it, in order, with
// "..." standing for any text (a whole line of "..." for any lines), durations, digests and
// the temporary directory written alike on both sides, and runs of spaces as one.
func TestDocs(t *testing.T) {
	if raceEnabled {
		t.Skip("runs a hermesctl built without -race: the run without -race does the same")
	}
	if testing.Short() {
		t.Skip("runs every snippet of the docs")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash here")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "hermesctl"), "./cmd/hermesctl")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	goEnv := exec.Command("go", "env", "GOPATH", "GOMODCACHE", "GOCACHE")
	vals, err := goEnv.Output()
	if err != nil {
		t.Fatal(err)
	}
	v := strings.Fields(string(vals)) // kept: the snippets run with HOME elsewhere
	env := []string{"GOPATH=" + v[0], "GOMODCACHE=" + v[1], "GOCACHE=" + v[2], "GOFLAGS=-mod=mod"}
	for _, file := range files {
		rel, _ := filepath.Rel(root, file)
		t.Run(rel, func(t *testing.T) {
			runDoc(t, root, bin, file, env)
		})
	}
}

func runDoc(t *testing.T, root, bin, file string, env []string) {
	snippets := parse(t, file)
	tmp := t.TempDir()
	var script strings.Builder
	script.WriteString("set +e\n")
	for i, s := range snippets {
		if s.skip {
			continue
		}
		fmt.Fprintf(&script, "echo '@@snippet %d@@'\n%s\n", i, strings.ReplaceAll(s.code, "/tmp/", tmp+"/"))
	}
	cmd := exec.Command("bash", "-c", script.String())
	cmd.Dir = root
	cmd.Env = append(append(os.Environ(), env...), "HOME="+filepath.Join(tmp, "home"), "PATH="+bin+":"+os.Getenv("PATH"), "HERMES_HOME=", "NO_COLOR=1")
	os.MkdirAll(filepath.Join(tmp, "home"), 0o755)
	out, _ := cmd.CombinedOutput()
	if os.Getenv("DOCS_TEST_DUMP") != "" { // a directory to keep each page's script and output in, to debug a mismatch
		os.WriteFile(filepath.Join(os.Getenv("DOCS_TEST_DUMP"), filepath.Base(file)+".out"), out, 0o644)
		os.WriteFile(filepath.Join(os.Getenv("DOCS_TEST_DUMP"), filepath.Base(file)+".sh"), []byte(script.String()), 0o644)
	}
	got := splitOutputs(string(out))
	checked := 0
	for i, s := range snippets {
		if s.skip {
			continue
		}
		if s.output == "" {
			if printed := strings.TrimSpace(got[i]); printed != "" { // a reader would expect to see what it prints
				t.Errorf("%s:%d: the snippet prints something but has no output block: add one after it (marked %s) with what it prints (\"...\" for what varies), or silence it\n--- printed:\n%s",
					filepath.Base(file), s.line, outputMarker, got[i])
			}
			continue
		}
		checked++
		if msg := match(normalise(s.output, tmp, root), normalise(got[i], tmp, root)); msg != "" {
			t.Errorf("%s:%d: the output block does not match what the snippet at line %d printed: %s\n--- printed:\n%s",
				filepath.Base(file), s.outAt, s.line, msg, got[i])
		}
	}
	t.Logf("%d snippets, %d outputs checked", len(snippets), checked)
}

var snippetRE = regexp.MustCompile(`(?m)^@@snippet (\d+)@@\n`)

// splitOutputs maps snippet index to what it printed.
func splitOutputs(all string) map[int]string {
	out := map[int]string{}
	locs := snippetRE.FindAllStringSubmatchIndex(all, -1)
	for j, loc := range locs {
		var n int
		fmt.Sscan(all[loc[2]:loc[3]], &n)
		end := len(all)
		if j+1 < len(locs) {
			end = locs[j+1][0]
		}
		out[n] = all[loc[1]:end]
	}
	return out
}

var (
	durationRE = regexp.MustCompile(`\b\d+(\.\d+)?\s?(ms|µs|s)\b`)
	digestRE   = regexp.MustCompile(`\b[0-9a-f]{64}\b`)
	timeRE     = regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\b`)
	weekdayRE  = regexp.MustCompile(`\b(Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b`)
	spacesRE   = regexp.MustCompile(`[ \t]+`)
)

// normalise writes what differs between runs alike. The temporary HOME is the docs' user
// /home/ada, the checkout /home/ada/src/hermes, the temporary directory /tmp.
func normalise(s, tmp, root string) []string {
	s = strings.ReplaceAll(s, root, "/home/ada/src/hermes")
	s = strings.ReplaceAll(s, filepath.Join(tmp, "home"), "/home/ada")
	s = strings.ReplaceAll(s, tmp, "/tmp")
	s = durationRE.ReplaceAllString(s, "D")
	s = digestRE.ReplaceAllString(s, "SHA")
	s = timeRE.ReplaceAllString(s, "TIME")
	s = weekdayRE.ReplaceAllString(s, "WEEKDAY")
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(spacesRE.ReplaceAllString(l, " ")); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// match reports how want fails to match got, or "": each line of want matches the next line
// of got, in order, log records aside; a "..." line lets any number of lines go by (at the
// end: any more).
func match(want, got []string) string {
	g, skip := 0, false // skip: a "..." line before lets any lines go by
	for _, w := range want {
		if w == "..." {
			skip = true
			continue
		}
		re := lineRE(w)
		for !skip && g < len(got) && !re.MatchString(got[g]) && isLog(got[g]) {
			g++
		}
		if !skip {
			if g == len(got) || !re.MatchString(got[g]) {
				next := "nothing"
				if g < len(got) {
					next = fmt.Sprintf("%q", got[g])
				}
				return fmt.Sprintf("line %q does not match what comes next (%s): a block that leaves lines out says so with a \"...\" line", w, next)
			}
			g++
			continue
		}
		for g < len(got) && !re.MatchString(got[g]) {
			g++
		}
		if g == len(got) {
			return fmt.Sprintf("no line matches %q (in order)", w)
		}
		g++
		skip = false
	}
	for g < len(got) && isLog(got[g]) {
		g++
	}
	if g < len(got) && !skip {
		return fmt.Sprintf("the snippet printed more (%q ...) than the block shows: end it with a \"...\" line", got[g])
	}
	return ""
}

// isLog reports whether a printed line is a log record (on stderr, mixed in with the
// output), which a block need not show.
func isLog(line string) bool {
	return strings.HasPrefix(line, "hermesctl: warning:") || strings.HasPrefix(line, "hermesctl: info:") ||
		strings.HasPrefix(line, "hermesctl: debug:") || strings.HasPrefix(line, "time=")
}

// lineRE matches a line of an output block: literally, with "..." for any text.
func lineRE(w string) *regexp.Regexp {
	parts := strings.Split(w, "...")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}

// TestMatch: an output block shows every line the snippet printed, log records aside,
// unless a "..." line says some were left out.
func TestMatch(t *testing.T) {
	got := []string{"a", "hermesctl: warning: w", "b", "c", "d"}
	for _, c := range []struct {
		want []string
		ok   bool
	}{
		{[]string{"a", "b", "c", "d"}, true},
		{[]string{"a", "...", "d"}, true},
		{[]string{"a", "b", "..."}, true},
		{[]string{"...", "c", "d"}, true},
		{[]string{"a", "c", "d"}, false}, // b left out without "..."
		{[]string{"a", "b", "c"}, false}, // d left out at the end
		{[]string{"b", "c", "d"}, false}, // a left out at the start
		{[]string{"a...", "b", "c", "d"}, true},
	} {
		if msg := match(c.want, got); (msg == "") != c.ok {
			t.Errorf("match(%q): %q, want ok %v", c.want, msg, c.ok)
		}
	}
}
