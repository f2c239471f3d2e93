#!/bin/sh
# The persistent twin of noop-hook.sh written as the plain shell loop of the docs.
while IFS= read -r line; do
  echo '{}'
done
