package luabind

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/stdlib"
)

// loopCases are loops whose jump back lands on a jump, which gopher-lua's compiler
// miscompiled (its jump threading read a jump it had already rewritten as a label; fixed in
// the fork, PATCHES.md), with what Lua 5.1 gives.
var loopCases = []struct {
	name, body string
	want       string
	notC       bool // Lua 5.2 syntax (goto), which C Lua 5.1 cannot run
}{
	{"while true as a for-in body", `for _ in pairs({a = 1}) do while true do break end end return "ok"`, "ok", false},
	{"while false as a for-in body", `for _ in pairs({a = 1}) do while false do end end return "ok"`, "ok", false},
	{"while nil as a for-in body", `for _ in pairs({a = 1}) do while nil do end end return "ok"`, "ok", false},
	{"while true with an empty body", `local n = 0 for _ in pairs({a = 1, b = 2}) do n = n + 1 if n > 5 then break end while false do end end return n`, "2", false},
	{"in repeat", `local n = 0 repeat while true do n = n + 1 break end until n >= 3 return n`, "3", false},
	{"in while", `local n = 0 while n < 3 do while true do n = n + 1 break end end return n`, "3", false},
	{"in numeric for", `local n = 0 for i = 1, 3 do while true do n = n + i break end end return n`, "6", false},
	{"body starts with if", `local n = 0 while true do if n >= 3 then break end n = n + 1 end return n`, "3", false},
	{"for-in body starts with if", `local n = 0 for _, v in ipairs({1, 2, 9}) do if v > 5 then break end n = n + v end return n`, "3", false},
	{"nested for-in", `local n = 0 for _, a in ipairs({1, 2}) do for _, b in ipairs({10, 20}) do while true do n = n + a * b break end end end return n`, "90", false},
	{"do block first", `local n = 0 for _ in pairs({x = 1, y = 2}) do do while true do n = n + 1 break end end end return n`, "2", false},
	{"break first", `local n = 0 for _ in pairs({x = 1}) do break end for _, v in ipairs({4, 5}) do n = n + v end return n`, "9", false},
	{"constant or in a condition", `local n, i = 0, 0 while false or i < 3 do i = i + 1 n = n + i end return n`, "6", false},
	{"constant and in a condition", `local i = 0 while true and i < 2 do i = i + 1 end return i`, "2", false},
	{"not in a condition", `local i = 0 while not (i >= 2) do i = i + 1 end return i`, "2", false},
	{"false and in a condition", `local i = 0 for _ in pairs({a = 1}) do while false and i < 2 do i = i + 1 end end return i`, "0", false},
	{"in a function in a table", `local t = {f = function() local n = 0 for _ in pairs({a = 1, b = 2}) do while true do n = n + 1 break end end return n end} return t.f()`, "2", false},
	{"in a local function", `local function f(list) local n = 0 for _, v in ipairs(list) do while true do n = n + v break end end return n end return f({1, 2, 3})`, "6", false},
	{"a guard that must not fail open", `local banned, cmd, blocked = {"mkfs", "rm -rf"}, "sudo rm -rf /", nil
for _, p in ipairs(banned) do
  if false then print("checking", p) end
  if string.find(cmd, p, 1, true) then blocked = p end
end
return blocked or "allowed"`, "rm -rf", false},
	{"if false ... elseif", `local banned, cmd, blocked = {"mkfs", "rm -rf"}, "sudo rm -rf /", nil
for _, p in ipairs(banned) do if false then print(p) elseif string.find(cmd, p, 1, true) then blocked = p end end
return blocked or "allowed"`, "rm -rf", false},
	{"if nil first in repeat", `local n = 0 repeat if nil then n = 100 end n = n + 1 until n >= 2 return n`, "2", false},
	{"continue idiom with a test first", `local n = 0 for _, v in ipairs({1, 2, 3}) do while true do if v == 2 then break end n = n + v break end end return n`, "4", false},
	{"goto back to a loop", `local n = 0 ::top:: while true do n = n + 1 break end if n < 3 then goto top end return n`, "3", true},
	{"goto continue", `local n = 0 for _, v in ipairs({1, 2, 3}) do if v == 2 then goto continue end n = n + v ::continue:: end return n`, "4", true},
}

// TestLoopJumpsLikeLua51: the loops above give Lua 5.1's results, in a handler file and in
// a chunk compiled by loadstring, and in C Lua 5.1 itself when it is installed.
func TestLoopJumpsLikeLua51(t *testing.T) {
	p := loadPlugin(t, runawayPlugin, Options{})
	for _, c := range loopCases {
		got, err := hostileCall(t, c.body, nil)
		if s := fmt.Sprint(got); err != nil || s != c.want {
			t.Errorf("%s: handler gives %v, %v; want %s", c.name, got, err, c.want)
		}
		got, err = p.Call(context.Background(), 0, map[string]any{"src": c.body})
		if s := fmt.Sprint(got); err != nil || s != c.want {
			t.Errorf("%s: loadstring gives %v, %v; want %s", c.name, got, err, c.want)
		}
	}
	var cases []string
	var wants []string
	for _, c := range loopCases {
		if !c.notC {
			cases, wants = append(cases, c.body), append(wants, c.want)
		}
	}
	for i, got := range lua51(t, cases) {
		if got != wants[i] {
			t.Errorf("%s: lua5.1 gives %q; the test expects %s", cases[i], got, wants[i])
		}
	}
}

