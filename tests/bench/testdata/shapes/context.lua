-- context: a line of context for the turn, built from the turn's fields.
function register(ctx)
  ctx.register_hook("pre_llm_call", function(kw)
    return { context = "User " .. kw.sender_id .. " on " .. kw.platform .. " talks to " .. kw.model .. "; keep answers short." }
  end)
end
