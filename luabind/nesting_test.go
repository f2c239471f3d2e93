package luabind

import (
	"context"
	"go/build"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/lua/parse"
)

// nestingShapes build source nested n deep in each way gopher-lua's compiler recurses.
var nestingShapes = map[string]func(n int) string{
	"parens":         func(n int) string { return "x = " + rep("(", n) + "1" + rep(")", n) },
	"tables":         func(n int) string { return "x = " + rep("{", n) + rep("}", n) },
	"functions":      func(n int) string { return "x = " + rep("function() return ", n) + "1" + rep(" end", n) },
	"local function": func(n int) string { return rep("local function f() ", n) + rep(" end", n) },
	"if":             func(n int) string { return rep("if x then ", n) + rep(" end", n) },
	"elseif":         func(n int) string { return "if x then " + rep("elseif x then ", n) + "end" },
	"do":             func(n int) string { return rep("do ", n) + rep(" end", n) },
	"while":          func(n int) string { return rep("while x do ", n) + rep(" end", n) },
	"for":            func(n int) string { return rep("for i = 1, 2 do ", n) + rep(" end", n) },
	"repeat":         func(n int) string { return rep("repeat ", n) + rep(" until x", n) },
	"fields":         func(n int) string { return "x = a" + rep(".b", n) },
	"calls":          func(n int) string { return "x = f" + rep("()", n) },
	"index":          func(n int) string { return "x = a" + rep("[1]", n) },
	"methods":        func(n int) string { return "x = a" + rep(":b()", n) },
	"string calls":   func(n int) string { return "x = f" + rep(`"a"`, n) },
	"table calls":    func(n int) string { return "x = f" + rep("{}", n) },
	"sum":            func(n int) string { return "x = 1" + rep("+1", n) },
	"concat":         func(n int) string { return "x = s" + rep("..s", n) },
	"power":          func(n int) string { return "x = y" + rep("^y", n) },
	"comparisons":    func(n int) string { return "x = y" + rep("==y", n) },
	"and":            func(n int) string { return "x = y" + rep(" and y", n) },
	"not":            func(n int) string { return "x = " + rep("not ", n) + "y" },
	"minus":          func(n int) string { return "x = " + rep("- ", n) + "y" },
	"length":         func(n int) string { return "x = " + rep("#", n) + "t" },
}

func rep(s string, n int) string { return strings.Repeat(s, n) }

// compiles reports whether gopher-lua parses and compiles src.
func compiles(src string) error {
	chunk, err := parse.Parse(strings.NewReader(src), "x")
	if err == nil {
		_, err = lua.Compile(chunk, "x")
	}
	return err
}

func TestNestingBoundsEveryShape(t *testing.T) {
	for name, gen := range nestingShapes {
		t.Run(name, func(t *testing.T) {
			if err := compiles(gen(50)); err != nil {
				t.Fatalf("the shape itself does not compile: %v", err)
			}
			if n := scanNesting(gen(100), 1000); n.peak < 100 || n.peak > 101 {
				t.Errorf("100 deep measures %d", n.peak)
			}
			if _, msg := checkSource(gen(maxNesting - 1)); msg != "" {
				t.Errorf("%d deep: refused: %s", maxNesting-1, msg)
			}
			if line, msg := checkSource(gen(maxNesting + 1)); msg != nestingMsg || line != 1 {
				t.Errorf("%d deep: line %d, %q; want line 1, %q", maxNesting+1, line, msg, nestingMsg)
			}
			if n := scanNesting(gen(1_000_000), maxNesting); !n.over || n.line != 1 {
				t.Errorf("1,000,000 deep: not refused")
			}
		})
	}
}

func TestNestingMeasuresByPrecedence(t *testing.T) {
	tests := []struct {
		src  string
		want int
	}{
		{"x = a*b + c*d + e*f", 3},
		{"x = a + b * c ^ d ^ e", 4},
		{"x = -a ^ b", 2},
		{"x = not a == b", 2},
		{"x = a .. b .. c + d", 3},
		{"x = t.a.b + t.c", 3},
		{"x = o:m(1):m(2)", 2},
		{"f() g() h()", 1},
		{"x = f(a, {b, c})", 2},
		{"if a then b() elseif c then d() else e() end", 3},
	}
	for _, tt := range tests {
		if got := scanNesting(tt.src, 1000).peak; got != tt.want {
			t.Errorf("%s: measured %d, want %d", tt.src, got, tt.want)
		}
	}
}

