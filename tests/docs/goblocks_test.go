package docs

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The kinds of a go block, told by a marker on the line before it:
//
//	<!-- docs-test: go decls -->  the block is top-level declarations (a type, a func)
//
// Without a marker, a block that starts with "package" is a whole program, and any other
// block is statements: the body of a func returning (docErr error), so that it may `return`,
// `return err` or `return send(...)`. The names a fragment uses without declaring them (ctx,
// home, logger, eng, gw, send, ...) are declared in testdata/names.go.
const declsMarker = "<!-- docs-test: go decls -->"

// goBlock is one go block of a document.
type goBlock struct {
	file string // relative to the repository
	line int    // of the block's first line of code
	code string
	kind string // "program", "decls" or "body"
}

// goBlocks reads the go blocks of a markdown file.
func goBlocks(t *testing.T, root, rel string) []goBlock {
	t.Helper()
	f, err := os.Open(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []goBlock
	var cur *goBlock
	var marker, fence string
	var body strings.Builder
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case fence != "" && strings.TrimSpace(line) == "```":
			if cur != nil {
				cur.code = body.String()
				if cur.kind == "body" && strings.HasPrefix(cur.code, "package ") {
					cur.kind = "program"
				}
				out = append(out, *cur)
			}
			fence, cur = "", nil
		case fence != "":
			body.WriteString(line + "\n")
		case strings.HasPrefix(line, "```"):
			fence = strings.TrimPrefix(line, "```")
			if fence == "" {
				fence = "text"
			}
			body.Reset()
			if fence == "go" {
				cur = &goBlock{file: rel, line: n + 1, kind: "body"}
				if marker == declsMarker {
					cur.kind = "decls"
				}
			}
			marker = ""
		case strings.TrimSpace(line) != "":
			marker = strings.TrimSpace(line)
		}
	}
	return out
}

// TestGoBlocks compiles every go block of README.md and docs/*.md, each in a package of
// its own of one module that uses this checkout, with one go build and one go vet of them
// all: a whole program as it is, a fragment in a file that declares the names it uses
// (testdata/names.go). A compile error names the document and the line of the block.
func TestGoBlocks(t *testing.T) {
	if raceEnabled {
		t.Skip("builds and vets the blocks with go build and go vet: the run without -race does the same")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	rels := []string{"README.md"}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		rels = append(rels, rel)
	}
	names, err := os.ReadFile(filepath.Join("testdata", "names.go"))
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	n := 0
	for _, rel := range rels {
		for _, b := range goBlocks(t, root, rel) {
			n++
			pkg := fmt.Sprintf("block%d", n)
			src, err := blockSource(b, pkg, string(names))
			if err != nil {
				t.Errorf("%s:%d: %v", b.file, b.line, err)
				continue
			}
			dir := filepath.Join(mod, pkg)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "block.go"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n == 0 {
		t.Fatal("no go block found in the docs")
	}
	writeModule(t, root, mod)
	for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go %s of the %d go blocks of the docs: %v\n%s", strings.Join(args, " "), n, err, out)
		}
	}
}

// blockSource is the file that compiles b as package pkg: a program as it is (its package
// renamed when it is not main), a fragment after names (declarations at the top level,
// statements in the body of a func).
func blockSource(b goBlock, pkg, names string) (string, error) {
	at := fmt.Sprintf("//line %s:%d\n", b.file, b.line)
	if b.kind == "program" {
		return at + b.code, nil
	}
	names = regexp.MustCompile(`(?m)^package names$`).ReplaceAllString(names, "package "+pkg)
	if b.kind == "decls" {
		return names + "\n" + at + b.code, nil
	}
	end := "\treturn\n"
	fn := "func _() (docErr error) {\n" + b.code + "}\n"
	f, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+fn, 0)
	if err != nil {
		return "", fmt.Errorf("not Go statements (mark top-level declarations with %s): %v", declsMarker, err)
	}
	if body := f.Decls[0].(*ast.FuncDecl).Body.List; len(body) > 0 && terminates(body[len(body)-1]) {
		end = ""
	}
	return names + "\nfunc _() (docErr error) {\n" + at + b.code + end + "}\n", nil
}

// terminates reports whether s ends its func, as far as a fragment's last statement goes: a
// return, a loop with no condition, a panic, an if whose branches all terminate.
func terminates(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.ReturnStmt:
		return true
	case *ast.ForStmt:
		return s.Cond == nil
	case *ast.BlockStmt:
		return len(s.List) > 0 && terminates(s.List[len(s.List)-1])
	case *ast.IfStmt:
		return s.Else != nil && terminates(s.Body) && terminates(s.Else)
	case *ast.ExprStmt:
		c, ok := s.X.(*ast.CallExpr)
		if !ok {
			return false
		}
		id, ok := c.Fun.(*ast.Ident)
		return ok && id.Name == "panic"
	}
	return false
}

// writeModule makes mod a module that requires what this checkout requires, with this
// checkout for github.com/hermes-hooks/hermes.
func writeModule(t *testing.T, root, mod string) {
	t.Helper()
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	_, requires, _ := strings.Cut(string(gomod), "\nrequire")
	src := "module example.com/docblocks\n\ngo 1.26.0\n\nrequire github.com/hermes-hooks/hermes v0.0.0\n\nreplace github.com/hermes-hooks/hermes => " +
		root + "\n\nrequire" + requires
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
}
