#!/usr/bin/env python3
"""PreToolUse guard for Bash: refuse recursive force deletes and force pushes, and ask a
person before anything is pushed to main.

Exit code 2 blocks the tool call; what is printed on stderr is the reason the model sees.
"""
import json
import re
import sys

PATTERNS = [
    (r"\brm\s+(-[a-zA-Z]*r[a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*r|-r\s+-f|-f\s+-r)\b", "rm -rf is not allowed; delete specific files instead"),
    (r"\bgit\s+push\b.*(--force\b|--force-with-lease\b|\s-f\b)", "force pushes are not allowed; push without --force"),
]

try:
    data = json.load(sys.stdin)
except json.JSONDecodeError as e:
    print(f"invalid hook input: {e}", file=sys.stderr)
    sys.exit(1)

command = data.get("tool_input", {}).get("command", "")
for pattern, reason in PATTERNS:
    if re.search(pattern, command):
        print(f"Blocked: {reason}", file=sys.stderr)
        sys.exit(2)
if re.search(r"\bgit\s+push\b.*\bmain\b", command):
    print(json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": "this pushes to main",
        }
    }))
sys.exit(0)
