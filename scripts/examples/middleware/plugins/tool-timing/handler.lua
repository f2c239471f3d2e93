-- wrap_tool_call: time the run of the tool and append it to the timing log; the result or
-- the error passes through unchanged.
local json = require("json")
local time = require("time")

function register(ctx)
  local file = ctx.home .. "/logs/tool-timing.jsonl"

  local function record(entry)
    local ok, f = pcall(io.open, file, "a") -- io.open raises outside permissions.fs
    if ok and f then
      f:write(json.encode(entry), "\n")
      f:close()
    else
      ctx.log.info("tool timing", entry) -- not installed as ~/.hermes: the log has it
    end
  end

  ctx.register_hook("wrap_tool_call", function(kw, next)
    local start = time.now()
    local ok, result = pcall(next, kw.args)
    record({ tool = kw.tool_name, tool_call_id = kw.tool_call_id, session_id = kw.session_id,
             ms = math.floor((time.now() - start) * 1000 + 0.5), ok = ok })
    if not ok then error(result, 0) end
    return result
  end)
end
