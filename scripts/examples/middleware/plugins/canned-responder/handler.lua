-- pre_api_request: respond instead of the model.
function register(ctx)
  local canned = ctx.config.canned or {}

  local function last_user_text(msgs)
    for i = #msgs, 1, -1 do
      if msgs[i].role == "user" and type(msgs[i].content) == "string" then
        return string.lower(string.match(msgs[i].content, "^%s*(.-)%s*$"))
      end
    end
    return ""
  end

  ctx.register_hook("pre_api_request", function(kw)
    if ctx.config.offline then
      return { action = "respond", response = { content = ctx.config.offline_reply, model = "offline" } }
    end
    local answer = canned[last_user_text(kw.request.messages)]
    if answer then
      return { action = "respond", response = { content = answer, model = "canned" } }
    end
  end)
end
