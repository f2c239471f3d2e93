// Package deps holds the dependency policy of the project as a table and checks it with
// `go list`, the way the Go tree checks its own (src/go/build/deps_test.go).
package deps

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/hermes-hooks/hermes/"

// forbidden lists, per package, what it must not depend on, directly or not.
var forbidden = map[string][]string{
	// The shared vocabulary is the leaf: it depends on nothing of the project but the
	// names of the hooks (see excepted).
	"hookspec": {"engine", "gateway", "shell", "consent", "luabind", "internal", "cmd/hermesctl"},
	"luabind":  {"engine", "gateway", "shell", "consent", "cmd/hermesctl"},
	"shell":    {"engine", "gateway", "luabind", "consent"},
	"consent":  {"engine", "gateway", "luabind", "shell"},
	// State is a backend: Lua reaches it through the interface luabind declares.
	"store": {"engine", "gateway", "luabind", "shell", "consent", "cmd/hermesctl"},
	// Only metrics/promcollector, the adapter for hosts that use the Prometheus client, links it.
	"engine":  {"gateway", "cmd/hermesctl", "github.com/prometheus"},
	"gateway": {"cmd/hermesctl", "github.com/prometheus"},
	// The hook server answers over HTTP what the engine decides: it needs no gateway.
	"server": {"gateway", "cmd/hermesctl", "github.com/prometheus"},
	// Outbound webhooks are told events; they never reach back into what emits them.
	"webhook":  {"engine", "gateway", "luabind", "consent", "shell", "cmd/hermesctl"},
	"internal": {"engine", "gateway", "luabind", "cmd/hermesctl"},
	// Decision logs are told decisions; they never reach back into what decides.
	"decisionlog": {"engine", "gateway", "luabind", "consent", "shell", "store", "server", "cmd/hermesctl"},
	// The one resolution of a shell-hook command, shared by shell (the runner) and consent.
	"internal/command": {"shell", "consent", "luabind"},
	// Bundles are files and signatures: they load nothing and run nothing.
	"bundle": {"engine", "gateway", "luabind", "shell", "consent", "store", "server", "cmd/hermesctl"},
	// hermesctl starts once per tool call of an agent (hermesctl hook), and every linked
	// package's initialisation runs at every start: it links no registry client whose
	// packages compile regular expressions at init (internal/ocibundle speaks the registry
	// API itself), exports spans over OTLP/HTTP without linking gRPC, and links no SSH client
	// to read bundle signatures (bundle writes and checks DSSE envelopes itself); it counts
	// with package metrics, not the Prometheus client (its default registry, procfs and
	// expvar), and writes OTLP messages without the protobuf runtime.
	"cmd/hermesctl": {"oras.land/oras-go/v2", "github.com/opencontainers/go-digest", "github.com/opencontainers/image-spec",
		"google.golang.org/grpc", "github.com/grpc-ecosystem/grpc-gateway", "go.opentelemetry.io/proto/otlp",
		"golang.org/x/crypto/ssh", "github.com/prometheus", "google.golang.org/protobuf"},
}

// excepted lists, per package, what it may depend on although forbidden says otherwise.
var excepted = map[string][]string{
	"hookspec": {"internal/hooknames"}, // string constants, for the packages that read names from files
}

// onlyImportedBy lists third-party packages that only one of our packages may import
// directly: everything else reaches them through it. Packages internal to that package
// (owner/internal/...), which Go lets only the owner import, may import them too.
var onlyImportedBy = map[string]string{
	"github.com/fsnotify/fsnotify": "engine",
	"github.com/gofrs/flock":       "internal/safefile", // its lock files: the allowlist's, the bundle cache's
	"modernc.org/sqlite":           "store",
	"github.com/redis/go-redis/v9": "store",
	// Signatures of bundles: one place that knows the envelope and the keys.
	"github.com/secure-systems-lab/go-securesystemslib/dsse":           "bundle",
	"github.com/secure-systems-lab/go-securesystemslib/signerverifier": "bundle",
	// Lua is the engine's business: the gateway and the CLI reach it through the engine.
	module + "luabind": "engine",
	// The libraries take a TracerProvider (the OpenTelemetry API); only the CLI builds one
	// and exports what it records.
	"go.opentelemetry.io/otel/sdk/trace": "cmd/hermesctl",
}

type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

