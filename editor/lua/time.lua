---@meta time
-- Makes `require("time")` return the hermes.time module in lua-language-server.
-- Always available to hermes hooks (see hermes.d.lua).

---@type hermes.time
local time = {}

return time