// trickySnippets are valid programs whose tokens are easy to get wrong.
var trickySnippets = []string{
	"local s = [[ ( ( ( ]] .. [==[ ]] ]=] ( ]==] return s",
	"--[[ ( ( ( ]] x = 1 --[==[ ]] ]==] y = 2",
	"--[ not a long comment ( ( (\nx = 1",
	"-- a line comment ( ( (\r\nx = 1",
	"x = \"a\\\"(\" .. 'b\\'(' .. \"\\\\\" .. \"c\\\n(\"",
	"t = {[1] = 2, [ [[k]] ] = 3; x = 4, 5}",
	"x = 0x1F + 1e-3 + .5 + 3. + 2E+2 + 0xff",
	"a.b:c \"x\" {y = 1} [[z]]",
	"::top:: goto top",
	"for k, v in pairs(t) do while k do repeat local z = -k^2 until not z end end",
	"local f = function(...) return select('#', ...), #{...} end",
	"if a then elseif b then elseif c then else end",
	"x = a ~= b and a <= b or a >= b and a < b or a > b",
	"f{}; f''; f[[]]; (f)(); f.a.b.c:d()",
	"do local x = (1)(2)(3) end return",
	"x=1;;;y=2",
	"local t = {\n  f = function(self) return self.x end,\n  [\"a b\"] = { { {} } },\n}",
}

func TestNestingAcceptsValidLua(t *testing.T) {
	for _, src := range trickySnippets {
		if err := compiles(src); err != nil {
			t.Errorf("%q: gopher-lua refuses it: %v", src, err)
			continue
		}
		checkAccepted(t, src, src)
	}
	files := luaFiles(t)
	accepted := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if checkAccepted(t, f, string(b)) {
			accepted++
		}
	}
	t.Logf("%d of %d .lua files accepted", accepted, len(files))
}

// checkAccepted fails unless src is accepted and lexed into gopher-lua's tokens.
func checkAccepted(t *testing.T, what, src string) bool {
	t.Helper()
	if line, msg := checkSource(src); msg != "" {
		t.Errorf("%s: refused at line %d: %s", what, line, msg)
		return false
	}
	if want, ok := gopherTokens(src); ok {
		if got := ourTokens(src); !slices.Equal(got, want) {
			i := 0
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s: token %d differs from gopher-lua's: got %q, want %q", what, i, got[i:min(i+5, len(got))], want[i:min(i+5, len(want))])
			return false
		}
	}
	return true
}

// luaFiles are the example handlers of the repository and gopher-lua's own test files
// (when the module is in the module cache).
func luaFiles(t *testing.T) []string {
	var files []string
	walk := func(root string) {
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lua") {
				files = append(files, p)
			}
			return nil
		})
	}
	walk("..")
	cache := os.Getenv("GOMODCACHE")
	if cache == "" {
		cache = filepath.Join(build.Default.GOPATH, "pkg", "mod")
	}
	mod := filepath.Join(cache, "github.com", "yuin", "gopher-lua@v1.1.2")
	for _, dir := range []string{"_lua5.1-tests", "_glua-tests"} {
		if _, err := os.Stat(filepath.Join(mod, dir)); err != nil {
			t.Logf("%s not found: only the repository's files are checked", dir)
			continue
		}
		walk(filepath.Join(mod, dir))
	}
	return files
}

// gopherTokens lexes src with gopher-lua's own scanner; ok is false if it fails.
func gopherTokens(src string) (toks []string, ok bool) {
	sc := parse.NewScanner(strings.NewReader(src), "x")
	lx := &parse.Lexer{}
	for {
		tok, err := sc.Scan(lx)
		if err != nil {
			return nil, false
		}
		lx.PrevTokenType = tok.Type
		switch tok.Type {
		case parse.EOF:
			return toks, true
		case parse.TNumber:
			toks = append(toks, "<number>")
		case parse.TString:
			toks = append(toks, "<string>")
		case '.':
			toks = append(toks, ".") // its Str is empty
		default:
			toks = append(toks, tok.Str)
		}
	}
}

// ourTokens lexes src with luaLexer, in gopherTokens' form.
func ourTokens(src string) []string {
	lx := luaLexer{src: src, line: 1}
	var toks []string
	for {
		tok := lx.next()
		switch tok.kind {
		case tokEOF:
			return toks
		case tokBad:
			return append(toks, "<bad>")
		case tokNumber:
			toks = append(toks, "<number>")
		case tokString:
			toks = append(toks, "<string>")
		default:
			toks = append(toks, tok.text)
		}
	}
}

