#!/bin/sh
# AfterAgent: a reply that changed code must mention the changelog; one retry only.
in=$(cat)
[ "$(printf '%s' "$in" | jq -r '.stop_hook_active')" = "true" ] && exit 0
if ! printf '%s' "$in" | jq -r '.prompt_response' | grep -qi changelog; then
  echo "Add an entry to CHANGELOG.md for this change, then say so." >&2
  exit 2
fi
