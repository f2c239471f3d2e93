function handle(event_type, context)
  return string.format("%s for %s (%s)", event_type, context.user_id, context.session_key)
end
