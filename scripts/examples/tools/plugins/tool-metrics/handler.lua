-- post_tool_call: per-tool metrics in the store, shared by every Lua state, reload and
-- process on this home; <home>/logs/tool-metrics.json is rewritten from them after each call.
local json = require("json")
local store = require("store")

function register(ctx)
  local file = ctx.home .. "/logs/tool-metrics.json"

  local function save()
    local tools = {}
    for _, key in ipairs(store.keys("tool:")) do
      tools[string.sub(key, 6)] = store.get(key)
    end
    local ok, f, err = pcall(io.open, file, "w")
    if not ok or not f then
      ctx.log.warn("tool metrics not saved", { file = file, error = ok and err or f })
      return
    end
    f:write(json.encode({ updated = os.date("!%Y-%m-%dT%H:%M:%SZ"), tools = tools }), "\n")
    f:close()
  end

  ctx.register_hook("post_tool_call", function(kw)
    local ms = kw.duration_ms or 0
    local ok, parsed = pcall(json.decode, kw.result or "")
    local failed = ok and type(parsed) == "table" and parsed.error ~= nil
    -- update is atomic: another process counting the same tool makes it run again.
    store.update("tool:" .. kw.tool_name, function(m)
      m = m or { calls = 0, errors = 0, total_ms = 0, max_ms = 0 }
      m.calls = m.calls + 1
      m.total_ms = m.total_ms + ms
      m.max_ms = math.max(m.max_ms, ms)
      m.avg_ms = m.total_ms / m.calls
      if failed then m.errors = m.errors + 1 end
      return m
    end)
    save()
  end)
end
