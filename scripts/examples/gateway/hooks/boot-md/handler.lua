-- Gateway hook: run <home>/BOOT.md through the agent at startup. The agent answers [SILENT]
-- when nothing needs attention; then the hook reports nothing.
local hermes = require("hermes")
local log = require("log")

local BOOT_FILE = hermes.home .. "/BOOT.md"

local function build_prompt(content)
  return "You are running a startup boot checklist. Follow the instructions below exactly.\n\n"
    .. "---\n" .. content .. "\n---\n\n"
    .. "Execute each instruction. Use the send_message tool to deliver any messages to platforms like Discord or Slack.\n"
    .. "If nothing needs attention and there is nothing to report, reply with ONLY: [SILENT]"
end

-- read_boot returns the trimmed checklist, or nil when there is none (or it is unreadable).
local function read_boot()
  local ok, f = pcall(io.open, BOOT_FILE, "r") -- io.open raises outside permissions.fs
  if not ok then
    log.warn("boot-md: cannot read BOOT.md", { file = BOOT_FILE, error = f })
    return nil
  end
  if not f then return nil end -- no BOOT.md: nothing to do
  local content = f:read("a")
  f:close()
  content = string.gsub(content, "^%s+", "")
  content = string.gsub(content, "%s+$", "")
  if content == "" then return nil end
  return content
end

function handle(event_type, context)
  local content = read_boot()
  if not content then return nil end
  if not hermes.run_agent then
    log.warn("boot-md: this host offers no hermes.run_agent, BOOT.md not run")
    return string.format("BOOT.md found (%d chars), but this host has no hermes.run_agent to run it", #content)
  end
  log.info(string.format("Running BOOT.md (%d chars)", #content))
  local reply = hermes.run_agent(build_prompt(content))
  if type(reply) == "string" and reply ~= "" and not string.find(reply, "[SILENT]", 1, true) then
    log.info("boot-md completed: " .. string.sub(reply, 1, 200))
    return reply
  end
  log.info("boot-md completed (nothing to report)")
  return nil
end
