-- pre_api_request: keep the tools the platform allows.
function register(ctx)
  local allowed = {}
  for platform, names in pairs(ctx.config.platforms or {}) do
    allowed[platform] = {}
    for _, name in ipairs(names) do allowed[platform][name] = true end
  end

  ctx.register_hook("pre_api_request", function(kw)
    local keep = allowed[kw.platform]
    if keep == nil then return end
    local tools = {}
    for _, t in ipairs(kw.request.tools) do
      if keep[t.name] then tools[#tools + 1] = t end
    end
    if #tools ~= #kw.request.tools then
      return { action = "modify", request = { tools = tools } }
    end
  end)
end
