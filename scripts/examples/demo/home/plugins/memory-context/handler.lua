-- Recalls facts about the sender and injects them into the turn (never into history).
function register(ctx)
  local facts = ctx.config.facts or {}
  ctx.register_hook("pre_llm_call", function(kw)
    local fact = facts[kw.sender_id]
    if fact then
      return { context = "[memory] " .. fact }
    end
  end)
end
