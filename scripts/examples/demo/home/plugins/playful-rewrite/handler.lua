function register(ctx)
  ctx.register_hook("transform_llm_output", function(kw)
    if os.getenv("PLAYFUL") == "0" then return nil end
    return kw.response_text .. " ~ your friendly agent"
  end)
end
