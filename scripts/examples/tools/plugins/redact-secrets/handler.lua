-- transform_tool_result: replace secrets with [REDACTED:<kind>]; nil (unchanged) if none.
local re = require("re")

-- Order matters where shapes overlap: the specific sk-ant- / sk-proj- before plain sk-.
local SECRETS = {
  { kind = "anthropic", pattern = [[sk-ant-[A-Za-z0-9_-]{32,}]] },
  { kind = "openai", pattern = [[sk-proj-[A-Za-z0-9_-]{32,}]] },
  { kind = "openai", pattern = [[sk-[A-Za-z0-9]{32,}]] },
  { kind = "github", pattern = [[\bgh[pousr]_[A-Za-z0-9]{36,}]] },
  { kind = "github", pattern = [[\bgithub_pat_[A-Za-z0-9_]{40,}]] },
  { kind = "aws", pattern = [[\b(?:AKIA|ASIA)[0-9A-Z]{16}\b]] },
  { kind = "slack", pattern = [[\bxox[abposr]-[A-Za-z0-9-]{10,}]] },
  { kind = "google", pattern = [[\bAIza[0-9A-Za-z_-]{35}]] },
  { kind = "private-key", pattern = [[-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----]] },
}

function register(ctx)
  ctx.register_hook("transform_tool_result", function(kw)
    local result, total = kw.result or "", 0
    local kinds = {}
    for _, s in ipairs(SECRETS) do
      local n
      result, n = re.gsub(result, s.pattern, "[REDACTED:" .. s.kind .. "]")
      if n > 0 then
        total = total + n
        kinds[#kinds + 1] = s.kind
      end
    end
    if total == 0 then return nil end
    ctx.log.info("redacted secrets", { count = total, kinds = table.concat(kinds, ","), tool = kw.tool_name })
    return result
  end)
end
