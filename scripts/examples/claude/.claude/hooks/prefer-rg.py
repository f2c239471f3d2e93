#!/usr/bin/env python3
"""PreToolUse rewriter for Bash: run `grep -r` searches with ripgrep instead.

It answers updatedInput: the command runs as rewritten, without asking anyone.
"""
import json
import re
import sys

data = json.load(sys.stdin)
tool_input = data.get("tool_input", {})
command = tool_input.get("command", "")
rewritten = re.sub(r"^grep\s+-(r|R)([a-zA-Z]*)\s+", lambda m: "rg " + ("-" + m.group(2) + " " if m.group(2) else ""), command)
if rewritten != command:
    print(json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "updatedInput": {**tool_input, "command": rewritten},
        }
    }))
