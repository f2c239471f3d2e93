//go:build unix

package serverbench

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Bounds of one load phase: it stops at whichever comes first. SERVERBENCH_PHASE (a
// duration) changes the time.
const (
	phaseRequests  = 500_000
	requestTimeout = 10 * time.Second
)

func phaseTime() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("SERVERBENCH_PHASE")); err == nil && d > 0 {
		return d
	}
	return 3 * time.Second
}

// load is what one side measured over its phases.
type load struct {
	ok        int
	errors    int
	firstErr  string
	elapsed   time.Duration
	cpu       time.Duration // the process's CPU time: the server's, and the load's own
	latencies []time.Duration
}

// cpuPerDecision is the test process's CPU time per answered decision, in µs: the server's
// share and the load generator's, which costs about the same for both sides. Unlike the
// wall-clock numbers it barely moves when other processes compete for the cores.
func (l *load) cpuPerDecision() float64 {
	return float64(l.cpu) / float64(time.Microsecond) / float64(l.ok)
}

func (l *load) perSecond() float64 { return float64(l.ok) / l.elapsed.Seconds() }

func (l *load) quantile(q float64) float64 {
	slices.Sort(l.latencies)
	if len(l.latencies) == 0 {
		return 0
	}
	return float64(l.latencies[int(q*float64(len(l.latencies)-1))]) / float64(time.Millisecond)
}

// targets are the requests of the load, the inputs in turn, spread over the peers.
func targets(peers ...peer) []vegeta.Target {
	var ts []vegeta.Target
	for _, in := range inputs {
		for _, p := range peers {
			ts = append(ts, vegeta.Target{Method: "POST", URL: p.url, Body: p.body(in), Header: p.header})
		}
	}
	return ts
}

// run sends decisions to the targets from `clients` keep-alive clients, each sending its next
// request when the last was answered, for d or phaseRequests requests, and adds what it
// measured to into (nil: a warm-up).
func run(ts []vegeta.Target, clients int, d time.Duration, into *load) {
	atk := vegeta.NewAttacker(vegeta.Workers(uint64(clients)), vegeta.MaxWorkers(uint64(clients)),
		vegeta.Connections(clients), vegeta.MaxConnections(clients), vegeta.KeepAlive(true),
		vegeta.Timeout(requestTimeout), vegeta.MaxBody(0))
	start, cpu := time.Now(), cpuTime()
	n := 0
	for res := range atk.Attack(vegeta.NewStaticTargeter(ts...), vegeta.Rate{Freq: 0}, d, "") {
		n++
		if n >= phaseRequests {
			atk.Stop()
		}
		if into == nil {
			continue
		}
		if res.Error != "" || res.Code != http.StatusOK {
			into.errors++
			if into.firstErr == "" {
				into.firstErr = fmt.Sprintf("%d %s", res.Code, res.Error)
			}
			continue
		}
		into.ok++
		into.latencies = append(into.latencies, res.Latency)
	}
	if into != nil {
		into.elapsed += time.Since(start)
		into.cpu += cpuTime() - cpu
	}
}

// startFloor serves a constant answer on loopback TCP until the test ends: the load's own cost
// with a server that does nothing, to subtract from the others'.
func startFloor(tb testing.TB) peer {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	hs := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"hook":"pre_tool_call","outcome":null}`)
	})}
	go hs.Serve(l)
	tb.Cleanup(func() { hs.Close() })
	return peer{name: "floor", url: "http://" + l.Addr().String() + "/", body: func(kwargs string) []byte { return []byte(kwargs) }}
}

// floorEnv names the address a copy of the test binary serves the floor on (see TestMain).
const floorEnv = "SERVERBENCH_FLOOR_ADDR"

// serveFloor answers a constant at addr until the process is stopped.
func serveFloor(addr string) error {
	hs := &http.Server{Addr: addr, ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"hook":"pre_tool_call","outcome":null}`)
	})}
	return hs.ListenAndServe()
}

// BenchmarkServers loads the hook server (its token, access log and metrics on) and Open
// Policy Agent's server with the same guard, over loopback TCP, from 1, 16 and 256
// keep-alive clients. Each iteration is one phase of each, in turn (the order alternates);
// `-benchtime 3x` runs three. It reports each side's decisions per second and p50/p99, and
// the ratios ours/OPA; and the test process's CPU time per decision (the server's and the
// load's) of each, and of a floor, a server answering a constant, so that
// `server-cpu-ours/opa` compares what the two servers themselves cost.
func BenchmarkServers(b *testing.B) {
	ours, opa, floor := startOurs(b, guardHome), startOPA(b), startFloor(b)
	for _, clients := range []int{1, 16, 256} {
		b.Run("clients="+strconv.Itoa(clients), func(b *testing.B) {
			sides := []struct {
				p peer
				l load
			}{{p: ours}, {p: opa}, {p: floor}}
			for i := range sides {
				run(targets(sides[i].p), clients, phaseTime()/5, nil)
			}
			i := 0
			for b.Loop() {
				for j := range sides {
					s := &sides[(i+j)%len(sides)]
					run(targets(s.p), clients, phaseTime(), &s.l)
				}
				i++
			}
			for _, s := range sides {
				if s.l.errors > 0 {
					b.Errorf("%s: %d of %d requests failed, the first: %s", s.p.name, s.l.errors, s.l.errors+s.l.ok, s.l.firstErr)
				}
				b.ReportMetric(s.l.perSecond(), s.p.name+"-decisions/s")
				b.ReportMetric(s.l.quantile(0.5), s.p.name+"-p50-ms")
				b.ReportMetric(s.l.quantile(0.99), s.p.name+"-p99-ms")
				b.ReportMetric(s.l.cpuPerDecision(), s.p.name+"-cpu-us/decision")
			}
			b.ReportMetric(sides[0].l.perSecond()/sides[1].l.perSecond(), "throughput-ours/opa")
			b.ReportMetric(sides[0].l.quantile(0.99)/sides[1].l.quantile(0.99), "p99-ours/opa")
			b.ReportMetric(sides[0].l.cpuPerDecision()/sides[1].l.cpuPerDecision(), "cpu-ours/opa")
			f := sides[2].l.cpuPerDecision()
			b.ReportMetric((sides[0].l.cpuPerDecision()-f)/(sides[1].l.cpuPerDecision()-f), "server-cpu-ours/opa")
			b.ReportMetric(0, "ns/op")
			b.Logf("load average: %s", loadAverage())
		})
	}
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadAverage is the machine's 1, 5 and 15 minute load average, where /proc tells it.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
