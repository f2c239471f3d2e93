---@meta re
-- Makes `require("re")` return the hermes.re module in lua-language-server.
-- Always available to hermes hooks (see hermes.d.lua).

---@type hermes.re
local re = {}

return re
