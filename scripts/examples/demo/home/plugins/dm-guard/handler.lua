-- Runs before the gateway authorises and dispatches each inbound message.
function register(ctx)
  local allowed = {}
  for _, u in ipairs(ctx.config.allowed_users or {}) do allowed[u] = true end

  ctx.register_hook("pre_gateway_dispatch", function(kw)
    local ev = kw.event
    if ev.chat_type == "dm" and not allowed[ev.user_id] then
      kw.gateway.send(ev.platform, ev.chat_id, "Sorry, this bot is private.")
      return { action = "skip", reason = "unauthorised DM from " .. ev.user_id }
    end
    if string.sub(ev.text, 1, 3) == "!w " then
      return { action = "rewrite", text = "What is the weather in " .. string.sub(ev.text, 4) .. "?" }
    end
    return { action = "allow" }
  end)
end
