#!/bin/sh
# BeforeTool for run_shell_command: no force pushes.
cmd=$(jq -r '.tool_input.command')
case "$cmd" in
  *"git push"*--force*|*"git push"*" -f"*)
    jq -n '{decision: "deny", reason: "Force pushes are not allowed; push a new commit"}' ;;
  *) echo '{"decision": "allow"}' ;;
esac
