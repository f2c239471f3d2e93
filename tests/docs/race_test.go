//go:build race

package docs

// raceEnabled: the docs' snippets run a hermesctl built without the race detector, and
// their Go blocks are built with go build: the run without it does the same work.
const raceEnabled = true
