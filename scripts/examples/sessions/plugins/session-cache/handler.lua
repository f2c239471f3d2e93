-- Session lifecycle: a cache in the store from start to finalize (turns, how they ended,
-- tool calls), flushed to logs/sessions.jsonl and dropped when the session is finalized.
-- In the store it is right with several Lua states, across reloads and across processes;
-- a session never finalized expires after a day.
local json = require("json")
local store = require("store")
local time = require("time")

local DAY = 24 * 3600

local function append_line(path, line)
  local ok, f, err = pcall(io.open, path, "a") -- io.open raises outside permissions.fs
  if not ok then return false, f end
  if not f then return false, err end
  f:write(line, "\n")
  f:close()
  return true
end

function register(ctx)
  local file = ctx.home .. "/logs/sessions.jsonl"
  local function key(id) return "session:" .. id end

  ctx.register_hook("on_session_start", function(kw)
    store.set(key(kw.session_id), {
      model = kw.model, platform = kw.platform,
      started = time.now(), started_at = os.date("!%Y-%m-%dT%H:%M:%SZ"),
      turns = 0, completed = 0, interrupted = 0, failed = 0, tool_calls = 0,
    }, DAY)
  end)

  ctx.register_hook("post_tool_call", function(kw)
    store.update(key(kw.session_id), function(c)
      if c then c.tool_calls = c.tool_calls + 1 end
      return c
    end)
  end)

  ctx.register_hook("on_session_end", function(kw) -- the end of every turn
    local status = kw.completed and "completed" or (kw.interrupted and "interrupted" or "failed")
    local c = store.update(key(kw.session_id), function(c)
      if c then
        c.turns = c.turns + 1
        c[status] = c[status] + 1
      end
      return c
    end)
    if c then
      ctx.log.info(string.format("Session %s turn ended: %s, %d tool calls so far", kw.session_id, status, c.tool_calls))
    end
  end)

  ctx.register_hook("on_session_finalize", function(kw)
    local id = kw.session_id
    local c = id and store.get(key(id))
    if not c then return end
    store.delete(key(id))
    local summary = {
      session_id = id, platform = c.platform, model = c.model, started_at = c.started_at,
      seconds = math.floor((time.now() - c.started) * 1000 + 0.5) / 1000,
      turns = c.turns, completed = c.completed, interrupted = c.interrupted, failed = c.failed,
      tool_calls = c.tool_calls,
    }
    local ok, why = append_line(file, json.encode(summary))
    if not ok then ctx.log.warn("session summary not written", { file = file, error = why }) end
  end)
end
