-- wrap_tool_call: run the call; when it fails, wait and run it again, up to `attempts` runs.
local time = require("time")

function register(ctx)
  local attempts = ctx.config.attempts or 3
  local backoff = ctx.config.backoff_seconds or 0.2
  local retried = {}
  for _, name in ipairs(ctx.config.tools or {}) do retried[name] = true end

  ctx.register_hook("wrap_tool_call", function(kw, next)
    if not retried[kw.tool_name] then
      return next(kw.args)
    end
    local pause, last_err = backoff, nil
    for attempt = 1, attempts do
      local ok, result = pcall(next, kw.args)
      if ok then
        if attempt > 1 then
          ctx.log.info("tool call succeeded after a retry", { tool = kw.tool_name, attempt = attempt })
        end
        return result
      end
      last_err = result
      ctx.log.warn("tool call failed", { tool = kw.tool_name, attempt = attempt, error = result })
      if attempt < attempts then
        time.sleep(pause)
        pause = pause * 2
      end
    end
    error(last_err, 0) -- every run failed: the last error is the call's
  end)
end
