-- audit: every tool call as a JSON line in a ring buffer of the last 100, the way people
-- write an audit hook (json.encode of the call's fields).
local json = require("json")

local ring, n = {}, 0

function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    n = n + 1
    ring[(n - 1) % 100 + 1] = json.encode({ tool = kw.tool_name, args = kw.args, session = kw.session_id, n = n })
  end)
end
