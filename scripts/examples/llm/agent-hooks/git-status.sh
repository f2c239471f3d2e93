#!/usr/bin/env bash
# pre_llm_call: add `git status --short` of the working directory to the turn (the
# equivalent of Claude Code's UserPromptSubmit). Prints {"context": ...} built with jq, or {}
# outside a git repository or when the tree is clean. At most MAX_LINES lines are sent.
# Needs jq.
set -u
MAX_LINES=50
payload="$(cat -)"
if ! command -v jq >/dev/null 2>&1; then
  echo "git-status.sh: jq is required (apt-get install jq, brew install jq)" >&2
  exit 1
fi
dir=$(printf '%s' "$payload" | jq -r '.cwd // empty')
[ -n "$dir" ] || dir=.
if status=$(git -C "$dir" status --short 2>/dev/null) && [ -n "$status" ]; then
  total=$(printf '%s\n' "$status" | wc -l)
  if [ "$total" -gt "$MAX_LINES" ]; then
    status="$(printf '%s\n' "$status" | head -n "$MAX_LINES")
... and $((total - MAX_LINES)) more"
  fi
  jq -n --arg s "$status" '{context: ("Uncommitted changes in the working directory (git status --short):\n" + $s)}'
else
  printf '{}\n'
fi
