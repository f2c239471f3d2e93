-- post_tool_call: per-tool metrics, written to <home>/logs/tool-metrics.json on each call.
local json = require("json")

function register(ctx)
  local file = ctx.home .. "/logs/tool-metrics.json"
  local tools = {} -- tool name -> {calls, errors, total_ms, max_ms, avg_ms}

  local function save()
    local ok, f, err = pcall(io.open, file, "w")
    if not ok or not f then
      ctx.log.warn("tool metrics not saved", { file = file, error = ok and err or f })
      return
    end
    f:write(json.encode({ updated = os.date("!%Y-%m-%dT%H:%M:%SZ"), tools = tools }), "\n")
    f:close()
  end

  ctx.register_hook("post_tool_call", function(kw)
    local m = tools[kw.tool_name]
    if not m then
      m = { calls = 0, errors = 0, total_ms = 0, max_ms = 0 }
      tools[kw.tool_name] = m
    end
    local ms = kw.duration_ms or 0
    m.calls = m.calls + 1
    m.total_ms = m.total_ms + ms
    m.max_ms = math.max(m.max_ms, ms)
    m.avg_ms = m.total_ms / m.calls
    local ok, parsed = pcall(json.decode, kw.result or "")
    if ok and type(parsed) == "table" and parsed.error ~= nil then
      m.errors = m.errors + 1
    end
    save()
  end)
end
