// Package hostile holds the attacks a hook may make on the process that embeds the engine
// (SPEC §6.6), each run against a real engine in a child process so that the test can see
// the process survive, the next hook of the same event answer, the time each call took,
// and the child's peak resident memory. It has no code of its own: see hostile_test.go.
package hostile
