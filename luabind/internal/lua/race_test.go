//go:build race

package lua

// raceEnabled: the race detector makes the interpreter several times slower; the tests that
// run many operation sequences run fewer of them, those that only run programs in one
// goroutine (Lua 5.1's scripts, the comparisons with C Lua) are skipped: the run without it
// runs them all.
const raceEnabled = true
