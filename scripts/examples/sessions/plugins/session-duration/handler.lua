-- on_session_start / on_session_end / on_session_finalize: session duration in the log.
-- The start time is in the store, so any process on this home (and any reload) knows it; a
-- session never finalized is forgotten after a day.
local store = require("store")
local time = require("time")

function register(ctx)
  local function key(id) return "start:" .. id end

  ctx.register_hook("on_session_start", function(kw)
    store.set(key(kw.session_id), time.now(), 24 * 3600)
  end)

  ctx.register_hook("on_session_end", function(kw)
    local start = store.get(key(kw.session_id))
    if not start then return end
    ctx.log.info("SESSION_DURATION", {
      session_id = kw.session_id,
      seconds = math.floor((time.now() - start) * 10 + 0.5) / 10,
      completed = kw.completed,
      interrupted = kw.interrupted,
    })
  end)

  ctx.register_hook("on_session_finalize", function(kw)
    if kw.session_id then store.delete(key(kw.session_id)) end
  end)
end
