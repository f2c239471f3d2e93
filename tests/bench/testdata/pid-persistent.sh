#!/bin/sh
# pre_llm_call, persistent: answers every payload line with its own pid as the context.
while IFS= read -r line; do
  printf '{"context":"%s"}\n' "$$"
done
