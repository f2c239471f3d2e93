local json = require("json")
local log = require("log")

function handle(event_type, context)
  local line = json.encode({ event = event_type, session = context.session_id, iteration = context.iteration })
  log.info(line)
  return line
end
