---@meta http
-- Makes `require("http")` return the hermes.http module in lua-language-server.
-- Exists only for hooks that declare permissions.net (see hermes.d.lua).

---@type hermes.http
local http = {}

return http
