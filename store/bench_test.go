package store

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// BenchmarkSQLiteIncrParallel is store.incr from many calls at once (one key per caller),
// the shape of a counting guard under load: writers must not wait on SQLite's busy sleeps,
// and calls that wait together share a transaction.
func BenchmarkSQLiteIncrParallel(b *testing.B) {
	benchIncrParallel(b, func(b *testing.B) (Backend, error) { return Open(b.TempDir(), Config{}) })
}

// BenchmarkRedisIncrParallel is store.incr on Redis from many calls at once (one key per
// caller): calls that wait together go in one pipeline.
func BenchmarkRedisIncrParallel(b *testing.B) {
	r := testutil.StartRedis(b)
	benchIncrParallel(b, func(*testing.B) (Backend, error) { return Open("", Config{URL: r.URL}) })
}

// benchIncrParallel runs store.incr from 1, 4 and 16 callers per core on the store open
// makes, each caller with its own key.
func benchIncrParallel(b *testing.B, open func(b *testing.B) (Backend, error)) {
	for _, callers := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			s, err := open(b)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			var next atomic.Int64
			b.SetParallelism(callers)
			b.RunParallel(func(pb *testing.PB) {
				key := fmt.Sprint("k", next.Add(1))
				for pb.Next() {
					if _, err := s.Incr(context.Background(), "ns", key, 1, 0); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkSQLiteIncrAlone is store.incr on SQLite from one caller, the load of a gateway
// that is not saturated: back to back, and with a pause between calls (the processor may
// sleep meanwhile). It reports the latency's median and 99th percentile (p50-ns, p99-ns).
func BenchmarkSQLiteIncrAlone(b *testing.B) {
	benchIncrAlone(b, func(b *testing.B) (Backend, error) { return Open(b.TempDir(), Config{}) })
}

// BenchmarkRedisIncrAlone is BenchmarkSQLiteIncrAlone on Redis.
func BenchmarkRedisIncrAlone(b *testing.B) {
	r := testutil.StartRedis(b)
	benchIncrAlone(b, func(*testing.B) (Backend, error) { return Open("", Config{URL: r.URL}) })
}

func benchIncrAlone(b *testing.B, open func(b *testing.B) (Backend, error)) {
	for _, gap := range []time.Duration{0, time.Millisecond} {
		b.Run(fmt.Sprintf("gap=%v", gap), func(b *testing.B) {
			s, err := open(b)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			ctx, cancel := context.WithCancel(context.Background()) // a hook's call can end at any time
			defer cancel()
			took := make([]time.Duration, 0, b.N)
			for b.Loop() {
				if gap > 0 {
					b.StopTimer()
					time.Sleep(gap)
					b.StartTimer()
				}
				start := time.Now()
				if _, err := s.Incr(ctx, "ns", "k", 1, 0); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "p50-ns")
			b.ReportMetric(float64(took[len(took)*99/100].Nanoseconds()), "p99-ns")
		})
	}
}
