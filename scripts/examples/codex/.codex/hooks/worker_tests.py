#!/usr/bin/env python3
"""SubagentStop (worker): a worker hands back its work only once it reports the tests pass."""
import json
import sys

event = json.load(sys.stdin)
message = event.get("last_assistant_message") or ""
if "tests pass" not in message:
    reason = f"Worker {event['agent_id']}: run the tests and fix what fails before you finish."
    print(json.dumps({"decision": "block", "reason": reason}))
