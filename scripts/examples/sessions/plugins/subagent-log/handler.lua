-- subagent_stop: one log line per finished child.
function register(ctx)
  ctx.register_hook("subagent_stop", function(kw)
    ctx.log.info("SUBAGENT", {
      parent = kw.parent_session_id,
      role = kw.child_role, -- nil when roles are not in use
      status = kw.child_status,
      duration_ms = kw.duration_ms,
    })
  end)
end
