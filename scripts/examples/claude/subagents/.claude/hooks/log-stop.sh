#!/bin/sh
# Stop and SubagentStop: a line per stop in .claude/stops.log, for the team's dashboard.
jq -r '[.hook_event_name, (.agent_type // "main"), (.agent_id // "-"), (.stop_hook_active | tostring)] | join(" ")' \
  >> "$CLAUDE_PROJECT_DIR/.claude/stops.log"
