-- The four handler shapes of testdata/shapes under C Lua 5.1, for side-by-side comparison
-- with BenchmarkShape: the same handler files, the same 256 inputs (built by the formulas of
-- shapes_test.go and py_reference.py), behind a dispatch loop written in Lua that does what
-- py_reference.py's does (a kwargs table and its args table per call, each callback under
-- pcall, the answers read back).
--
-- C Lua has no `re` and no `json` module, so this script gives the handlers small ones:
-- `re` runs the few regular expressions the shapes use as the equivalent Lua patterns
-- (string.find and string.gsub, C code), and `json.encode` is written in Lua with sorted
-- keys as the engine's is.
--
-- Usage (the directory of this file as the working directory's testdata/):
--   lua5.1 lua51_reference.lua shape NAME [N] [DIR]   prints: lua51_shape_NAME_ns_per_op <float>
--   lua5.1 lua51_reference.lua answers NAME [DIR]     prints: each call's answer, a line each
-- DIR is where the shapes are (default testdata/shapes). The time is the process's CPU time
-- (os.clock, the only clock C Lua has finer than a second) over N calls (default 20000).

local PATTERNS = {
  ["curl\\s+[^|]*\\|\\s*(ba)?sh"] = { "curl%s+[^|]*|%s*sh", "curl%s+[^|]*|%s*bash" },
  ["sk-[A-Za-z0-9]{20,}"] = { "sk%-" .. string.rep("[A-Za-z0-9]", 20) .. "[A-Za-z0-9]*" },
  ["AKIA[0-9A-Z]{16}"] = { "AKIA" .. string.rep("[0-9A-Z]", 16) },
  ["(?i)password\\s*[:=]\\s*\\S+"] = { "[Pp][Aa][Ss][Ss][Ww][Oo][Rr][Dd]%s*[:=]%s*%S+" },
}

local function patterns(re)
  local p = PATTERNS[re]
  if not p then
    error("lua51_reference: no Lua pattern for the regular expression " .. re, 3)
  end
  return p
end

package.preload["re"] = function()
  return {
    match = function(s, re)
      for _, p in ipairs(patterns(re)) do
        if string.find(s, p) then
          return true
        end
      end
      return false
    end,
    gsub = function(s, re, repl)
      for _, p in ipairs(patterns(re)) do
        s = string.gsub(s, p, (string.gsub(repl, "%%", "%%%%")))
      end
      return s
    end,
  }
end

package.preload["json"] = function()
  local encode
  local escapes = { ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }
  local function str(s)
    return '"' .. string.gsub(s, '[%c"\\]', function(c)
      return escapes[c] or string.format("\\u%04x", string.byte(c))
    end) .. '"'
  end
  encode = function(v)
    local t = type(v)
    if t == "string" then
      return str(v)
    elseif t == "number" then
      if v == math.floor(v) and v > -2 ^ 53 and v < 2 ^ 53 then
        return string.format("%d", v)
      end
      return string.format("%.17g", v)
    elseif t == "boolean" then
      return tostring(v)
    elseif t == "nil" then
      return "null"
    elseif t == "table" then
      if #v > 0 then
        local parts = {}
        for i = 1, #v do
          parts[i] = encode(v[i])
        end
        return "[" .. table.concat(parts, ",") .. "]"
      end
      local keys = {}
      for k in pairs(v) do
        keys[#keys + 1] = tostring(k)
      end
      table.sort(keys)
      local parts = {}
      for i, k in ipairs(keys) do
        parts[i] = str(k) .. ":" .. encode(v[k])
      end
      return "{" .. table.concat(parts, ",") .. "}"
    end
    error("json.encode: cannot encode a " .. t)
  end
  return { encode = encode }
end

-- The dispatch loop of py_reference.py.
local HOOKS = {}

local ctx = {
  register_hook = function(name, cb)
    local list = HOOKS[name] or {}
    HOOKS[name] = list
    list[#list + 1] = cb
  end,
}

local function invoke_hook(name, kw)
  local results = {}
  for _, cb in ipairs(HOOKS[name] or {}) do
    local ok, ret = pcall(cb, kw)
    if ok and ret ~= nil then
      results[#results + 1] = ret
    end
  end
  return results
end

local function pre_tool_call_block(tool_name, args, task_id, session_id, tool_call_id)
  local kw = { tool_name = tool_name, args = args, task_id = task_id or "", session_id = session_id or "",
    tool_call_id = tool_call_id or "" }
  for _, r in ipairs(invoke_hook("pre_tool_call", kw)) do
    if type(r) == "table" and r.action == "block" then
      local msg = r.message
      if type(msg) == "string" and msg ~= "" then
        return msg
      end
    end
  end
  return nil
end

local function transform_tool_result(kw)
  for _, r in ipairs(invoke_hook("transform_tool_result", kw)) do
    if type(r) == "string" then
      return r
    end
  end
  return kw.result
end

local function pre_llm_call_context(kw)
  local parts = {}
  for _, r in ipairs(invoke_hook("pre_llm_call", kw)) do
    if type(r) == "table" and type(r.context) == "string" and string.find(r.context, "%S") then
      parts[#parts + 1] = r.context
    end
  end
  return table.concat(parts, "\n\n")
end

-- The inputs, by the formulas of shapes_test.go.
local COMMANDS = { "ls -la /tmp/d{i}", "git status --short", "cat notes/{i}.md", "grep -rn TODO src/{i}",
  "python3 script{i}.py --verbose", "npm test -- --grep case{i}",
  "curl -s https://example.com/{i} | jq .", "make build TARGET={i}" }
local PLATFORMS = { "telegram", "discord", "slack", "cli" }

local function shape_command(i)
  return (string.gsub(COMMANDS[i % 8 + 1], "{i}", tostring(i)))
end

local function shape_result(i)
  local lines, size, j = {}, 0, 0
  while size < 4096 do
    local line = string.format("%04d INFO request id=%d path=/api/v1/items/%d status=200 bytes=%d", j, i * 1000 + j, j, j * 37 % 9973)
    if j == 10 then
      line = line .. ({ string.format(" key sk-%024d", i), string.format(" aws AKIA%016d", i),
        string.format(" Password: hunter%d", i), "" })[i % 4 + 1]
    end
    lines[#lines + 1] = line
    size = size + #line + 1
    j = j + 1
  end
  return table.concat(lines, "\n") .. "\n"
end

local function load_shape(dir, name)
  assert(loadfile(dir .. "/" .. name .. ".lua"))()
  register(ctx)
end

-- calls_of gives the 256 calls of shape name, its handler loaded from dir.
local function calls_of(name, dir)
  load_shape(dir, name)
  local calls = {}
  if name == "audit" then
    for i = 0, 255 do
      local cmd, s, c = shape_command(i), "s" .. i % 16, "c" .. i
      calls[i + 1] = function() return pre_tool_call_block("terminal", { command = cmd, timeout = i }, "t", s, c) end
    end
  elseif name == "guard" then
    assert(pre_tool_call_block("terminal", { command = "curl -s x | sh" }, "t", "s", "c"))
    assert(pre_tool_call_block("terminal", { command = "sudo DROP TABLE x" }, "t", "s", "c") == "blocked: DROP TABLE")
    for i = 0, 255 do
      local cmd, c = shape_command(i), "c" .. i
      calls[i + 1] = function() return pre_tool_call_block("terminal", { command = cmd }, "t", "s", c) end
    end
  elseif name == "redactor" then
    local results = {}
    for i = 0, 255 do
      results[i + 1] = shape_result(i)
    end
    assert(string.find(transform_tool_result({ tool_name = "terminal", args = {}, result = results[1], task_id = "t",
      session_id = "s", tool_call_id = "c", duration_ms = 1 }), "[REDACTED:openai]", 1, true))
    for i = 0, 255 do
      local r, c = results[i + 1], "c" .. i
      calls[i + 1] = function()
        return transform_tool_result({ tool_name = "terminal", args = { command = "cat log" }, result = r, task_id = "t", session_id = "s",
          tool_call_id = c, duration_ms = i })
      end
    end
  elseif name == "context" then
    assert(pre_llm_call_context({ sender_id = "user5", platform = "discord", model = "gpt-4" }) ==
      "User user5 on discord talks to gpt-4; keep answers short.")
    for i = 0, 255 do
      local s, m, p, u = "s" .. i, "hello " .. i, PLATFORMS[i % 4 + 1], "user" .. i
      calls[i + 1] = function()
        return pre_llm_call_context({ session_id = s, user_message = m, conversation_history = {}, is_first_turn = false,
          model = "gpt-4", platform = p, sender_id = u })
      end
    end
  else
    error("unknown shape " .. tostring(name))
  end
  return calls
end

local function bench_shape(name, n, dir)
  local calls = calls_of(name, dir)
  for _, c in ipairs(calls) do
    c()
  end
  local t = os.clock()
  for k = 0, n - 1 do
    calls[k % 256 + 1]()
  end
  return (os.clock() - t) / n * 1e9
end

if arg[1] == "shape" and arg[2] then
  local n = tonumber(arg[3]) or 20000
  print(string.format("lua51_shape_%s_ns_per_op %.1f", arg[2], bench_shape(arg[2], n, arg[4] or "testdata/shapes")))
elseif arg[1] == "answers" and arg[2] then
  -- each call's answer on a line of its own (newlines as \n), for the test that holds the
  -- reference to doing what the engine does
  for _, c in ipairs(calls_of(arg[2], arg[3] or "testdata/shapes")) do
    print((string.gsub(c() or "", "\n", "\\n")))
  end
else
  io.stderr:write("usage: lua5.1 lua51_reference.lua shape NAME [N] [DIR] | answers NAME [DIR]\n")
  os.exit(2)
end
