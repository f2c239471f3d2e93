//go:build linux

package serverbench

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A server process of BenchmarkServerProcesses: the process, and the peer to load.
type serverProcess struct {
	peer
	cmd *exec.Cmd
	log *headWriter
}

// cpu is the CPU time the server process has used so far, user and system, from
// /proc/PID/stat (in clock ticks of 10 ms).
func (s *serverProcess) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which may hold spaces): state is the first, utime
	// the 12th, stime the 13th.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// headWriter keeps the first 64 KiB written to it (a server's start-up messages) and
// discards the rest (its access log).
type headWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *headWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if room := 64<<10 - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (w *headWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// splitCPUs divides the CPUs this process may run on: the servers get the last half, the load
// the rest. It needs two CPUs and taskset(1) to start a process on a set of them.
func splitCPUs() (load, servers []int, why string) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, nil, err.Error()
	}
	var cpus []int
	for c := 0; c < 1024; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) < 2 {
		return nil, nil, fmt.Sprintf("this process may run on %d CPU; the servers and the load need one each", len(cpus))
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		return nil, nil, "taskset(1) is not installed (util-linux)"
	}
	half := len(cpus) / 2
	return cpus[:half], cpus[half:], ""
}

// pinTo moves every thread of this process (and so every thread they start) to cpus and sets
// GOMAXPROCS to match, until the returned function puts them back.
func pinTo(tb testing.TB, cpus []int) func() {
	var old, set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		tb.Fatal(err)
	}
	for _, c := range cpus {
		set.Set(c)
	}
	apply := func(s *unix.CPUSet) {
		// Twice: a thread started while the first pass ran inherits its starter's set.
		for range 2 {
			tasks, err := os.ReadDir("/proc/self/task")
			if err != nil {
				tb.Fatal(err)
			}
			for _, t := range tasks {
				if tid, err := strconv.Atoi(t.Name()); err == nil {
					unix.SchedSetaffinity(tid, s)
				}
			}
		}
	}
	procs := runtime.GOMAXPROCS(len(cpus))
	apply(&set)
	return func() { apply(&old); runtime.GOMAXPROCS(procs) }
}

