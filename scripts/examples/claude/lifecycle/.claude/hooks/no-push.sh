#!/bin/sh
# PreToolUse, only for `git push` (the hook's if condition): pushing is CI's job.
cmd=$(jq -r '.tool_input.command')
echo "Blocked: '$cmd' - pushes go through CI; commit and stop" >&2
exit 2
