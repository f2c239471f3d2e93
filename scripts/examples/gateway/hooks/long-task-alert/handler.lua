-- Gateway hook: a Telegram alert when a turn reaches THRESHOLD tool-calling steps.
local http = require("http")
local log = require("log")

local THRESHOLD = 10

local function env(name)
  local v = os.getenv(name)
  if v == nil or v == "" then return nil end
  return v
end

function handle(event_type, context)
  local iteration = context.iteration or 0
  if iteration ~= THRESHOLD then return nil end
  local token = env("TELEGRAM_BOT_TOKEN")
  local chat_id = env("TELEGRAM_CHAT_ID") or env("TELEGRAM_HOME_CHANNEL")
  if not token or not chat_id then
    log.warn("long-task-alert: set TELEGRAM_BOT_TOKEN and TELEGRAM_CHAT_ID to receive alerts")
    return "step " .. iteration .. " reached, but TELEGRAM_BOT_TOKEN or TELEGRAM_CHAT_ID is not set"
  end
  local base = (env("TELEGRAM_API_BASE") or "https://api.telegram.org"):gsub("/+$", "")
  local text = string.format("⚠️ Agent has been running for %d steps. Last tools: %s",
    iteration, table.concat(context.tool_names or {}, ", "))
  -- A table body is sent as JSON. Errors (network, timeout) are logged by the gateway with
  -- this file and line; the token is never part of the message (only method and host are).
  local res = http.post(base .. "/bot" .. token .. "/sendMessage", { chat_id = chat_id, text = text }, { timeout = 10 })
  if res.status ~= 200 then
    log.warn("long-task-alert: Telegram refused the message", { status = res.status, body = string.sub(res.body, 1, 200) })
    return "alert failed: HTTP " .. res.status
  end
  return "alert sent to chat " .. chat_id
end
