-- Lua patterns cannot say {32,}; the re module speaks Go regular expressions.
local re = require("re")

function register(ctx)
  ctx.register_hook("transform_tool_result", function(kw)
    local redacted, n = re.gsub(kw.result, "sk-[A-Za-z0-9]{32,}", "[REDACTED]")
    if n > 0 then
      ctx.log.info("redacted secrets", {count = n, tool = kw.tool_name})
      return redacted
    end
  end)
end
