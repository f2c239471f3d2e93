package luabind

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// guardCases are pre_tool_call guards written the way hook authors write them, each correct
// Lua 5.1, which upstream gopher-lua's compiler turned into guards that allow `rm -rf /`.
var guardCases = []struct{ name, handler string }{
	{"two-word window by multiple assignment", `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    local last, before = nil, nil
    for tok in (kw.args.command or ""):gmatch("%S+") do
      last, before = tok, last
      if before == "rm" and last == "-rf" then
        return { action = "block", message = "rm -rf is not permitted" }
      end
    end
  end)
end`},
	{"local and table field assigned together", `local audit = {}
local function is_safe(cmd) return not cmd:find("rm -rf /", 1, true) end
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    local cmd = kw.args.command or ""
    local safe
    safe, audit.last = is_safe(cmd), cmd
    if not safe then
      return { action = "block", message = "unsafe: " .. audit.last }
    end
  end)
end`},
	{"loop body starting with a constant and-or", `local function noop() end
local banned = { "mkfs", "rm -rf /", "dd if=" }
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    local cmd = kw.args.command or ""
    for _, p in ipairs(banned) do
      local trace = false and print or noop
      trace("checking", p)
      if cmd:find(p, 1, true) then
        return { action = "block", message = p .. " is not permitted" }
      end
    end
  end)
end`},
	{"loop body starting with switched-off code", `local banned = { "mkfs", "rm -rf /" }
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    local blocked
    for _, p in ipairs(banned) do
      if false then print(p) elseif (kw.args.command or ""):find(p, 1, true) then blocked = p end
    end
    return blocked and { action = "block", message = blocked .. " is not permitted" }
  end)
end`},
	{"guard with a local helper", `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    local args
    local function bad() return string.find(args.command or "", "rm -rf /", 1, true) end
    args = kw.args
    if kw.tool_name == "terminal" and bad() then
      return { action = "block", message = "rm -rf / is not permitted" }
    end
  end)
end`},
	{"tokenizer coroutine fed one word at a time", `-- the words of a command, with ; | & as words of their own; a quoted word comes with true
local function words(cmd, emit)
  for w in cmd:gmatch("%S+") do
    local body, sep = w:match("^(.-)([;|&]*)$")
    if body ~= "" then
      if body:match("^['\"]") then emit(body, true) else emit(body) end
    end
    if sep ~= "" then emit(sep) end
  end
  emit()
end
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    local found
    local checker = coroutine.wrap(function()
      local first = true
      while true do
        local word, quoted = coroutine.yield()
        if word == nil then return end
        if first and not quoted and word == "rm" then found = word end
        first = word == ";" or word == "&&" or word == "|" or word == "||"
      end
    end)
    checker()
    words(kw.args.command or "", checker)
    if found then return { action = "block", message = found .. " starts a command" } end
  end)
end`},
	{"position found in the lower-cased command, cut from the command", `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    local cmd = kw.args.command or ""
    local i = cmd:lower():find("rm -rf", 1, true)
    local target = i and cmd:sub(i + 6):match("^%s*(%S+)")
    if target == "/" then
      return { action = "block", message = "rm -rf " .. target .. " is not permitted" }
    end
  end)
end`},
}

// guardCommands are the commands every guard answers; the second and the last two must be
// blocked. The last but one holds letters whose Unicode lower case is shorter (the Kelvin
// sign lowers to "k"): a lower-cased command has each byte where the command has it, as in
// Lua 5.1, whose case mapping is C's in the C locale.
var guardCommands = []string{"ls -la", "rm -rf /", "echo rm", "sudo rm -rf / --no-preserve-root", "mkfs.ext4 /dev/sda",
	"echo \u212a\u212a; rm -rf /", "ls; rm -rf /"}

// answer renders a guard's answer as the C Lua harness below prints it.
func answer(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return "allow"
	}
	return fmt.Sprintf("%v: %v", m["action"], m["message"])
}

// TestGuardsLikeLua51: every guard above answers every command here as it does in C Lua
// 5.1, and blocks `rm -rf /`, `ls; rm -rf /` and the one behind Kelvin signs.
func TestGuardsLikeLua51(t *testing.T) {
	var here [][]string
	for _, g := range guardCases {
		p := loadPlugin(t, g.handler, Options{})
		var answers []string
		for _, cmd := range guardCommands {
			kw := map[string]any{"tool_name": "terminal", "args": map[string]any{"command": cmd}}
			got, err := p.Call(context.Background(), 0, kw)
			if err != nil {
				t.Fatalf("%s: %q: %v", g.name, cmd, err)
			}
			answers = append(answers, answer(got))
		}
		for _, i := range []int{1, len(guardCommands) - 2, len(guardCommands) - 1} {
			if !strings.HasPrefix(answers[i], "block") {
				t.Errorf("%s: %q gets %q, want a block", g.name, guardCommands[i], answers[i])
			}
		}
		here = append(here, answers)
	}
	bin, err := exec.LookPath("lua5.1")
	if err != nil {
		t.Skip("lua5.1 is not installed: answers are not checked against C Lua")
	}
	var script strings.Builder
	for _, g := range guardCases {
		fmt.Fprintf(&script, "do\n  local cb\n  local env = setmetatable({}, {__index = _G})\n"+
			"  local chunk = assert(loadstring(%q))\n  setfenv(chunk, env)()\n"+
			"  env.register({register_hook = function(_, f) cb = f end})\n", g.handler)
		for _, cmd := range guardCommands {
			fmt.Fprintf(&script, "  local r = cb({tool_name = \"terminal\", args = {command = %q}})\n"+
				"  print(type(r) == \"table\" and (r.action .. \": \" .. r.message) or \"allow\")\n", cmd)
		}
		script.WriteString("end\n")
	}
	cmd := exec.Command(bin, "-")
	cmd.Stdin = strings.NewReader(script.String())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("lua5.1: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(guardCases)*len(guardCommands) {
		t.Fatalf("lua5.1 printed %d answers, want %d:\n%s", len(lines), len(guardCases)*len(guardCommands), out)
	}
	for i, g := range guardCases {
		for j, cmd := range guardCommands {
			if c := lines[i*len(guardCommands)+j]; c != here[i][j] {
				t.Errorf("%s: %q: here %q, lua5.1 %q", g.name, cmd, here[i][j], c)
			}
		}
	}
}
