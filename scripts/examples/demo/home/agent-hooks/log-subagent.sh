#!/bin/sh
# subagent_stop: append every finished subagent to logs/subagents.jsonl in the home.
dir="$(dirname "$0")/../logs"
mkdir -p "$dir"
cat >> "$dir/subagents.jsonl"
echo >> "$dir/subagents.jsonl"
