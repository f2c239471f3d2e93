package lua

import (
	"fmt"
	"strings"
)

// The classes of programs genClassProgram writes, besides genProgram's: each aims at a part of
// the interpreter a guard may lean on that genProgram does not reach.
var programClasses = []string{"coroutines", "error-values", "string-bytes", "metatables"}

// classPrelude defines show (a value's text, a table's by its fields in order, a string's
// bytes above 0x7e as escapes), out (print of every argument through show, with how many
// there are) and try (out of what pcall(f) gives, an error's message left out: only the
// values given to error are compared, not the interpreter's own messages).
const classPrelude = `local show, out, try
do
  local function str(s)
    local b = {}
    for i = 1, #s do
      local c = s:byte(i)
      if c < 32 or c > 126 then b[#b + 1] = "\\" .. c else b[#b + 1] = string.char(c) end
    end
    return "'" .. table.concat(b) .. "'"
  end
  show = function(v, d)
    local t = type(v)
    if t == "string" then return str(v) end
    if t == "table" then
      if (d or 0) > 2 then return "{..}" end
      local keys = {}
      for k in pairs(v) do if type(k) ~= "table" then keys[#keys + 1] = k end end
      table.sort(keys, function(a, b)
        if type(a) ~= type(b) then return type(a) < type(b) end
        if type(a) == "boolean" then return not a and b end
        return a < b
      end)
      local parts = {}
      for i = 1, #keys do parts[i] = show(keys[i], 3) .. "=" .. show(rawget(v, keys[i]), (d or 0) + 1) end
      return "{" .. table.concat(parts, ",") .. "}"
    end
    if t == "function" or t == "thread" or t == "userdata" then return t end
    return tostring(v)
  end
  out = function(...)
    local n = select("#", ...)
    local parts = {n .. ":"}
    for i = 1, n do parts[#parts + 1] = show((select(i, ...))) end
    print(table.concat(parts, " "))
  end
  try = function(f)
    local r = {pcall(f)}
    if not r[1] then return out(false, "error") end
    return out(unpack(r, 1, table.maxn(r)))
  end
end
`

// genClassProgram writes a random program of the class chosen by data: the same bytes give
// the same program. Like genProgram's, it ends after a few steps, prints what it computes and
// nothing Lua leaves unspecified (no addresses, no order of pairs, no message of an error the
// interpreter raises itself: only values given to error).
func genClassProgram(class string, data []byte) string {
	g := newGen(data, allOptions)
	c := &classGen{gen: g}
	n := 3 + g.intn(5)
	for i := 0; i < n; i++ {
		// each in a block of its own: Lua 5.1 allows a function 200 locals
		g.line("do")
		switch class {
		case "coroutines":
			c.coroutine()
		case "error-values":
			c.errorValue()
		case "string-bytes":
			c.stringBytes()
		case "metatables":
			c.metatable()
		default:
			panic("no class " + class)
		}
		g.line("end")
	}
	return classPrelude + g.b.String()
}

type classGen struct {
	*gen
	k int // names given
}

func (c *classGen) id(prefix string) string {
	c.k++
	return fmt.Sprintf("%s%d", prefix, c.k)
}

// vals gives n values of every kind, as a list for a call or a constructor.
func (c *classGen) vals(n int) string {
	vs := make([]string, n)
	for i := range vs {
		vs[i] = c.val()
	}
	return strings.Join(vs, ", ")
}

func (c *classGen) val() string {
	return c.pick("nil", "false", "true", "0", "1", "-2.5", "7", "1e300", "'s'", "''", "'x\\200y'",
		"{}", "{1, 2}", "{k = 'v'}", fmt.Sprint(c.intn(100)), "2^53", "-0")
}

// smallVals is vals without numbers out of a C int's range, for the arguments of library
// functions: C Lua 5.1 casts a number argument to an int, which is undefined past that range.
func (c *classGen) smallVals(n int) string {
	vs := make([]string, n)
	for i := range vs {
		if vs[i] = c.val(); vs[i] == "1e300" || vs[i] == "2^53" {
			vs[i] = "3"
		}
	}
	return strings.Join(vs, ", ")
}

// names gives n new local names.
func (c *classGen) names(n int) []string {
	ns := make([]string, n)
	for i := range ns {
		ns[i] = c.id("v")
	}
	return ns
}

