-- Observers: their return values are ignored; they log what happened.
function register(ctx)
  local started = {}
  ctx.register_hook("on_session_start", function(kw)
    started[kw.session_id] = os.time()
    ctx.log.info("session started", {session = kw.session_id, platform = kw.platform})
  end)
  ctx.register_hook("on_session_end", function(kw)
    ctx.log.info("turn ended", {session = kw.session_id, completed = kw.completed})
  end)
  ctx.register_hook("on_session_finalize", function(kw)
    local t0 = started[kw.session_id]
    ctx.log.info("session finalized", {session = kw.session_id, seconds = t0 and os.time() - t0 or nil})
    started[kw.session_id or ""] = nil
  end)
  ctx.register_hook("on_session_reset", function(kw)
    ctx.log.info("session reset", {new_session = kw.session_id})
  end)
  ctx.register_hook("subagent_stop", function(kw)
    ctx.log.info("subagent finished", {role = kw.child_role, status = kw.child_status, ms = kw.duration_ms})
  end)
  ctx.register_hook("pre_approval_request", function(kw)
    ctx.log.info("approval requested", {command = kw.command, pattern = kw.pattern_key})
  end)
  ctx.register_hook("post_approval_response", function(kw)
    ctx.log.info("approval answered", {command = kw.command, choice = kw.choice})
  end)
end
