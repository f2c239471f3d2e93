---@meta store
-- Makes `require("store")` return the hermes.store module in lua-language-server.
-- Available to every plugin and gateway hook the engine loads (see hermes.d.lua).

---@type hermes.store
local store = {}

return store
