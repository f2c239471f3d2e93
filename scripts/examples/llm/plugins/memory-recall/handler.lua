-- pre_llm_call: memories from an HTTP memory service, as context for this turn.
local http = require("http")
local json = require("json")

function register(ctx)
  local function base_url()
    local url = os.getenv("MEMORY_API_URL")
    if url == nil or url == "" then url = ctx.config.memory_api or "http://127.0.0.1:8765" end
    return (string.gsub(url, "/+$", ""))
  end
  local max = ctx.config.max_memories or 5

  ctx.register_hook("pre_llm_call", function(kw)
    local ok, res = pcall(http.post, base_url() .. "/recall",
      { session_id = kw.session_id, query = kw.user_message },
      { timeout = ctx.config.request_timeout or 3 })
    if not ok then
      ctx.log.debug("memory service unavailable; no memories this turn", { error = res })
      return nil
    end
    if res.status ~= 200 then
      ctx.log.debug("memory service answered " .. res.status .. "; no memories this turn")
      return nil
    end
    local data = res.json
    if data == nil then
      local decoded, value = pcall(json.decode, res.body)
      if decoded then data = value end
    end
    local results = type(data) == "table" and data.results or nil
    if type(results) ~= "table" then return nil end
    local lines = {}
    for _, m in ipairs(results) do
      if #lines >= max then break end
      local text = type(m) == "table" and m.text or m
      if type(text) == "string" and text ~= "" then lines[#lines + 1] = "- " .. text end
    end
    if #lines == 0 then return nil end
    return { context = "Recalled context:\n" .. table.concat(lines, "\n") }
  end)
end
