-- on_session_start / on_session_end / on_session_finalize: session duration in the log.
local time = require("time")

function register(ctx)
  local start_times = {}

  ctx.register_hook("on_session_start", function(kw)
    start_times[kw.session_id] = time.now()
  end)

  ctx.register_hook("on_session_end", function(kw)
    local start = start_times[kw.session_id]
    if not start then return end
    ctx.log.info("SESSION_DURATION", {
      session_id = kw.session_id,
      seconds = math.floor((time.now() - start) * 10 + 0.5) / 10,
      completed = kw.completed,
      interrupted = kw.interrupted,
    })
  end)

  ctx.register_hook("on_session_finalize", function(kw)
    if kw.session_id then start_times[kw.session_id] = nil end
  end)
end
