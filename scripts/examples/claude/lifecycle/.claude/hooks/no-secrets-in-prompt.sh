#!/bin/sh
# UserPromptSubmit: a prompt that holds an API key is not sent to the model.
prompt=$(jq -r '.prompt')
case "$prompt" in
  *sk-[A-Za-z0-9]*|*AKIA[A-Z0-9]*)
    jq -n '{decision: "block", reason: "Your prompt holds an API key. Remove it and send the prompt again."}'
    ;;
esac
exit 0
