package procgroup

import "testing"

// BenchmarkKillMarkedNone is what Run.Kill adds to a run that left nothing: a listing of
// /proc and a look at the environments of pids newer than the run's leader (here, this
// process: none but itself) and, for comparison, at every process's.
func BenchmarkKillMarkedNone(b *testing.B) {
	b.Run("newer", func(b *testing.B) {
		since := lastPid()
		for b.Loop() {
			killMarked(MarkPrefix+"none=1", since)
		}
	})
	b.Run("every", func(b *testing.B) {
		for b.Loop() {
			killMarked(MarkPrefix+"none=1", 0)
		}
	})
}
