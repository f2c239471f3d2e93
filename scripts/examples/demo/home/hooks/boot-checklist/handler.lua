-- The agent answers [SILENT] when nothing needs attention.
local hermes = require("hermes")

function handle(event_type, context)
  local reply = hermes.run_agent("Run the checklist in BOOT.md. Answer [SILENT] if nothing needs attention.")
  if reply and not string.find(reply, "[SILENT]", 1, true) then
    return "boot checklist: " .. reply
  end
end