// ---- coroutines ----

// coroutine writes a coroutine whose body yields and returns 0 to 4 values and assigns
// what each yield gives to 0 to 4 locals, and a driver that resumes it with 0 to 4 values
// each time, by resume or through wrap, printing everything each side sees.
func (c *classGen) coroutine() {
	name := c.id("co")
	yields := 1 + c.intn(3)
	params := c.names(c.intn(3))
	vararg := c.chance(1, 2)
	plist := strings.Join(params, ", ")
	if vararg {
		if plist != "" {
			plist += ", "
		}
		plist += "..."
	}
	body := []string{}
	if len(params) > 0 {
		body = append(body, fmt.Sprintf("out(%s)", strings.Join(params, ", ")))
	}
	if vararg {
		body = append(body, c.pick("out(...)", "out(select('#', ...))", "local t = {...}; out(#t)"))
	}
	for i := 0; i < yields; i++ {
		targets := c.names(c.intn(5))
		yv := c.vals(c.intn(5))
		if vararg && c.chance(1, 4) {
			yv = "..."
		}
		var call string
		switch c.intn(4) {
		case 0:
			call = fmt.Sprintf("coroutine.yield(%s)", yv)
		case 1:
			call = fmt.Sprintf("(function(...) return coroutine.yield(...) end)(%s)", yv)
		case 2:
			call = fmt.Sprintf("select(1, coroutine.yield(%s))", yv)
		default:
			call = fmt.Sprintf("coroutine.yield(%s)", yv)
		}
		if len(targets) == 0 {
			switch c.intn(3) {
			case 0:
				body = append(body, call)
			case 1:
				body = append(body, fmt.Sprintf("out(%s)", call))
			default:
				body = append(body, fmt.Sprintf("out(select('#', %s))", call))
			}
			continue
		}
		body = append(body, fmt.Sprintf("local %s = %s", strings.Join(targets, ", "), call))
		shows := []string{}
		for _, t := range targets {
			shows = append(shows, t, fmt.Sprintf("type(%s)", t), fmt.Sprintf("not %s", t))
		}
		body = append(body, fmt.Sprintf("out(%s)", strings.Join(shows, ", ")))
		if c.chance(1, 3) {
			t := targets[len(targets)-1]
			body = append(body, fmt.Sprintf("if %s then out('then', %s) else out('else', %s) end", t, t, t))
		}
	}
	if c.chance(1, 5) {
		body = append(body, fmt.Sprintf("error(%s)", c.val()))
	} else {
		body = append(body, fmt.Sprintf("return %s", c.vals(c.intn(4))))
	}
	wrap := c.chance(1, 3)
	fn := fmt.Sprintf("function(%s)\n    %s\n  end", plist, strings.Join(body, "\n    "))
	if wrap {
		c.line("local %s = coroutine.wrap(%s)", name, fn)
	} else {
		c.line("local %s = coroutine.create(%s)", name, fn)
	}
	for i := 0; i <= yields+c.intn(2); i++ {
		args := c.vals(c.intn(5))
		if wrap {
			c.line("out(pcall(%s, %s))", name, args)
			continue
		}
		targets := c.names(c.intn(5))
		if len(targets) == 0 {
			c.line("out(coroutine.resume(%s, %s))", name, args)
		} else {
			c.line("local %s = coroutine.resume(%s, %s)", strings.Join(targets, ", "), name, args)
			c.line("out(%s, type(%s))", strings.Join(targets, ", "), targets[len(targets)-1])
		}
		c.line("out(coroutine.status(%s))", name)
	}
}

// ---- error values ----

