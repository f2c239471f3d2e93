#!/usr/bin/env python3
"""PreToolUse guard for Read, Edit and Write: keep .env files (secrets) out of reach."""
import json
import os
import sys

data = json.load(sys.stdin)
path = data.get("tool_input", {}).get("file_path", "")
name = os.path.basename(path)
if name == ".env" or (name.startswith(".env.") and name != ".env.example"):
    print(json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": f"{path} holds secrets; read .env.example instead",
        }
    }))
sys.exit(0)
