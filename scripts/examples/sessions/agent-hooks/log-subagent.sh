#!/usr/bin/env bash
# subagent_stop: append every finished subagent as one JSON line (time, parent session and
# the event's fields) to $HERMES_SUBAGENT_LOG, default $HERMES_HOME/logs/orchestration.jsonl,
# else ~/.hermes/logs/orchestration.jsonl. Needs jq.
set -u
log="${HERMES_SUBAGENT_LOG:-${HERMES_HOME:-$HOME/.hermes}/logs/orchestration.jsonl}"
if ! command -v jq >/dev/null 2>&1; then
  echo "log-subagent.sh: jq is required (apt-get install jq, brew install jq)" >&2
  exit 1
fi
mkdir -p "$(dirname "$log")"
jq -c '{ts: (now | todate), parent: .session_id, extra: .extra}' >>"$log"
printf '{}\n'
