package procgroup

import "testing"

// BenchmarkKillMarkedNone is what Run.Kill adds to a run that left nothing: one look at
// every process's environment.
func BenchmarkKillMarkedNone(b *testing.B) {
	for b.Loop() {
		killMarked(MarkPrefix + "none=1")
	}
}
