#!/usr/bin/env python3
"""Stop: the turn goes on while the last message admits to leaving TODOs."""
import json
import sys

event = json.load(sys.stdin)
if event.get("stop_hook_active"):
    sys.exit(0)  # one more pass only
if "TODO" in (event.get("last_assistant_message") or ""):
    print(json.dumps({"decision": "block", "reason": "Resolve the TODOs you left before you stop."}))
