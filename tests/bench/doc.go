// Package bench holds the performance benchmarks of the hook engine (go test -bench) and the
// reference workloads they are compared with. It has no code of its own: see bench_test.go,
// README.md (what each benchmark measures), cmd/compare (the ratio table against the targets)
// and docs/performance.md (the numbers and what they mean).
package bench
