-- pre_tool_call: log a warning for every dangerous tool; block catastrophic commands.
local re = require("re")

function register(ctx)
  local dangerous = {}
  for _, name in ipairs(ctx.config.dangerous_tools or { "terminal", "write_file", "patch" }) do
    dangerous[name] = true
  end
  local rules = ctx.config.block or {}

  ctx.register_hook("pre_tool_call", function(kw)
    if not dangerous[kw.tool_name] then return nil end
    if kw.tool_name == "terminal" then
      local command = kw.args.command or ""
      for _, rule in ipairs(rules) do
        if re.match(command, rule.pattern) then
          ctx.log.warn("blocked a dangerous command", { rule = rule.name, command = command, session_id = kw.session_id })
          return {
            action = "block",
            message = string.format("Blocked by dangerous-tools: `%s` %s. Ask the user to run it themselves if it is really intended.",
              command, rule.why),
          }
        end
      end
    end
    ctx.log.warn("executing potentially dangerous tool: " .. kw.tool_name, { session_id = kw.session_id, task_id = kw.task_id })
    return nil -- a warning only: the call goes ahead
  end)
end
