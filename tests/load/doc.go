// Package load holds the load test of the hook engine: many concurrent conversations through
// the reference gateway runner, against a home full of plugins, gateway hooks and shell hooks
// that block, inject context, transform, observe, sleep, fail and time out. It has no code
// of its own: see load_test.go. Run it with `go test ./tests/load/ -run TestLoad -v`; -short
// skips it.
package load