// lua51 runs each program (a function body returning one value) in C Lua 5.1, in one
// process, and gives what each returned; the test is skipped when lua5.1 is not installed.
func lua51(t *testing.T, programs []string) []string {
	t.Helper()
	bin, err := exec.LookPath("lua5.1")
	if err != nil {
		t.Skip("lua5.1 is not installed: results are not checked against C Lua")
	}
	var script strings.Builder
	for _, p := range programs {
		fmt.Fprintf(&script, "print(assert(loadstring(%q))())\n", p)
	}
	cmd := exec.Command(bin, "-")
	cmd.Stdin = strings.NewReader(script.String())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("lua5.1: %v", err)
	}
	results := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(results) != len(programs) {
		t.Fatalf("lua5.1 printed %d results for %d programs", len(results), len(programs))
	}
	return results
}

// genBlock writes a random block of loop and branch statements that add to n; every loop
// ends after a few passes.
func genBlock(r *rand.Rand, b *strings.Builder, depth int, locals *int) {
	for range 1 + r.IntN(3) {
		k := r.IntN(12)
		if depth >= 3 {
			k %= 4
		}
		switch k {
		case 0:
			fmt.Fprintf(b, "n = n + %d ", 1+r.IntN(9))
		case 1:
			b.WriteString([]string{"if false then n = n + 1000 end ", "if nil then n = n + 1000 end ",
				"if false then n = n + 1000 elseif n % 2 == 0 then n = n + 3 end "}[r.IntN(3)])
		case 2:
			b.WriteString("while false do n = n + 1000 end ")
		case 3:
			b.WriteString("if n % 3 == 0 then n = n * 2 else n = n + 1 end ")
		case 4:
			b.WriteString("for _, v in ipairs({1, 2}) do ")
			genBlock(r, b, depth+1, locals)
			b.WriteString("end ")
		case 5:
			b.WriteString("for i = 1, 2 do ")
			genBlock(r, b, depth+1, locals)
			b.WriteString("end ")
		case 6:
			b.WriteString("while true do ")
			genBlock(r, b, depth+1, locals)
			b.WriteString("break end ")
		case 7:
			b.WriteString("repeat ")
			genBlock(r, b, depth+1, locals)
			b.WriteString("until true ")
		case 8:
			*locals++
			c := fmt.Sprintf("c%d", *locals)
			fmt.Fprintf(b, "local %s = 0 while %s < 2 do %s = %s + 1 ", c, c, c, c)
			genBlock(r, b, depth+1, locals)
			b.WriteString("end ")
		case 9:
			b.WriteString("for k in pairs({a = 1, b = 2}) do ")
			genBlock(r, b, depth+1, locals)
			b.WriteString(" end ")
		case 10:
			b.WriteString("do ")
			genBlock(r, b, depth+1, locals)
			b.WriteString("end ")
		case 11:
			b.WriteString("for _, v in ipairs({5, 6, 7}) do if v == 6 then break end ")
			genBlock(r, b, depth+1, locals)
			b.WriteString("end ")
		}
	}
}

// TestGeneratedLoopsLikeLua51 compiles 400 random nests of loops, breaks and switched-off
// branches as handlers are compiled here and runs them, and compares every result with C
// Lua 5.1's (upstream gopher-lua's jump threading got 132 of them wrong).
func TestGeneratedLoopsLikeLua51(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 5))
	var programs []string
	for range 400 {
		var b strings.Builder
		locals := 0
		b.WriteString("local n = 0 ")
		genBlock(r, &b, 0, &locals)
		b.WriteString("return n")
		programs = append(programs, b.String())
	}
	want := lua51(t, programs)
	for i, src := range programs {
		proto, err := stdlib.CompileChunk(strings.NewReader(src), "gen")
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		got, err := runProto(proto)
		if err != nil || got != want[i] {
			t.Errorf("%s\n  here:   %s (%v)\n  lua5.1: %s", src, got, err, want[i])
		}
	}
}

// runProto runs a compiled chunk in a new state, for at most two seconds, and gives its
// result; a panic (gopher-lua raises some on bad bytecode) is an error.
func runProto(proto *lua.FunctionProto) (got string, err error) {
	L := lua.NewState()
	defer L.Close()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	L.SetContext(ctx)
	L.Push(L.NewFunctionFromProto(proto))
	if err := L.PCall(0, 1, nil); err != nil {
		return "", err
	}
	return L.Get(-1).String(), nil
}
