---@meta json
-- Makes `require("json")` return the hermes.json module in lua-language-server.
-- Always available to hermes hooks (see hermes.d.lua).

---@type hermes.json
local json = {}

return json
