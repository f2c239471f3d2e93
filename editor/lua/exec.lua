---@meta exec
-- Makes `require("exec")` return the hermes.exec module in lua-language-server.
-- Exists only for hooks that declare permissions.exec (see hermes.d.lua).

---@type hermes.exec
local exec = {}

return exec
