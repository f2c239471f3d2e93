-- pre_api_request: rewrite the messages of the request, not the session's history.
function register(ctx)
  local keep = ctx.config.keep_messages or 6
  local patterns = ctx.config.redact or {}

  local function redact(text)
    local n = 0
    for _, p in ipairs(patterns) do
      local count
      text, count = string.gsub(text, p, "[REDACTED]")
      n = n + count
    end
    return text, n
  end

  ctx.register_hook("pre_api_request", function(kw)
    local msgs = kw.request.messages
    local first = math.max(1, #msgs - keep + 1)
    local out, changed = {}, first > 1
    for i = first, #msgs do
      local m = {}
      for k, v in pairs(msgs[i]) do m[k] = v end
      if type(m.content) == "string" then
        local n
        m.content, n = redact(m.content)
        changed = changed or n > 0
      end
      out[#out + 1] = m
    end
    if changed then
      return { action = "modify", request = { messages = out } }
    end
  end)
end
