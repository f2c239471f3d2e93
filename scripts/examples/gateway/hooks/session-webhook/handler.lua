-- Gateway hook: POST new and reset sessions to a webhook.
local http = require("http")

function handle(event_type, context)
  local url = os.getenv("SESSION_WEBHOOK_URL")
  if url == nil or url == "" then
    return "SESSION_WEBHOOK_URL is not set; nothing sent"
  end
  local body = { event = event_type }
  for k, v in pairs(context) do body[k] = v end
  local res = http.post(url, body, { timeout = 5 })
  return string.format("posted %s to the webhook: HTTP %d", event_type, res.status)
end
