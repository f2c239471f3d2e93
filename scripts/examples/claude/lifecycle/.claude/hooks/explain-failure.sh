#!/bin/sh
# PostToolUseFailure: a failed command gets a hint for the model.
err=$(jq -r '.error')
case "$err" in
  *"command not found"*)
    jq -n --arg e "$err" '{hookSpecificOutput: {hookEventName: "PostToolUseFailure",
      additionalContext: ("\($e): use the tools of the Makefile (make help lists them)")}}' ;;
esac