// freeAddr is a loopback address with a port nothing listens on at the moment.
func freeAddr(tb testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startProcess runs argv on cpus (through taskset) until the test ends, and waits until
// health answers 200.
func startProcess(tb testing.TB, name string, cpus []int, argv []string, env []string, health string) *serverProcess {
	tb.Helper()
	list := make([]string, len(cpus))
	for i, c := range cpus {
		list[i] = strconv.Itoa(c)
	}
	cmd := exec.Command("taskset", append([]string{"-c", strings.Join(list, ",")}, argv...)...)
	cmd.Env = env
	log := &headWriter{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	tb.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	// Wait for the process to listen: a bounded poll of its health endpoint.
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(30 * time.Second); ; {
		if resp, err := client.Get(health); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case <-exited:
			tb.Fatalf("%s exited: %s", name, log.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%s did not answer %s within 30 s: %s", name, health, log.String())
		}
	}
	return &serverProcess{cmd: cmd, log: log}
}

// startOursProcess runs `hermesctl serve` with the guard's home and a bearer token on cpus.
func startOursProcess(tb testing.TB, cpus []int) *serverProcess {
	hermesctl, _ := binaries(tb)
	home := filepath.Join(tb.TempDir(), "home")
	if err := os.CopyFS(home, os.DirFS(guardHome)); err != nil {
		tb.Fatal(err)
	}
	env := append(os.Environ(), "HERMES_MANAGED_HOME="+tb.TempDir())
	add := exec.Command(hermesctl, "serve", "token", "add", "bench", "--home", home)
	add.Env = env
	tok, err := add.Output()
	if err != nil {
		tb.Fatalf("serve token add: %v", err)
	}
	addr := freeAddr(tb)
	s := startProcess(tb, "hermesctl serve", cpus, []string{hermesctl, "serve", "--home", home, "--addr", addr}, env, "http://"+addr+"/readyz")
	s.peer = peer{
		name:   "hermes",
		url:    "http://" + addr + "/v1/hooks/pre_tool_call",
		header: http.Header{"Authorization": {"Bearer " + strings.TrimSpace(string(tok))}, "Content-Type": {"application/json"}},
		body:   func(kwargs string) []byte { return []byte(kwargs) },
	}
	return s
}

// startOPAProcess runs `opa run --server` with the Rego guard on cpus: its defaults, its log
// at the error level.
func startOPAProcess(tb testing.TB, cpus []int) *serverProcess {
	_, opa := binaries(tb)
	addr := freeAddr(tb)
	s := startProcess(tb, "opa run", cpus, []string{opa, "run", "--server", "--addr", addr, "--log-level", "error", guardRego}, os.Environ(), "http://"+addr+"/health")
	s.peer = peer{
		name:   "opa",
		url:    "http://" + addr + "/v1/data/guard/decision",
		header: http.Header{"Content-Type": {"application/json"}},
		body:   func(kwargs string) []byte { return []byte(`{"input":` + kwargs + `}`) },
	}
	return s
}

// startFloorProcess runs the floor (a constant answer) in a copy of this test binary on cpus.
func startFloorProcess(tb testing.TB, cpus []int) *serverProcess {
	addr := freeAddr(tb)
	s := startProcess(tb, "floor", cpus, []string{os.Args[0]}, append(os.Environ(), floorEnv+"="+addr), "http://"+addr+"/")
	s.peer = peer{name: "floor", url: "http://" + addr + "/", body: func(kwargs string) []byte { return []byte(kwargs) }}
	return s
}

// BenchmarkServerProcesses loads `hermesctl serve` (its token, JSON access log and metrics
// on) and `opa run --server` with the same guard, each a process of its own, as deployed,
// over loopback TCP from 1, 16 and 256 keep-alive connections (rawRun, each sending its
// next request when the last is answered). Here
// the servers run on CPUs of their own (the last half of those this process may use, one
// of two) and the load generator on the others, so that neither takes the other's CPU:
// what is measured is the server, not the load generator. It reports each side's decisions
// per second, p50/p99 and the server process's CPU time per decision, and the ratios
// ours/OPA. A floor (a constant answer, in a process of its own) shows the most any server
// could do on this setup.
func BenchmarkServerProcesses(b *testing.B) {
	loadCPUs, serverCPUs, why := splitCPUs()
	if why != "" {
		b.Skip(why)
	}
	ours, opa, floor := startOursProcess(b, serverCPUs), startOPAProcess(b, serverCPUs), startFloorProcess(b, serverCPUs)
	defer pinTo(b, loadCPUs)()
	servers := []*serverProcess{ours, opa, floor}
	for _, clients := range []int{1, 16, 256} {
		b.Run("clients="+strconv.Itoa(clients), func(b *testing.B) {
			loads := make([]load, len(servers))
			serverCPU := make([]time.Duration, len(servers))
			for _, s := range servers {
				rawRun(s.peer, clients, phaseTime()/5, nil)
			}
			i := 0
			for b.Loop() {
				for j := range servers {
					k := (i + j) % len(servers) // the order alternates
					before := servers[k].cpu()
					rawRun(servers[k].peer, clients, phaseTime(), &loads[k])
					serverCPU[k] += servers[k].cpu() - before
				}
				i++
			}
			cpuPer := func(k int) float64 {
				return float64(serverCPU[k]) / float64(time.Microsecond) / float64(loads[k].ok)
			}
			for k, s := range servers {
				l := &loads[k]
				if l.errors > 0 {
					b.Errorf("%s: %d of %d requests failed, the first: %s", s.name, l.errors, l.errors+l.ok, l.firstErr)
				}
				b.ReportMetric(l.perSecond(), s.name+"-decisions/s")
				b.ReportMetric(l.quantile(0.5), s.name+"-p50-ms")
				b.ReportMetric(l.quantile(0.99), s.name+"-p99-ms")
				b.ReportMetric(cpuPer(k), s.name+"-server-cpu-us/decision")
			}
			b.ReportMetric(loads[0].perSecond()/loads[1].perSecond(), "throughput-ours/opa")
			b.ReportMetric(loads[0].quantile(0.99)/loads[1].quantile(0.99), "p99-ours/opa")
			b.ReportMetric(cpuPer(0)/cpuPer(1), "server-cpu-ours/opa")
			b.ReportMetric(0, "ns/op")
			b.Logf("servers on CPUs %v, load on %v; load average: %s", serverCPUs, loadCPUs, loadAverage())
		})
	}
}
