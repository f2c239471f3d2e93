//go:build race

package load

// raceEnabled: the race detector slows every call down many times, so the figures of the
// dependency load test mean nothing under it.
const raceEnabled = true
