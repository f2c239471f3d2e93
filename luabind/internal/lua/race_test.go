//go:build race

package lua

// raceEnabled: the race detector makes the interpreter several times slower; the tests that
// run many generated programs or operation sequences run fewer of them (as with -short),
// the run without it runs them all.
const raceEnabled = true
