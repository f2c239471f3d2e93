-- The reference guard: blocks terminal commands that contain `rm -rf`.
-- ../../../guard.rego is the same guard in Rego, answering the same decision.
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    if kw.tool_name ~= "terminal" or type(kw.args) ~= "table" then return nil end
    local command = kw.args.command
    if type(command) == "string" and command:find("rm -rf", 1, true) then
      return { action = "block", message = "Blocked: `" .. command .. "` is destructive and not permitted." }
    end
  end)
end
