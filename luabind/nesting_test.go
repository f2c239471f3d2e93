package luabind

import (
	"context"
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/luabind/internal/stdlib"
)

func rep(s string, n int) string { return strings.Repeat(s, n) }

// nestingMsg is the parser's message for a chunk nested too deeply (parse.MaxDepth).
const nestingMsg = "chunk has too many syntax levels (more than 200 levels of blocks, brackets or operators)"

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

// Valid programs, and every .lua file of the repository and of gopher-lua's tests, are
// not refused for their depth.
func TestNestingAcceptsValidLua(t *testing.T) {
	for _, src := range trickySnippets {
		if _, err := compile("x", []byte(src)); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
	files := luaFiles(t)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := compile(f, b); err != nil && strings.Contains(err.Error(), "syntax levels") {
			t.Errorf("%s: %v", f, err)
		}
	}
	t.Logf("%d .lua files", len(files))
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

func TestNestingErrorLine(t *testing.T) {
	src := "function register(ctx)\n  local t = " + rep("{", 300) + rep("}", 300) + "\nend\n"
	_, err := LoadPlugin(context.Background(), []byte(src), Options{File: "deep/handler.lua"})
	wantErr(t, "load", err, KindSyntax, "deep/handler.lua:2: "+nestingMsg)
}

const deepConstructor = 1_000_000

func TestLoadPluginRefusesDeepConstructor(t *testing.T) {
	src := "function register(ctx) end\nreturn " + rep("{", deepConstructor) + rep("}", deepConstructor)
	_, err := LoadPlugin(context.Background(), []byte(src), Options{File: "bomb/handler.lua"})
	wantErr(t, "load", err, KindSyntax, "bomb/handler.lua:2: "+nestingMsg)

	sibling := loadPlugin(t, "function register(ctx) ctx.register_hook('x', function() return 'alive' end) end", Options{})
	if got, err := sibling.Call(context.Background(), 0, nil); err != nil || got != "alive" {
		t.Errorf("sibling: %v, %v", got, err)
	}
}

func TestLargeDeepHandlerRefusedQuickly(t *testing.T) {
	tests := map[string]string{
		"brackets first":       rep("(", 2<<20),
		"flat code, then deep": rep("x = 1\n", (2<<20)/6-100) + "x = " + rep("{", 300) + rep("}", 300),
		"long chains":          rep("x = a"+rep(".b", 150)+"\n", (2<<20)/302) + "x = a" + rep(".b", 300),
	}
	for name, src := range tests {
		start := time.Now()
		_, err := LoadPlugin(context.Background(), []byte(src), Options{File: "big/handler.lua"})
		took := time.Since(start)
		wantErr(t, name, err, KindSyntax, nestingMsg)
		t.Logf("%s: %d bytes refused in %v", name, len(src), took)
		if took > 30*time.Second { // linear in the size: a bound for a quadratic blow-up, not a timing
			t.Errorf("%s: refused after %v", name, took)
		}
	}
	big := "x = 1\n" + rep(" ", stdlib.MaxSourceSize)
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

	got, err := p.Call(context.Background(), 1, map[string]any{"piece": "x={", "n": 100_000})
	if err != nil || got != "pieces:1: "+nestingMsg {
		t.Errorf("load of deep pieces: %v, %v", got, err)
	}
	got, err = p.Call(context.Background(), 1, map[string]any{"piece": rep(" ", 1<<20), "n": 5})
	if err != nil || got != "pieces: "+stdlib.SourceTooLarge {
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
