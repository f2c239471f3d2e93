#!/bin/sh
# The project's tests: add(2, 3) must be 5.
grep -q 'return a + b' src/add.go && echo "ok  add" && exit 0
echo "--- FAIL: TestAdd: add(2, 3) = -1, want 5"
exit 1
