-- wrap_tool_call: answer from the store when the same call was made recently; otherwise
-- run it and keep a result that is not an error.
local json = require("json")
local store = require("store")

function register(ctx)
  local ttl = ctx.config.ttl_seconds or 300
  local cached = {}
  for _, name in ipairs(ctx.config.tools or {}) do cached[name] = true end

  ctx.register_hook("wrap_tool_call", function(kw, next)
    if not cached[kw.tool_name] then
      return next(kw.args)
    end
    local key = "tool:" .. kw.tool_name .. ":" .. json.encode(kw.args)
    local hit = store.get(key)
    if hit ~= nil then
      ctx.log.info("tool call answered from the cache", { tool = kw.tool_name })
      return hit -- next is never called: the tool does not run
    end
    local result = next(kw.args)
    if not string.find(result, '^{"error"') then
      store.set(key, result, ttl)
    end
    return result
  end)
end
