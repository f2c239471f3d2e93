-- pre_approval_request: pop up a desktop notification.
local exec = require("exec")

-- applescript quotes s as an AppleScript string literal.
local function applescript(s)
  s = string.gsub(s, "\\", "\\\\")
  s = string.gsub(s, '"', '\\"')
  return '"' .. s .. '"'
end

function register(ctx)
  local title = ctx.config.title or "Hermes needs approval"

  ctx.register_hook("pre_approval_request", function(kw)
    local body = string.format("%s: %s", kw.description or "dangerous command", string.sub(kw.command or "", 1, 80))
    local notifiers = {
      { "notify-send", title, body },                                                               -- Linux
      { "osascript", "-e", "display notification " .. applescript(body) .. " with title " .. applescript(title) }, -- macOS
    }
    local missing = {}
    for _, argv in ipairs(notifiers) do
      local ok, res = pcall(exec.run, argv, { timeout = 5 })
      if ok then
        if res.code ~= 0 then
          ctx.log.warn(argv[1] .. " failed", { code = res.code, stderr = string.sub(res.stderr, 1, 200) })
        end
        return nil
      end
      if not string.find(res, "not found", 1, true) then
        ctx.log.warn("notification failed", { program = argv[1], error = res })
        return nil
      end
      missing[#missing + 1] = argv[1] -- not installed here: try the next one
    end
    ctx.log.warn("no desktop notifier installed", { tried = table.concat(missing, ", "), command = kw.command })
  end)
end
