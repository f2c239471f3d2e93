-- post_llm_call: log how long each response was.
function register(ctx)
  ctx.register_hook("post_llm_call", function(kw)
    local text = kw.assistant_response or ""
    -- characters, not bytes: count the bytes that do not continue a UTF-8 sequence
    -- (a loop: gopher-lua's string.gsub gets slow with thousands of matches)
    local chars = 0
    for i = 1, #text do
      local c = string.byte(text, i)
      if c < 128 or c >= 192 then chars = chars + 1 end
    end
    ctx.log.info("RESPONSE", { session_id = kw.session_id, model = kw.model, chars = chars, bytes = #text })
  end)
end