func list(t *testing.T) []pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "../../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func TestDependencyPolicy(t *testing.T) {
	pkgs := list(t)
	if len(pkgs) < 8 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	for _, p := range pkgs {
		name := strings.TrimPrefix(p.ImportPath, module)
		for owner, bad := range forbidden {
			if name != owner && !strings.HasPrefix(name, owner+"/") {
				continue
			}
			for _, b := range bad {
				full := b
				if !strings.Contains(b, ".") {
					full = module + b
				}
				for _, d := range p.Deps { // a forbidden package, or one under it
					rel := strings.TrimPrefix(d, module)
					if (d == full || strings.HasPrefix(d, full+"/")) && !slices.Contains(excepted[owner], rel) {
						t.Errorf("%s depends on %s", name, rel)
					}
				}
			}
		}
		for _, imp := range p.Imports {
			if owner, ok := onlyImportedBy[imp]; ok && name != owner && !strings.HasPrefix(name, owner+"/internal/") &&
				!strings.HasPrefix(name, "tests/") {
				t.Errorf("%s imports %s directly; only %s may", name, imp, owner)
			}
		}
	}
}

// lualayers is the layout of luabind's insides, from the bottom: each package may import,
// of the project, only what its entry lists (the interpreter's own packages, under
// internal/lua, count as one). hostpath resolves the host's paths for the core, io and exec;
// internal/procgroup, the module's, runs a program in a process group of its own.
// A module (internal/modules/<name>) sees the interpreter, the
// limits, the standard library and the contract, never another module and never the core:
// what a module needs of its state goes through the contract's VU.
var lualayers = map[string][]string{
	"luabind/internal/limits":   {"luabind/internal/lua"},
	"luabind/internal/hostpath": {},
	"luabind/internal/stdlib":   {"luabind/internal/lua", "luabind/internal/limits"},
	"luabind/internal/modules":  {"luabind/internal/lua", "luabind/internal/limits", "luabind/internal/stdlib"},
	"luabind/internal/modules/*": {"luabind/internal/lua", "luabind/internal/limits", "luabind/internal/stdlib",
		"luabind/internal/hostpath", "luabind/internal/modules", "hookspec", "internal/procgroup"},
}

// TestLuabindLayers holds lualayers, on the direct imports of every package under luabind.
func TestLuabindLayers(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range list(t) {
		name := strings.TrimPrefix(p.ImportPath, module)
		rule := name
		if strings.HasPrefix(name, "luabind/internal/modules/") {
			rule = "luabind/internal/modules/*"
		}
		allowed, ok := lualayers[rule]
		if !ok {
			continue
		}
		seen[rule] = true
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			imp = strings.TrimPrefix(imp, module)
			if strings.HasPrefix(imp, "luabind/internal/lua/") {
				imp = "luabind/internal/lua"
			}
			if !slices.Contains(allowed, imp) {
				t.Errorf("%s imports %s; it may import only %v", name, imp, allowed)
			}
		}
	}
	for rule := range lualayers {
		if !seen[rule] {
			t.Errorf("no package matches %s: the layout changed, update lualayers", rule)
		}
	}
}

// TestNoUpstreamLua: the engine runs on its own fork of gopher-lua (luabind/internal/lua), so
// that a host's gopher-lua, of any version, is untouched by importing it: no package of the
// module depends on upstream gopher-lua or gopher-luar, and go.mod requires neither
// (tests/hostlua, a module of its own, checks the host's side).
func TestNoUpstreamLua(t *testing.T) {
	upstream := []string{"github.com/yuin/gopher-lua", "layeh.com/gopher-luar"}
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range upstream {
		if strings.Contains(string(mod), m) {
			t.Errorf("go.mod names %s", m)
		}
	}
	for _, p := range list(t) {
		for _, d := range p.Deps {
			for _, m := range upstream {
				if d == m || strings.HasPrefix(d, m+"/") {
					t.Errorf("%s depends on %s", p.ImportPath, d)
				}
			}
		}
	}
}

// unsafeAllowed lists the files outside the Lua interpreter (luabind/internal/lua, a fork
// that keeps upstream's own uses) that may import unsafe, the functions each may use, and
// why. Nothing else in the module imports it.
var unsafeAllowed = map[string]struct {
	uses []string
	why  string
}{
	"luabind/internal/stdlib/strlib.go": {[]string{"String", "SliceData"},
		"a built result of up to 64 MiB (gsub, format, rep) becomes a Lua string without a copy"},
	"luabind/internal/modules/re/re.go": {[]string{"String", "SliceData"},
		"a scratch buffer is read as a string, without a copy, before it is reused"},
}

