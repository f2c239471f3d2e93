---@meta hermes
-- Makes `require("hermes")` return the hermes.hermes module in lua-language-server.
-- Always available to hermes hooks (see hermes.d.lua).

---@type hermes.hermes
local hermes = {}

return hermes
