-- transform_llm_output: a non-empty string replaces the response; nil keeps it.
function register(ctx)
  ctx.register_hook("transform_llm_output", function(kw)
    if os.getenv("SPONGEBOB_MODE") ~= "on" then
      return nil -- pass through unchanged
    end
    local text, n = string.gsub(kw.response_text, "!", "!! Tartar sauce!")
    if n == 0 then text = text .. " Tartar sauce!" end
    return text
  end)
end
