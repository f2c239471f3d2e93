#!/usr/bin/env bash
# The test command of the README: formatting, vet, and every test twice: without the race
# detector (which changes timing and memory use, so the limits are tested as they run in
# production) and with it. Every stage runs even when one before it failed, so one failing
# test never hides what the others would say; a summary at the end names each stage that
# failed, and the exit status is 1 when any did.
set -uo pipefail
cd "$(dirname "$0")/.."

failed=()
stage() { # stage NAME COMMAND...: runs the command, timed, and remembers a failure
  local name=$1 start=$SECONDS
  shift
  echo "== $name"
  if "$@"; then
    echo "== $name: ok ($((SECONDS - start)) s)"
  else
    echo "== $name: FAILED ($((SECONDS - start)) s)"
    failed+=("$name")
  fi
}

gofmt_check() {
  local unformatted
  unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
  if [ -n "$unformatted" ]; then
    echo "gofmt would change:" $unformatted >&2
    return 1
  fi
}

# The library builds for the other systems a host may run on; tests that need a Unix say so.
vet_all() { go vet ./... && GOOS=darwin go vet ./... && GOOS=windows go vet ./...; }

# A host program with its own upstream gopher-lua beside the engine: a module of its own.
hostlua() { (cd tests/hostlua && go vet ./... && go test -count=1 -timeout 30m ./... && go test -race -count=1 -timeout 30m ./...); }

stage gofmt gofmt_check
stage vet vet_all
# go test's default 10-minute bound per package is a hang detector, and the command-line
# package's scripts under -race come near it on a busy 2-core machine: the bound is raised,
# not removed. Much of the tests' time is spent waiting (on the processes they start, on
# timeouts they check), so four packages run at once rather than one per core.
stage "go test" go test -p 4 -count=1 -timeout 30m ./...
stage "go test -race" go test -p 4 -race -count=1 -timeout 30m ./...
stage tests/hostlua hostlua

echo
if [ ${#failed[@]} -gt 0 ]; then
  printf 'FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "all stages passed ($SECONDS s)"
