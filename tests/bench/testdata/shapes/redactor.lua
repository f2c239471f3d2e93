-- redactor: three regular expressions over a tool's result, the way people write a secret
-- redactor (OpenAI keys, AWS access keys, password assignments).
local re = require("re")

function register(ctx)
  ctx.register_hook("transform_tool_result", function(kw)
    local r = kw.result
    r = re.gsub(r, "sk-[A-Za-z0-9]{20,}", "[REDACTED:openai]")
    r = re.gsub(r, "AKIA[0-9A-Z]{16}", "[REDACTED:aws]")
    r = re.gsub(r, "(?i)password\\s*[:=]\\s*\\S+", "password=[REDACTED]")
    return r
  end)
end
