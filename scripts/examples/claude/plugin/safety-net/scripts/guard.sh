#!/bin/sh
# Refuses a command that matches a line of the plugin's denylist (extended regular
# expressions, one a line).
cmd=$(jq -r '.tool_input.command')
while IFS= read -r pattern; do
  [ -z "$pattern" ] && continue
  if printf '%s\n' "$cmd" | grep -qE -- "$pattern"; then
    echo "safety-net: '$cmd' matches the denylist ($pattern)" >&2
    exit 2
  fi
done < "${CLAUDE_PLUGIN_ROOT}/denylist.txt"
exit 0