// errorValue raises a value of some kind at some level, directly from pcall, from a Lua
// function, from a nested one, through xpcall's handler or again after a pcall caught it,
// and prints what the catcher gets.
func (c *classGen) errorValue() {
	v := c.val()
	if c.chance(1, 3) {
		v = c.pick("'msg'", "'a:1: b'", "42", "-7.25", "2^31", "0/0 ~= 0/0", "nil")
	}
	level := c.pick("", ", 0", ", 1", ", 2", ", 3")
	switch c.intn(7) {
	case 0:
		c.line("out(pcall(error, %s%s))", v, level)
	case 1:
		c.line("out(pcall(function() error(%s%s) end))", v, level)
	case 2:
		f := c.id("f")
		c.line("local function %s(x) if x then error(%s%s) end return x end", f, v, level)
		c.line("out(pcall(function()")
		c.line("  return %s(%s)", f, c.pick("true", "1", "false"))
		c.line("end))")
	case 3:
		c.line("out(xpcall(function() error(%s%s) end, function(e) return type(e), e end))", v, level)
	case 4:
		c.line("out(pcall(function() local ok, e = pcall(error, %s%s); error(e, 0) end))", v, level)
	case 5:
		c.line("out(select('#', pcall(error%s)))", strings.Replace(level, ",", ", nil,", 1))
	default:
		t := c.id("t")
		c.line("local %s = %s", t, c.pick("{}", "{code = 3}", "setmetatable({}, {__tostring = function() return 'E' end})"))
		c.line("local ok, e = pcall(error, %s%s)", t, level)
		c.line("out(ok, e == %s, type(e), getmetatable(e) and tostring(e))", t)
	}
	if c.chance(1, 3) {
		if c.chance(1, 2) {
			c.line("out(pcall(%s, %s))", c.pick("error", "assert"), c.smallVals(c.intn(3)))
		} else {
			c.line("try(function() return %s(%s) end)", c.pick("rawequal", "type", "select", "unpack", "tonumber"), c.smallVals(c.intn(3)))
		}
	}
}

// ---- the string library over bytes ----

// byteStr gives a string literal of 0 to 8 bytes, many of them at or above 0x80.
func (c *classGen) byteStr() string {
	n := c.intn(9)
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < n; i++ {
		var x int
		switch c.intn(4) {
		case 0:
			x = 0x80 + c.intn(0x80)
		case 1:
			x = int("aZz0 %.-K"[c.intn(9)])
		case 2:
			x = 0xc0 + c.intn(0x40)
		default:
			x = 0x20 + c.intn(0xe0)
		}
		if x == '"' || x == '\\' || x == 0x7f {
			x = 'q'
		}
		if x < 0x20 || x > 0x7e {
			fmt.Fprintf(&b, "\\%d", x)
		} else {
			b.WriteByte(byte(x))
		}
	}
	b.WriteByte('"')
	return b.String()
}

// stringBytes calls a function of the string library on strings with bytes >= 0x80.
func (c *classGen) stringBytes() {
	s := c.byteStr()
	class := c.pick("%a", "%l", "%u", "%w", "%s", "%p", "%c", "%x", "%d", "%A", "%W", "[\\128-\\255]", "[%a\\200]", ".", "[^%w]")
	switch c.intn(11) {
	case 0:
		c.line("out(string.lower(%s), string.upper(%s), #string.lower(%s))", s, s, s)
	case 1:
		c.line("out(string.byte(%s, %d, %d))", s, c.intn(5)-1, c.intn(10)-2)
	case 2:
		c.line("out(string.char(%d, %d, %d))", 128+c.intn(128), c.intn(256), 200+c.intn(56))
	case 3:
		c.line("out(string.format(%q, %s, %d))", c.pick("%s|%5s", "%q %d", "%-6s%x", "%.3s%c"), s, 128+c.intn(128))
	case 4:
		c.line("out(string.find(%s, %q))", s, class+c.pick("", "+", "*", "-"))
	case 5:
		c.line("out(string.gsub(%s, %q, %q))", s, class, c.pick("<%0>", "", "x", "%%"))
	case 6:
		c.line("out(string.match(%s, %q))", s, "("+class+c.pick("+", "*", "")+")")
	case 7:
		c.line("out(string.find(%s, %s, %d, true))", s, c.byteStr(), c.intn(4))
	case 8:
		c.line("out(string.rep(%s, %d), string.reverse(%s), string.sub(%s, %d, %d))", s, c.intn(3), s, s, c.intn(5)-2, c.intn(6)-1)
	case 9:
		c.line("local n = 0; for w in string.gmatch(%s, %q) do n = n + 1; out(w) end; out(n)", s, class+"+")
	default:
		c.line("out(%s < %s, %s == %s, #(%s .. %s))", s, c.byteStr(), s, s, s, c.byteStr())
	}
}

// ---- metatables ----

