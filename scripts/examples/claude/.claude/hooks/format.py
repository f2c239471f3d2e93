#!/usr/bin/env python3
"""PostToolUse formatter for Write and Edit: gofmt Go files, black Python files.

A file the formatter cannot parse exits 2: stderr goes back to the model, which fixes it.
"""
import json
import os
import shutil
import subprocess
import sys

data = json.load(sys.stdin)
path = data.get("tool_input", {}).get("file_path", "")
if not path or not os.path.isfile(path):
    sys.exit(0)
if path.endswith(".go"):
    cmd = ["gofmt", "-w", path]
elif path.endswith(".py"):
    cmd = ["black", "-q", path]
else:
    sys.exit(0)
if shutil.which(cmd[0]) is None:
    sys.exit(0)
result = subprocess.run(cmd, capture_output=True, text=True)
if result.returncode != 0:
    print(f"{cmd[0]} could not format {path}:\n{result.stderr.strip()}", file=sys.stderr)
    sys.exit(2)
