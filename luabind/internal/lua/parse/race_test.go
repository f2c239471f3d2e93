//go:build race

package parse

// raceEnabled: the parser runs in one goroutine; the deepest programs are parsed by
// the run without it.
const raceEnabled = true
