-- pre_gateway_dispatch: skip DMs from anyone not in config.allowed_users.
function register(ctx)
  local allowed = {}
  for _, user in ipairs(ctx.config.allowed_users or {}) do
    allowed[tostring(user)] = true -- numeric ids in YAML arrive as numbers
  end

  ctx.register_hook("pre_gateway_dispatch", function(kw)
    local ev = kw.event
    if ev.chat_type == "dm" and not allowed[tostring(ev.user_id)] then
      ctx.log.info("dropped a DM from an unauthorised user", { platform = ev.platform, user_id = ev.user_id })
      return { action = "skip", reason = "unauthorized-dm" }
    end
    return nil -- not ours to decide: the next plugin, then normal dispatch
  end)
end
