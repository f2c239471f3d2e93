#!/usr/bin/env bash
# post_tool_call (matcher: write_file|patch): format the file the agent just wrote.
# The path is tool_input.path. HERMES_FORMAT_CMD overrides the formatter for every file
# (e.g. HERMES_FORMAT_CMD="prettier --write"); otherwise .go files get `gofmt -w` and .py
# files `black -q`, when installed; other files are left alone. Needs jq.
# The agent's view of the file is not refreshed: its next read_file sees the formatted file.
set -u
payload="$(cat -)"
if ! command -v jq >/dev/null 2>&1; then
  echo "auto-format.sh: jq is required (apt-get install jq, brew install jq)" >&2
  exit 1
fi
path=$(printf '%s' "$payload" | jq -r '.tool_input.path // empty')
if [ -z "$path" ] || [ ! -f "$path" ]; then
  printf '{}\n'
  exit 0
fi
if [ -n "${HERMES_FORMAT_CMD:-}" ]; then
  read -r -a fmt <<<"$HERMES_FORMAT_CMD"
else
  case "$path" in
    *.go) fmt=(gofmt -w) ;;
    *.py) fmt=(black -q) ;;
    *) printf '{}\n'; exit 0 ;;
  esac
fi
if command -v "${fmt[0]}" >/dev/null 2>&1; then
  "${fmt[@]}" "$path" >&2 || echo "auto-format.sh: ${fmt[*]} failed on $path" >&2
else
  echo "auto-format.sh: ${fmt[0]} is not installed; $path left as is" >&2
fi
printf '{}\n'
