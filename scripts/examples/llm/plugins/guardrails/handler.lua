-- pre_llm_call: inject the policy text on every turn.
function register(ctx)
  local policy = ctx.config.policy or "Never execute commands that delete files without explicit user confirmation."
  ctx.register_hook("pre_llm_call", function(kw)
    return { context = policy }
  end)
end
