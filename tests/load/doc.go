// Package load holds the load test of the hook engine: many concurrent conversations through
// the reference gateway runner, against a home full of plugins, gateway hooks and shell hooks
// that block, inject context, transform, observe, sleep, fail and time out. It has no code
// of its own: see load_test.go, and reload_test.go, which runs 64 sessions at a time while
// the home is reloaded every 100ms with handler files rewritten, and checks that every event
// is handled or counted as dropped, in order, and that nothing is left after Close. Run them
// with `go test ./tests/load/ -v`; -short skips them.
package load
