package lua

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// dispatchCases exercise the steps mainLoop takes itself (dispatch.go), each on the
// operands it takes and on those it leaves to the handlers: the output must be the same with
// Options.SkipFastPaths (every instruction through jumpTable) and, where lua5.1 is
// installed, the same as C Lua 5.1's.
var dispatchCases = []struct{ name, src string }{
	{"moves", `local a, b, c = 1, "x", true local d, e, f = c, b, a print(d, e, f)
		local function g(...) local x, y, z = ... return z, y, x end print(g(1, 2, 3))`},
	{"constants and bools", `local t = {} for i = 1, 3 do t[i] = i > 1 end print(t[1], t[2], t[3], not nil, not 0)`},
	{"upvalues", `local n = 0 local function inc() n = n + 1 return n end inc() inc() print(inc(), n)`},
	{"tests and jumps", `local out = {}
		for _, v in ipairs({1, false, "a", 0, true}) do
			if v then out[#out+1] = "t" else out[#out+1] = "f" end
			local w = v and 1 or 2 out[#out+1] = w
			while v do v = false end
		end
		print(table.concat(out, ","))
		local x = nil if not x then print("nil is false") end`},
	{"number comparisons", `local r = {}
		for _, p in ipairs({{1, 2}, {2, 1}, {1, 1}, {-0, 0}, {0/0, 0/0}, {1/0, -1/0}, {0/0, 1}}) do
			local a, b = p[1], p[2]
			r[#r+1] = tostring(a < b) .. tostring(a <= b) .. tostring(a == b) .. tostring(a ~= b) .. tostring(a > b) .. tostring(a >= b)
			if a < 1 then r[#r+1] = "lt1" end
			if 1 <= b then r[#r+1] = "le1" end
		end
		print(table.concat(r, " "))`},
	{"string and mixed comparisons", `local s, t = "ab", "a" .. "b"
		print(s == t, s ~= t, s == "abc", s < "b", "b" <= s, 1 == "1", "1" == 1, nil == false, {} == {})
		print(pcall(function() return 1 < "2" end))
		print(pcall(function() return {} <= {} end))
		print(pcall(function() return "a" < 1 end))`},
	{"arithmetic", `local a, b = 7, 2
		print(a + b, a - b, a * b, a / b, a % b, a ^ b, -a, 2^53 + 1, 4095 + 1, 4096 - 1, -1 * 0, 0 * -1, 1e308 * 10, -(0/0) ~= -(0/0))
		print("10" + 1, 3 * "2", pcall(function() return {} + 1 end))
		local mt = {__add = function(x, y) return "added" end, __sub = function() return "sub" end, __mul = function() return "mul" end}
		local o = setmetatable({}, mt) print(o + 1, 1 - o, o * o)`},
	{"numeric for", `local r = {}
		for i = 1, 3 do r[#r+1] = i end
		for i = 3, 1, -1 do r[#r+1] = i end
		for i = 0.5, 2, 0.5 do r[#r+1] = i end
		for i = 1, 0 do r[#r+1] = "never" end
		for i = 4094, 4098 do r[#r+1] = i end
		for i = -2, 2, 2 do r[#r+1] = i end
		for i = 1, 3 do local j = i i = i * 10 r[#r+1] = i + j end
		for i = 1, 2, 0.75 do r[#r+1] = i end
		print(table.concat(r, ","))
		print((pcall(function() for i = 1, "x" do end end)))
		print((pcall(function() for i = 1, 2, {} do end end)))`},
	{"globals and fields", `x = 1 local t = {k = 1}
		local s = 0
		for i = 1, 20 do s = s + x + t.k if i == 10 then x = 100 t.k = 1000 end end
		print(s, string.format("%d", s), t.k)
		t.k = nil setmetatable(t, {__index = function(_, k) return k .. "!" end})
		local r = {} for i = 1, 10 do r[i] = t.k end print(r[1], r[10])`},
	{"ipairs and find", `local banned = {"rm -rf", "mkfs", "a.b", "%d"}
		local r = {}
		for _, cmd in ipairs({"ls", "sudo rm -rf /", "mkfs.ext4", "xa.by", "1%d", "abc"}) do
			for i, p in ipairs(banned) do
				local s, e = string.find(cmd, p, 1, true)
				if s then r[#r+1] = cmd .. ":" .. i .. ":" .. s .. "-" .. e break end
			end
			r[#r+1] = tostring(string.find(cmd, "b", -1, true)) .. tostring((string.find(cmd, "")))
		end
		print(table.concat(r, " "))`},
	{"pairs taken together", `local r = {}
		local t = {f = function() return 1 end}
		g = t
		for i = 1, 14 do -- a closure's caches are made after its eighth lookup
			r[#r+1] = g.f() + t.f()
			if i == 10 then g = {f = function() return 2 end} end
			if i == 12 then t.f = function() return 3 end end
		end
		local s = "hello world"
		local real = string
		for i = 1, 14 do
			if string.find(s, "wor", 1, true) then r[#r+1] = "y" else r[#r+1] = "n" end
			if not string.find(s, "zzz", 1, true) then r[#r+1] = "N" end
			local x = string.find(s, "o", 6, true) r[#r+1] = tostring(x)
			local a, b, c, d, e = 1, true, false, "k", nil
			r[#r+1] = tostring(a) .. tostring(b) .. tostring(c) .. d .. tostring(e)
			if i == 11 then string = {find = function(_, p) return p == "zzz" end} end
		end
		string = real
		print(table.concat(r, ","))`},
	{"calls and returns", `local function f(...) return select("#", ...), ... end
		print(f()) print(f(nil, nil)) print((f(1, 2, 3)))
		local function tail(n) if n == 0 then return "done" end return tail(n - 1) end print(tail(100))`},
}

