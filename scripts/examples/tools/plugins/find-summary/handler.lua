-- transform_terminal_output: summarise huge `find` output.
function register(ctx)
  local max_bytes = ctx.config.max_bytes or 50000
  local head_lines = ctx.config.head_lines or 40

  ctx.register_hook("transform_terminal_output", function(kw)
    local command, output = kw.command or "", kw.output or ""
    if not string.find(command, "^%s*find%s") or #output <= max_bytes then
      return nil -- not ours: the output is kept as is
    end
    -- Count with a plain string.find loop: gopher-lua's string.gsub slows down with the
    -- number of matches (seconds for 3000 lines), enough to hit the plugin's timeout.
    local total, pos = 0, 1
    while true do
      local nl = string.find(output, "\n", pos, true)
      if not nl then break end
      total, pos = total + 1, nl + 1
    end
    local head = {}
    for line in string.gmatch(output, "[^\n]+") do
      if #head >= head_lines then break end
      head[#head + 1] = line
    end
    return string.format("%s\n\n[summary: %d paths total, showing first %d]", table.concat(head, "\n"), total, #head)
  end)
end
