#!/bin/sh
# Appends each command that ran, with its exit code, to the plugin's data directory.
mkdir -p "$CLAUDE_PLUGIN_DATA"
jq -r --arg tool "$1" '"\($tool): \(.tool_input.command) -> exit \(.tool_response.exit_code)"' >> "$CLAUDE_PLUGIN_DATA/audit.log"
