#!/bin/sh
# PreCompact and PostCompact: keep a log of what was compacted and the summary.
jq -r '"\(.hook_event_name) \(.trigger): \(.custom_instructions // .compact_summary // "")"' >> .claude/compact.log
