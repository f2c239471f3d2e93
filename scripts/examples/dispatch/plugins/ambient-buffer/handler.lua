-- pre_gateway_dispatch: buffer ambient group messages; rewrite the mention to include them.
local re = require("re")

function register(ctx)
  local mention = {}
  for _, name in ipairs(ctx.config.bot_names or { "@hermes" }) do
    mention[#mention + 1] = "(?i)" .. re.quote(name) .. [[\b]]
  end
  local max = ctx.config.max_buffered or 50
  local buffers = {} -- "platform:chat_id" -> { "user: text", ... }

  local function mentioned(text)
    for _, p in ipairs(mention) do
      if re.match(text, p) then return true end
    end
    return false
  end

  ctx.register_hook("pre_gateway_dispatch", function(kw)
    local ev = kw.event
    if ev.chat_type == "dm" then return nil end -- only group chats are ambient
    local key = tostring(ev.platform) .. ":" .. tostring(ev.chat_id)
    local line = tostring(ev.user_id) .. ": " .. (ev.text or "")
    local buf = buffers[key] or {}

    if mentioned(ev.text or "") then
      buffers[key] = nil
      if #buf == 0 then return nil end -- nothing buffered: dispatch as is
      buf[#buf + 1] = line
      return {
        action = "rewrite",
        text = "Messages in this chat since I was last mentioned:\n" .. table.concat(buf, "\n"),
      }
    end

    buf[#buf + 1] = line
    if #buf > max then table.remove(buf, 1) end
    buffers[key] = buf
    return { action = "skip", reason = "ambient-buffered" }
  end)
end
