#!/bin/sh
# PermissionRequest: cleaning the build directory is always fine (and remembered); deleting
# the source tree never is; anything else goes to the person.
cmd=$(jq -r '.tool_input.command')
case "$cmd" in
  "rm -rf build"|"rm -rf build/"*)
    jq -n '{hookSpecificOutput: {hookEventName: "PermissionRequest", decision: {behavior: "allow",
      updatedPermissions: [{type: "addRules", rules: [{toolName: "Bash", ruleContent: "rm -rf build"}], behavior: "allow", destination: "localSettings"}]}}}' ;;
  "rm -rf src"*|"rm -rf ."*|"rm -rf /"*)
    jq -n '{hookSpecificOutput: {hookEventName: "PermissionRequest", decision: {behavior: "deny", message: "the source tree is not deleted"}}}' ;;
esac
