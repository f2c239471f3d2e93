//go:build race

package hostile

// raceEnabled: the race detector multiplies memory use, so peak RSS is not checked.
const raceEnabled = true
