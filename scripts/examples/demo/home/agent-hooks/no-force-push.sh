#!/bin/sh
# pre_tool_call (matcher: terminal): refuse force-pushes. Answers in the Claude-Code dialect.
payload=$(cat)
case "$payload" in
  *'git push --force'*|*'git push -f'*)
    echo '{"decision": "block", "reason": "force-push is disabled on this machine"}' ;;
  *) echo '{}' ;;
esac
