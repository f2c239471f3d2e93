function handle(event_type, context)
  return string.format("/%s %s by %s on %s", context.command, context.args or "", context.user_id, context.platform)
end
