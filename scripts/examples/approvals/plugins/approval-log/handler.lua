-- post_approval_response: the decision log.
local json = require("json")

local function append_line(path, line)
  local ok, f, err = pcall(io.open, path, "a") -- io.open raises outside permissions.fs
  if not ok then return false, f end
  if not f then return false, err end
  f:write(line, "\n")
  f:close()
  return true
end

function register(ctx)
  local file = ctx.home .. "/logs/approvals.jsonl"

  ctx.register_hook("post_approval_response", function(kw)
    ctx.log.info(string.format("approval %s: %s for session %s", kw.choice, string.sub(kw.command or "", 1, 60), tostring(kw.session_key)))
    local ok, why = append_line(file, json.encode({
      ts = os.date("!%Y-%m-%dT%H:%M:%SZ"),
      choice = kw.choice,
      command = kw.command,
      description = kw.description,
      pattern_key = kw.pattern_key,
      pattern_keys = json.array(kw.pattern_keys or {}),
      session_key = kw.session_key,
      surface = kw.surface,
    }))
    if not ok then ctx.log.warn("decision not logged", { file = file, error = why }) end
  end)
end
