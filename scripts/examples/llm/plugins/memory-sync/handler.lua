-- post_llm_call: store the exchange in the memory service (best effort).
local http = require("http")

function register(ctx)
  local function base_url()
    local url = os.getenv("MEMORY_API_URL")
    if url == nil or url == "" then url = ctx.config.memory_api or "http://127.0.0.1:8765" end
    return (string.gsub(url, "/+$", ""))
  end

  ctx.register_hook("post_llm_call", function(kw)
    local ok, res = pcall(http.post, base_url() .. "/store", {
      session_id = kw.session_id,
      user = kw.user_message,
      assistant = kw.assistant_response,
    }, { timeout = ctx.config.request_timeout or 5 })
    if not ok then
      ctx.log.debug("memory not stored", { error = res })
    elseif res.status >= 300 then
      ctx.log.debug("memory not stored: HTTP " .. res.status)
    end
  end)
end
