-- Gateway hook: one JSON line per agent event in <home>/logs/activity.jsonl.
-- Each gateway hook runs on its own worker, so writing a file here never slows a turn.
local json = require("json")
local log = require("log")
local hermes = require("hermes")

local LOG_FILE = hermes.home .. "/logs/activity.jsonl"

-- append_line appends line to path; it returns true, or false and why not.
-- io.open raises an error for a path outside permissions.fs, hence the pcall.
local function append_line(path, line)
  local ok, f, err = pcall(io.open, path, "a")
  if not ok then return false, f end
  if not f then return false, err end
  f:write(line, "\n")
  f:close()
  return true
end

function handle(event_type, context)
  local entry = { timestamp = os.date("!%Y-%m-%dT%H:%M:%SZ"), event = event_type }
  for k, v in pairs(context) do entry[k] = v end
  local line = json.encode(entry)
  local ok, why = append_line(LOG_FILE, line)
  if not ok then
    log.warn("activity-logger: not logged", { file = LOG_FILE, error = why })
    return "not logged: " .. why
  end
  return "logged to " .. LOG_FILE .. ": " .. line
end
