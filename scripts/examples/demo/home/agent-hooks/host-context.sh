#!/bin/sh
# pre_llm_call: tell the model where it runs.
cat >/dev/null
printf '{"context": "[shell] running on %s"}\n' "$(uname -s)"
