#!/bin/sh
# PreToolUse for Bash: the agent never runs sudo.
cmd=$(jq -r '.tool_input.command')
case "$cmd" in
  sudo\ *|*\ sudo\ *) echo "no sudo: ask the user to run it" >&2; exit 2 ;;
esac
exit 0
