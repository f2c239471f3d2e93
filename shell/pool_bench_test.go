//go:build unix

package shell

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
)

// BenchmarkPersistentInstances fires a persistent hook from 16 goroutines at once; the hook
// takes 2ms to answer each line (waiting, as a script that asks a service does, not
// computing). With one instance the firings queue behind one process; with 4, four answer at
// once. p50-ms and p99-ms are percentiles of a firing's latency.
func BenchmarkPersistentInstances(b *testing.B) {
	if _, err := exec.LookPath("perl"); err != nil {
		b.Skip("perl not found")
	}
	const body = `exec perl -ne 'BEGIN { $| = 1 } select(undef, undef, undef, 0.002); print "{}\n"'`
	for _, n := range []int{1, 4} {
		b.Run(fmt.Sprintf("instances=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "slow.sh")
			if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
				b.Fatal(err)
			}
			h := &Hook{Event: "pre_llm_call", Command: path, Argv: []string{path}, Timeout: 10 * time.Second, Persistent: true, Instances: n}
			defer h.Close()
			kw := map[string]any{"session_id": "s"}
			if res := h.Run(context.Background(), kw, RunOptions{}); res.Status != hookspec.StatusOK {
				b.Fatal(res.Err)
			}
			var mu sync.Mutex
			var lat []time.Duration
			b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0)))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				var mine []time.Duration
				for pb.Next() {
					start := time.Now()
					if res := h.Run(context.Background(), kw, RunOptions{}); res.Status != hookspec.StatusOK {
						b.Error(res.Err)
						return
					}
					mine = append(mine, time.Since(start))
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			})
			b.StopTimer()
			slices.Sort(lat)
			if len(lat) > 0 {
				b.ReportMetric(float64(lat[len(lat)/2])/float64(time.Millisecond), "p50-ms")
				b.ReportMetric(float64(lat[len(lat)*99/100])/float64(time.Millisecond), "p99-ms")
			}
		})
	}
}

// BenchmarkPersistentFiring is the engine's own cost of a persistent hook's firing: 16
// goroutines fire a pre_tool_call hook of 4 instances whose process answers each line with
// its request_id at once. engine-cpu-us/op is the CPU time of this process alone (payload,
// pipes, answer, instance pick and wait), without the co-processes'.
func BenchmarkPersistentFiring(b *testing.B) {
	if _, err := exec.LookPath("perl"); err != nil {
		b.Skip("perl not found")
	}
	const body = `exec perl -ne 'BEGIN { $| = 1 } /"request_id":"([^"]*)"/; print "{\"request_id\":\"$1\"}\n"'`
	path := filepath.Join(b.TempDir(), "echo.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		b.Fatal(err)
	}
	h := &Hook{Event: "pre_tool_call", Command: path, Argv: []string{path}, Timeout: 10 * time.Second, Persistent: true,
		Instances: 4, FailClosed: true}
	defer h.Close()
	kw := map[string]any{"tool_name": "terminal", "args": map[string]any{"command": "ls -la"}, "session_id": "s", "tool_call_id": "c1"}
	opts := RunOptions{Cwd: "/tmp"}
	if res := h.Run(context.Background(), kw, opts); res.Status != hookspec.StatusOK || res.Err != "" {
		b.Fatal(res.Err)
	}
	b.ReportAllocs()
	b.SetParallelism(max(1, 16/runtime.GOMAXPROCS(0)))
	before := selfCPU(b)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if res := h.Run(context.Background(), kw, opts); res.Status != hookspec.StatusOK || res.Err != "" {
				b.Error(res.Err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64((selfCPU(b)-before).Microseconds())/float64(b.N), "engine-cpu-us/op")
}

// selfCPU is the CPU time this process used so far, user and system, without its children.
func selfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
