#!/bin/sh
# Stop: the agent does not stop while the project's tests fail.
cat >/dev/null
if ! out=$(./test.sh 2>&1); then
  jq -n --arg out "$out" '{decision: "block", reason: ("The tests fail:\n\($out)\nFix the code, then stop.")}'
fi
exit 0