// TestNoLinknameNoUnsafe: no Go file of the module reaches into another package's private
// symbols with a linkname directive, and only the files of unsafeAllowed import unsafe
// outside the interpreter's fork, using only the functions listed there.
func TestNoLinknameNoUnsafe(t *testing.T) {
	directive := "//go:" + "linkname" // not spelled out, so that this file does not match
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	usesUnsafe := map[string]bool{} // files found importing unsafe
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		files++
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(src, []byte(directive)) {
			t.Errorf("%s: has a %s directive", rel, directive)
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: %v", rel, err)
			return nil
		}
		name := "" // what unsafe is called in f
		for _, imp := range f.Imports {
			if imp.Path.Value == `"unsafe"` {
				name = "unsafe"
				if imp.Name != nil {
					name = imp.Name.Name
				}
			}
		}
		if name == "" || strings.HasPrefix(rel, "luabind/internal/lua/") {
			return nil
		}
		allowed, ok := unsafeAllowed[rel]
		usesUnsafe[rel] = true
		if !ok {
			t.Errorf("%s imports unsafe; only the Lua interpreter and %v may", rel, slices.Sorted(maps.Keys(unsafeAllowed)))
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == name && !slices.Contains(allowed.uses, sel.Sel.Name) {
					t.Errorf("%s uses unsafe.%s; it may use only %v (%s)", rel, sel.Sel.Name, allowed.uses, allowed.why)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for rel := range unsafeAllowed {
		if !usesUnsafe[rel] {
			t.Errorf("%s is in unsafeAllowed but does not import unsafe (moved or changed?): drop or update its entry", rel)
		}
	}
	if files < 100 {
		t.Fatalf("found only %d Go files under %s", files, root)
	}
}

// TestNoVMTypeInPublicAPI: the interpreter is internal to luabind, and no package a host
// imports names one of its types (or gopher-luar's) in what it exports: exported functions
// and methods, exported fields, interface methods, variables and constants.
func TestNoVMTypeInPublicAPI(t *testing.T) {
	vm := []string{module + "luabind/internal/lua", module + "luabind/internal/luar"}
	checked := 0
	for _, p := range list(t) {
		if strings.Contains(p.ImportPath, "/internal/") || strings.Contains(p.ImportPath, "/tests/") || strings.HasSuffix(p.ImportPath, "/cmd/hermesctl") {
			continue
		}
		dir := filepath.Join("../..", strings.TrimPrefix(p.ImportPath, module))
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			checked++
			imports := map[string]string{} // the name a file uses for each import
			for _, imp := range f.Imports {
				path := strings.Trim(imp.Path.Value, `"`)
				local := path[strings.LastIndex(path, "/")+1:]
				if imp.Name != nil {
					local = imp.Name.Name
				}
				imports[local] = path
			}
			report := func(what string, n ast.Node) {
				ast.Inspect(n, func(n ast.Node) bool {
					sel, ok := n.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					if x, ok := sel.X.(*ast.Ident); ok && slices.ContainsFunc(vm, func(p string) bool { return imports[x.Name] == p }) {
						t.Errorf("%s: %s names %s.%s, an interpreter type", name, what, x.Name, sel.Sel.Name)
					}
					return true
				})
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Name.IsExported() && (d.Recv == nil || exportedRecv(d.Recv)) {
						report(d.Name.Name, d.Type)
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							if s.Name.IsExported() {
								report(s.Name.Name, exportedPart(s.Type))
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() && s.Type != nil {
									report(n.Name, s.Type)
								}
							}
						}
					}
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d files checked", checked)
	}
}

// exportedRecv reports whether a method's receiver is an exported type.
func exportedRecv(recv *ast.FieldList) bool {
	if len(recv.List) == 0 {
		return false
	}
	typ := recv.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	if g, ok := typ.(*ast.IndexExpr); ok {
		typ = g.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.IsExported()
}

// exportedPart is the part of a type declaration a user sees: a struct's exported and
// embedded fields, an interface's methods, or the whole type.
func exportedPart(typ ast.Expr) ast.Node {
	st, ok := typ.(*ast.StructType)
	if !ok {
		return typ
	}
	var fields []*ast.Field
	for _, f := range st.Fields.List {
		if len(f.Names) == 0 || slices.ContainsFunc(f.Names, (*ast.Ident).IsExported) {
			fields = append(fields, f)
		}
	}
	return &ast.StructType{Fields: &ast.FieldList{List: fields}}
}
