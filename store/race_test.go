//go:build race

package store

// raceEnabled: the race detector makes SQLite, a C library translated to Go, many times slower;
// the tests that fill a namespace through one goroutine run without it only.
const raceEnabled = true
