#!/bin/sh
# Interrupt: one line per interrupted turn in .codex/interrupts.log.
jq -r '"interrupted: session \(.session_id), model \(.model)"' >> .codex/interrupts.log
echo '{"systemMessage": "Interrupted turn logged."}'