// runWith runs src in a new state with opts and gives what it printed, then the error it
// raised, if any.
func runWith(src string, opts Options) string {
	L := NewState(opts)
	defer L.Close()
	var out strings.Builder
	L.SetGlobal("print", L.NewFunction(func(L *LState) int {
		for i := 1; i <= L.GetTop(); i++ {
			if i > 1 {
				out.WriteByte('\t')
			}
			out.WriteString(L.ToStringMeta(L.Get(i)).String())
		}
		out.WriteByte('\n')
		if out.Len() > maxOutput {
			L.RaiseError("too much output")
		}
		return 0
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	L.SetContext(ctx)
	if err := L.DoString(src); err != nil {
		msg, _, _ := strings.Cut(err.Error(), "\n")
		fmt.Fprintf(&out, "<error: %s>\n", msg)
	}
	return out.String()
}

// TestDispatchLikeHandlers: the cases give the same output with the steps mainLoop takes
// itself and without them, and the output C Lua 5.1 gives.
func TestDispatchLikeHandlers(t *testing.T) {
	bin, _ := exec.LookPath("lua5.1")
	for _, c := range dispatchCases {
		t.Run(c.name, func(t *testing.T) {
			fast, plain := runWith(c.src, Options{}), runWith(c.src, Options{SkipFastPaths: true})
			if fast != plain {
				t.Errorf("with the fast steps:\n%s\nthrough the handlers:\n%s", fast, plain)
			}
			if strings.Contains(fast, "<error") {
				t.Errorf("the case raised an error: %s", fast)
			}
			if bin == "" {
				return
			}
			out, err := exec.Command(bin, "-e", c.src).CombinedOutput()
			// lua5.1 -e names the chunk "(command line)", DoString "<string>".
			if got := strings.ReplaceAll(string(out), "(command line):", "<string>:"); err != nil || !sameOutput(fast, got) {
				t.Errorf("here:\n%s\nlua5.1 (%v):\n%s", fast, err, out)
			}
		})
	}
}

// TestGeneratedProgramsDispatchAlike: 300 generated programs print the same with the steps
// mainLoop takes itself and through the handlers only.
func TestGeneratedProgramsDispatchAlike(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 7))
	opt := currentOptions()
	n := 300
	if testing.Short() || raceEnabled {
		n = 60
	}
	for i := range n {
		data := make([]byte, 16)
		for j := range data {
			data[j] = byte(rng.IntN(256))
		}
		src := genProgram(data, opt)
		if fast, plain := runWith(src, Options{}), runWith(src, Options{SkipFastPaths: true}); fast != plain {
			t.Fatalf("program %d prints differently with the fast steps:\n%s\nfast:\n%s\nplain:\n%s", i, src, fast, plain)
		}
	}
}

// FuzzDispatch: the program genProgram makes of the fuzzer's bytes (numbers, comparisons,
// loops, tables, string searches) prints the same with the steps mainLoop takes itself and
// through the handlers only.
func FuzzDispatch(f *testing.F) {
	for _, s := range []string{"", "dispatch", "\x00\x01\x02\x03", "for i = 1, 10 do end"} {
		f.Add([]byte(s))
	}
	opt := currentOptions()
	f.Fuzz(func(t *testing.T, data []byte) {
		src := genProgram(data, opt)
		if fast, plain := runWith(src, Options{}), runWith(src, Options{SkipFastPaths: true}); fast != plain {
			t.Errorf("the program prints differently with the fast steps:\n%s\nfast:\n%s\nplain:\n%s", src, fast, plain)
		}
	})
}

// goCallCases call Go functions every way a program can: a fixed number of arguments, all
// the values of a call or of `...`, one result, all of them, none; a Go function that calls
// back into Lua, that raises an error, that yields from a coroutine; calls nested past a
// segment of the call stack (eight frames).
var goCallCases = []struct{ name, src string }{
	{"go calls", `local t = {}
		t[#t+1] = tostring(1) .. type(nil) .. select("#", 1, nil, 3)
		local function va(...) return select("#", ...), math.max(...) end
		t[#t+1] = table.concat({va(3, 9, 2)}, ",")
		t[#t+1] = table.concat({math.min(unpack({5, 1, 7}))}, ",")
		t[#t+1] = select("#", string.byte("abc", 1, -1))
		print(table.concat(t, " "), string.byte("xyz", 1, 3))
		print(pcall(error, "x"), pcall(error, {}), (pcall(string.rep)))
		local s = {5, 3, 9, 1} table.sort(s, function(a, b) return tostring(a) < tostring(b) end) print(table.concat(s, ","))
		local co = coroutine.create(function(a) local b = coroutine.yield(a + 1) local c, d = coroutine.yield(b * 2) return c + d end)
		print(coroutine.resume(co, 1)) print(coroutine.resume(co, 5)) print(coroutine.resume(co, 3, 4)) print((coroutine.resume(co)))
		local w = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i) end end) print(w(), w(), w())`},
	{"go calls deep", `local function deep(n) if n == 0 then return tostring(n) .. select("#", 1, 2) end return deep(n - 1) .. type(n) end
		local r = {} for d = 1, 20 do r[#r+1] = #deep(d) end print(table.concat(r, ","))
		local function rec(n) if n == 0 then return 0 end local x = math.abs(rec(n - 1)) return x + 1 end
		for d = 5, 12 do r[#r+1] = rec(d) end print(table.concat(r, ","))
		print(pcall(function() local function f(n) return 1 + f(n + 1) end return f(1) end))`},
}

// TestGoCallsLikeHandlers: with a call stack that grows by segments (as luabind's states
// have), the Go calls OP_CALL makes itself (goCall) give what the handler gives, and what
// C Lua 5.1 gives; so do the other cases.
func TestGoCallsLikeHandlers(t *testing.T) {
	bin, _ := exec.LookPath("lua5.1")
	grow := Options{MinimizeStackMemory: true, CallStackSize: 200}
	for _, c := range append(goCallCases, dispatchCases...) {
		t.Run(c.name, func(t *testing.T) {
			plain := grow
			plain.SkipFastPaths = true
			fast, slow := runWith(c.src, grow), runWith(c.src, plain)
			if fast != slow {
				t.Errorf("with goCall:\n%s\nthrough the handlers:\n%s", fast, slow)
			}
			if bin == "" || strings.Contains(c.src, "pcall(function() local function f") {
				return // the depth of a stack overflow is the interpreter's own
			}
			out, err := exec.Command(bin, "-e", c.src).CombinedOutput()
			if got := strings.ReplaceAll(string(out), "(command line):", "<string>:"); err != nil || !sameOutput(fast, got) {
				t.Errorf("here:\n%s\nlua5.1 (%v):\n%s", fast, err, out)
			}
		})
	}
	rng := rand.New(rand.NewPCG(25, 8))
	opt := currentOptions()
	plain := grow
	plain.SkipFastPaths = true
	for i := range 100 {
		data := make([]byte, 16)
		for j := range data {
			data[j] = byte(rng.IntN(256))
		}
		src := genProgram(data, opt)
		if fast, slow := runWith(src, grow), runWith(src, plain); fast != slow {
			t.Fatalf("program %d prints differently with goCall:\n%s\nfast:\n%s\nplain:\n%s", i, src, fast, slow)
		}
	}
}
