#!/bin/sh
cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"BeforeModel","llm_request":{"model":"gemini-2.5-flash"}}}'
