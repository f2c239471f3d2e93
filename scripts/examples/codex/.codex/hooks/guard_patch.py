#!/usr/bin/env python3
"""PreToolUse for apply_patch: applied migrations are never edited; add a new one."""
import json
import re
import sys

event = json.load(sys.stdin)
if event["tool_name"] != "apply_patch":
    sys.exit(0)
patch = event["tool_input"]["command"]
for path in re.findall(r"^\*\*\* (?:Update|Delete) File: (.+)$", patch, re.M):
    if path.startswith("migrations/"):
        print(json.dumps({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": f"{path} is an applied migration; add a new migration instead",
        }}))
        sys.exit(0)
