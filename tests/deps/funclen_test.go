package deps

import (
	"fmt"
	"go/ast"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is how long a function may be, from its func line to its closing brace: one
// screen.
const maxFuncLines = 80

// forks are the packages copied from upstream projects (kept close to their upstream, so a
// change there can be followed): their functions are theirs.
var forks = []string{module + "luabind/internal/lua", module + "luabind/internal/luar"}

// TestFunctionsFitOnAScreen: no non-test function of the module is longer than
// maxFuncLines, outside the forks.
func TestFunctionsFitOnAScreen(t *testing.T) {
	for _, p := range longFuncs(parseModule(t, "../.."), maxFuncLines) {
		t.Error(p)
	}
}

// longFuncs lists the functions (and methods) of files that are longer than max lines.
func longFuncs(files []goFile, max int) []string {
	var out []string
	for _, f := range files {
		if f.test || isFork(f.pkg) {
			continue
		}
		for _, d := range f.ast.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			start, end := f.fset.Position(fd.Pos()), f.fset.Position(fd.End())
			if n := end.Line - start.Line + 1; n > max {
				out = append(out, fmt.Sprintf("%s: %s is %d lines (at most %d: split it)", start, fd.Name.Name, n, max))
			}
		}
	}
	return out
}

func isFork(pkg string) bool {
	for _, f := range forks {
		if pkg == f || strings.HasPrefix(pkg, f+"/") {
			return true
		}
	}
	return false
}

// TestLongFuncs: the check finds a long function and leaves a short one and the forks alone.
func TestLongFuncs(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"a/a.go":                     "package a\n\nfunc short() {}\n\nfunc long() {\n" + strings.Repeat("\t_ = 1\n", 5) + "}\n",
		"luabind/internal/lua/vm.go": "package lua\n\nfunc long() {\n" + strings.Repeat("\t_ = 1\n", 5) + "}\n",
		"a/a_test.go":                "package a\n\nfunc longTest() {\n" + strings.Repeat("\t_ = 1\n", 5) + "}\n",
	} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := parseModule(t, dir)
	got := longFuncs(files, 5)
	if len(got) != 1 || !strings.Contains(got[0], "long is 7 lines") {
		t.Errorf("long functions %q: want a.long only", got)
	}
}
