package deps

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// funcVar is a package-level variable of func type, declared in a non-test file.
type funcVar struct {
	pkg, name, pos string
}

// TestNoFuncVarSetElsewhere: no package reaches another through a package-level variable of
// func type that the other package sets (a dependency the compiler cannot see: the caller
// panics, or calls nil, when the setter is not linked in), and no package exports one. A
// package that needs another's behaviour imports it, or is handed it as a typed value.
func TestNoFuncVarSetElsewhere(t *testing.T) {
	files := parseModule(t, "../..")
	if len(files) < 100 {
		t.Fatalf("found only %d Go files in the module", len(files))
	}
	for _, p := range funcVarProblems(files) {
		t.Error(p)
	}
}

// TestFuncVarProblems: the check finds a func variable one package declares and another
// sets in its init (the shape of a link package), and an exported one nobody sets.
func TestFuncVarProblems(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"link/link.go": "package link\n\n// Set by package impl.\nvar Load func(eng any) error\n\nvar hidden = func() {}\n",
		"impl/impl.go": "package impl\n\nimport l \"" + module + "link\"\n\nfunc init() {\n\tl.Load = func(any) error { return nil }\n}\n",
		"own/own.go":   "package own\n\nvar hook func()\n\nfunc init() { hook = func() {} }\n",
	} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := funcVarProblems(parseModule(t, dir))
	if len(got) != 2 || !strings.Contains(got[0], "link.Load is an exported variable") ||
		!strings.Contains(got[1], filepath.Join("impl", "impl.go")+":6:2 sets "+module+"link.Load") {
		t.Errorf("problems %q: want link.Load exported, and set by impl; nothing about link.hidden or own.hook", got)
	}
}

// funcVarProblems lists the package-level func variables of files that are exported, and
// every assignment to one from another package.
func funcVarProblems(files []goFile) []string {
	var problems []string
	vars := map[string]funcVar{} // import path + "." + name -> declaration
	for _, f := range files {
		if f.test {
			continue
		}
		for _, d := range f.ast.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, sp := range g.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !isFuncType(vs, i) {
						continue
					}
					v := funcVar{pkg: f.pkg, name: n.Name, pos: f.fset.Position(n.Pos()).String()}
					vars[f.pkg+"."+n.Name] = v
					if n.IsExported() {
						problems = append(problems, fmt.Sprintf("%s: %s.%s is an exported variable of func type: export a function, or take the func as a typed value", v.pos, path.Base(v.pkg), v.name))
					}
				}
			}
		}
	}
	for _, f := range files {
		imports := map[string]string{} // the name a file uses for each import
		for _, imp := range f.ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			local := p[strings.LastIndex(p, "/")+1:]
			if imp.Name != nil {
				local = imp.Name.Name
			}
			imports[local] = p
		}
		ast.Inspect(f.ast, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok {
				return true
			}
			for _, lhs := range as.Lhs {
				sel, ok := lhs.(*ast.SelectorExpr)
				if !ok {
					continue
				}
				x, ok := sel.X.(*ast.Ident)
				if !ok || imports[x.Name] == "" || imports[x.Name] == f.pkg {
					continue
				}
				if v, ok := vars[imports[x.Name]+"."+sel.Sel.Name]; ok {
					problems = append(problems, fmt.Sprintf("%s sets %s.%s, a func variable of another package (%s): import the package that implements it, or pass it as a typed value",
						f.fset.Position(as.Pos()), v.pkg, v.name, v.pos))
				}
			}
			return true
		})
	}
	return problems
}

// isFuncType reports whether the i-th name of vs is declared with a func type, or without
// a type and initialised with a function literal.
func isFuncType(vs *ast.ValueSpec, i int) bool {
	if vs.Type != nil {
		_, ok := vs.Type.(*ast.FuncType)
		return ok
	}
	if i < len(vs.Values) {
		_, ok := vs.Values[i].(*ast.FuncLit)
		return ok
	}
	return false
}

// goFile is one parsed Go file of the module and the import path of its directory.
type goFile struct {
	fset *token.FileSet
	ast  *ast.File
	pkg  string
	test bool
}

// parseModule parses every Go file under root, the module's directory, outside testdata.
func parseModule(t *testing.T, root string) []goFile {
	t.Helper()
	fset := token.NewFileSet()
	var files []goFile
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		files = append(files, goFile{fset: fset, ast: f, pkg: strings.TrimSuffix(module+filepath.ToSlash(rel), "/."), test: strings.HasSuffix(path, "_test.go")})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
