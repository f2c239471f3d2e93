-- Gateway hook: one JSON line per slash command in <home>/logs/command_usage.jsonl.
local json = require("json")
local log = require("log")
local hermes = require("hermes")

local LOG_FILE = hermes.home .. "/logs/command_usage.jsonl"

local function append_line(path, line)
  local ok, f, err = pcall(io.open, path, "a") -- io.open raises outside permissions.fs
  if not ok then return false, f end
  if not f then return false, err end
  f:write(line, "\n")
  f:close()
  return true
end

function handle(event_type, context)
  local line = json.encode({
    ts = os.date("!%Y-%m-%dT%H:%M:%SZ"),
    command = context.command,
    args = context.args,
    platform = context.platform,
    user = context.user_id,
  })
  local ok, why = append_line(LOG_FILE, line)
  if not ok then
    log.warn("command-logger: not logged", { file = LOG_FILE, error = why })
    return "not logged: " .. why
  end
  return "logged /" .. tostring(context.command) .. " to " .. LOG_FILE
end
