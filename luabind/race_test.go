//go:build race

package luabind

// raceEnabled: the race detector multiplies the memory and time of the heaviest tests.
const raceEnabled = true
