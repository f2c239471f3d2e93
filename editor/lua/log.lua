---@meta log
-- Makes `require("log")` return the hermes.log module in lua-language-server.
-- Always available to hermes hooks (see hermes.d.lua).

---@type hermes.log
local log = {}

return log
