-- Observer plugin: an audit line per tool call, before and after it runs.
local json = require("json")

local function append_line(path, line)
  local ok, f, err = pcall(io.open, path, "a") -- io.open raises outside permissions.fs
  if not ok then return false, f end
  if not f then return false, err end
  f:write(line, "\n")
  f:close()
  return true
end

function register(ctx)
  local file = ctx.home .. "/logs/tool-audit.jsonl"
  local max_args = ctx.config.max_args_chars or 200

  local function audit(phase, kw, extra)
    local entry = {
      ts = os.date("!%Y-%m-%dT%H:%M:%SZ"), phase = phase, tool = kw.tool_name,
      session_id = kw.session_id, task_id = kw.task_id, tool_call_id = kw.tool_call_id,
      args = string.sub(json.encode(kw.args or {}), 1, max_args),
    }
    for k, v in pairs(extra or {}) do entry[k] = v end
    local ok, why = append_line(file, json.encode(entry))
    if not ok then
      ctx.log.warn("tool call not audited", { file = file, error = why })
    end
  end

  ctx.register_hook("pre_tool_call", function(kw)
    audit("pre", kw)
    -- nothing returned: an observer never blocks
  end)
  ctx.register_hook("post_tool_call", function(kw)
    audit("post", kw, { duration_ms = kw.duration_ms, result_chars = #(kw.result or "") })
  end)
end