func TestNestingErrorLine(t *testing.T) {
	src := "function register(ctx)\n  local t = " + rep("{", 300) + rep("}", 300) + "\nend\n"
	_, err := LoadPlugin(context.Background(), []byte(src), Options{File: "deep/handler.lua"})
	wantErr(t, "load", err, KindSyntax, "deep/handler.lua:2: "+nestingMsg)
}

const deepConstructor = 1_000_000

func TestLoadPluginRefusesDeepConstructor(t *testing.T) {
	src := "function register(ctx) end\nreturn " + rep("{", deepConstructor) + rep("}", deepConstructor)
	_, err := LoadPlugin(context.Background(), []byte(src), Options{File: "bomb/handler.lua"})
	wantErr(t, "load", err, KindSyntax, "bomb/handler.lua:2: nesting too deep (more than 200 levels of brackets, blocks or operators)")

	sibling := loadPlugin(t, "function register(ctx) ctx.register_hook('x', function() return 'alive' end) end", Options{})
	if got, err := sibling.Call(context.Background(), 0, nil); err != nil || got != "alive" {
		t.Errorf("sibling: %v, %v", got, err)
	}
}

func TestLargeDeepHandlerRefusedQuickly(t *testing.T) {
	tests := map[string]string{
		"brackets first":       rep("(", 2<<20),
		"flat code, then deep": rep("x = 1\n", (2<<20)/6-100) + "x = " + rep("{", 300),
		"long chains":          rep("x = a"+rep(".b", 150)+"\n", (2<<20)/302) + "x = a" + rep(".b", 300),
	}
	for name, src := range tests {
		start := time.Now()
		_, err := LoadPlugin(context.Background(), []byte(src), Options{File: "big/handler.lua"})
		took := time.Since(start)
		wantErr(t, name, err, KindSyntax, nestingMsg)
		t.Logf("%s: %d bytes refused in %v", name, len(src), took)
		if took > 5*time.Second {
			t.Errorf("%s: refused after %v", name, took)
		}
	}
	big := "x = 1\n" + rep(" ", maxSourceSize)
	_, err := LoadPlugin(context.Background(), []byte(big), Options{File: "big/handler.lua"})
	wantErr(t, "too large", err, KindLimit, "big/handler.lua: limit exceeded: source larger than 4 MiB")
}

func TestLoadstringRefusesDeepSource(t *testing.T) {
	p := loadPlugin(t, `
function register(ctx)
  ctx.register_hook("loadstring", function(kw) return assert(loadstring(kw.src, kw.name)) ~= nil end)
  ctx.register_hook("load", function(kw)
    local i = 0
    local f, err = load(function()
      i = i + 1
      if i <= kw.n then return kw.piece end
    end, "pieces")
    return f ~= nil or err
  end)
end`, Options{Timeout: time.Minute}) // under -race on a busy machine, thousands of reader calls take seconds
	deep := "return " + rep("{", deepConstructor) + rep("}", deepConstructor)
	_, err := p.Call(context.Background(), 0, map[string]any{"src": deep})
	wantErr(t, "loadstring", err, KindRuntime, "<string>:1: "+nestingMsg)
	_, err = p.Call(context.Background(), 0, map[string]any{"src": "\n" + deep, "name": "=chunk"})
	wantErr(t, "named", err, KindRuntime, "=chunk:2: "+nestingMsg)
	if got, err := p.Call(context.Background(), 0, map[string]any{"src": "return {{1}}"}); err != nil || got != true {
		t.Errorf("next call: %v, %v", got, err)
	}

	got, err := p.Call(context.Background(), 1, map[string]any{"piece": "{", "n": deepConstructor})
	if err != nil || got != "pieces:1: "+nestingMsg {
		t.Errorf("load of deep pieces: %v, %v", got, err)
	}
	got, err = p.Call(context.Background(), 1, map[string]any{"piece": rep(" ", 1<<20), "n": 5})
	if err != nil || got != "pieces: "+sourceTooLarge {
		t.Errorf("load of 5 MiB: %v, %v", got, err)
	}
	got, err = p.Call(context.Background(), 1, map[string]any{"piece": "x = 1 ", "n": 3})
	if err != nil || got != true {
		t.Errorf("load of small pieces: %v, %v", got, err)
	}
}

func TestLoadReaderHonoursTimeout(t *testing.T) {
	p := loadPlugin(t, `
function register(ctx)
  ctx.register_hook("x", function() return load(function() return " " end) end)
end`, Options{Timeout: 100 * time.Millisecond})
	_, err := p.Call(context.Background(), 0, nil)
	wantErr(t, "endless reader", err, KindTimeout, "timed out")
}