// metatable builds a table with some of __index, __newindex, __call, __len, __eq, __lt,
// __le, __concat, __tostring, __unm and __add, and uses each.
func (c *classGen) metatable() {
	mt, a, b := c.id("mt"), c.id("a"), c.id("b")
	c.line("local %s = {}", mt)
	c.line("local %s = setmetatable({1, 2, n = 3}, %s)", a, mt)
	c.line("local %s = setmetatable({5}, %s)", b, mt)
	events := []string{}
	for _, e := range []string{"__index", "__newindex", "__call", "__len", "__eq", "__lt", "__le", "__concat", "__tostring", "__unm", "__add"} {
		if c.chance(2, 3) {
			events = append(events, e)
		}
	}
	for _, e := range events {
		switch e {
		case "__index":
			c.line("%s.__index = %s", mt, c.pick("function(t, k) return k end", "{x = 'fromindex', [4] = 4}",
				"function(t, k) return rawget(t, 1), k end", "function() end"))
		case "__newindex":
			c.line("%s.__newindex = %s", mt, c.pick("function(t, k, v) rawset(t, k, v and 'set' .. type(v)) end", "{}", "function() end"))
		case "__call":
			c.line("%s.__call = %s", mt, c.pick("function(self, ...) return select('#', ...), ... end", "function() end", "function(self, x) return x end"))
		case "__len":
			c.line("%s.__len = function() return 42 end", mt)
		case "__eq":
			c.line("%s.__eq = %s", mt, c.pick("function() return true end", "function() return nil end", "function(x, y) return rawequal(x, y) end"))
		case "__lt":
			c.line("%s.__lt = %s", mt, c.pick("function() return 1 end", "function() return false end", "function(x, y) return rawget(x, 1) < rawget(y, 1) end"))
		case "__le":
			c.line("%s.__le = function(x, y) return rawget(x, 1) <= rawget(y, 1) end", mt)
		case "__concat":
			c.line("%s.__concat = %s", mt, c.pick("function(x, y) return type(x) .. '..' .. type(y) end", "function() end", "function(x, y) return 7 end"))
		case "__tostring":
			c.line("%s.__tostring = %s", mt, c.pick("function(t) return 'T' .. rawget(t, 1) end", "function() return 'S' end"))
		case "__unm":
			c.line("%s.__unm = function(x) return 'neg', x end", mt)
		case "__add":
			c.line("%s.__add = function(x, y) return type(x) .. '+' .. type(y) end", mt)
		}
	}
	uses := []string{
		fmt.Sprintf("try(function() return %s.x, %s[4], %s.n, %s[1] end)", a, a, a, b),
		fmt.Sprintf("try(function() %s.y = %s; %s[3] = false; return rawget(%s, 'y'), rawget(%s, 3) end)", a, c.val(), a, a, a),
		fmt.Sprintf("try(function() return %s(%s) end)", a, c.vals(c.intn(3))),
		fmt.Sprintf("try(function() return #%s, #%s end)", a, b),
		fmt.Sprintf("try(function() return %s == %s, %s ~= %s, %s == %s, %s == 1 end)", a, b, a, b, a, a, a),
		fmt.Sprintf("try(function() return %s < %s end)", a, b),
		fmt.Sprintf("try(function() return %s <= %s, %s > %s end)", a, b, a, b),
		fmt.Sprintf("try(function() return %s .. 's', 1 .. %s, %s .. %s end)", a, b, a, b),
		fmt.Sprintf("try(function() return (tostring(%s):gsub('table: 0x%%x+', 'table')) end)", a),
		fmt.Sprintf("try(function() return -%s end)", a),
		fmt.Sprintf("try(function() return %s + 1, 2 + %s end)", a, b),
		fmt.Sprintf("try(function() return rawequal(%s, %s), #%s, rawget(%s, 'x') end)", a, b, a, a),
	}
	for i := 0; i < 2+c.intn(4); i++ {
		u := uses[c.intn(len(uses))]
		if strings.Contains(u, "tostring(") && !strings.Contains(strings.Join(events, " "), "__tostring") {
			// without __tostring, tostring gives an address: only its kind is printed
			u = fmt.Sprintf("try(function() return type(tostring(%s)) end)", a)
		}
		c.line("%s", u)
	}
}
