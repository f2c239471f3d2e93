function register(ctx)
  local max_lines = ctx.config.max_lines or 10
  ctx.register_hook("transform_terminal_output", function(kw)
    if not string.find(kw.command, "^find ") then return nil end
    local lines = {}
    for line in string.gmatch(kw.output, "[^\n]+") do table.insert(lines, line) end
    if #lines <= max_lines then return nil end
    local head = table.concat(lines, "\n", 1, 5)
    return string.format("%d paths found; the first 5:\n%s\n(%d more omitted)", #lines, head, #lines - 5)
  end)
end
