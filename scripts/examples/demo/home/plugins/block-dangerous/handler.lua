-- Blocks terminal commands that would destroy the machine.
local re = require("re")

local patterns = {
  "rm\\s+-[a-zA-Z]*r[a-zA-Z]*f?\\s+/(\\s|$)",  -- rm -rf /
  "mkfs\\.",                                     -- formatting a disk
  ":\\(\\)\\s*\\{\\s*:\\|:&\\s*\\};:",            -- fork bomb
}

function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if kw.tool_name ~= "terminal" then return nil end
    local command = kw.args.command or ""
    for _, p in ipairs(patterns) do
      if re.match(command, p) then
        ctx.log.warn("blocked a dangerous command", {command = command})
        return { action = "block", message = "Blocked: `" .. command .. "` is destructive and not permitted." }
      end
    end
  end)
end
