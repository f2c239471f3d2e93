#!/usr/bin/env python3
"""BeforeTool for run_shell_command: test runs get --ci. Only the command is given back:
Gemini CLI merges tool_input with the model's other arguments."""
import json
import re
import sys

event = json.load(sys.stdin)
command = event["tool_input"].get("command", "")
if re.match(r"npm test\b", command) and "--ci" not in command:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "BeforeTool",
                                             "tool_input": {"command": command + " -- --ci"}}}))
