#!/usr/bin/env bash
# The test command of the README: formatting, vet, and every test twice: without the race
# detector (which changes timing and memory use, so the limits are tested as they run in
# production) and with it.
set -euo pipefail
cd "$(dirname "$0")/.."
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" $unformatted >&2
  exit 1
fi
go vet ./...
# The library builds for the other systems a host may run on; tests that need a Unix say so.
for os in darwin windows; do GOOS=$os go vet ./...; done
go test -count=1 ./...
go test -race -count=1 ./...
# A host program with its own upstream gopher-lua beside the engine: a module of its own.
(cd tests/hostlua && go vet ./... && go test -count=1 ./... && go test -race -count=1 ./...)
