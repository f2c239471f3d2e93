package store

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// BenchmarkSQLiteIncrParallel is store.incr from many calls at once (one key per caller),
// the shape of a counting guard under load: writers must not wait on SQLite's busy sleeps.
func BenchmarkSQLiteIncrParallel(b *testing.B) {
	for _, callers := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			s, err := Open(b.TempDir(), Config{})
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

// BenchmarkRedisIncrParallel is store.incr on Redis from many calls at once (one key per
// caller): calls that wait together go in one pipeline.
func BenchmarkRedisIncrParallel(b *testing.B) {
	r := testutil.StartRedis(b)
	for _, callers := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("callers=%d", callers), func(b *testing.B) {
			s, err := Open("", Config{URL: r.URL})
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
