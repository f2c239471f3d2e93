package testutil

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Redis is a redis-server the test started on a free port of 127.0.0.1, stopped when the
// test ends.
type Redis struct {
	URL  string // redis://127.0.0.1:<port>/0
	Addr string
	t    testing.TB
	cmd  *exec.Cmd
	port int
}

// StartRedis starts a redis-server with no persistence, or skips the test, saying how to
// install one, when none is on $PATH.
func StartRedis(t testing.TB) *Redis {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Skip("redis-server not found on $PATH: install it (apt-get install redis-server) to run the Redis tests")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	r := &Redis{t: t, port: port, Addr: fmt.Sprintf("127.0.0.1:%d", port)}
	r.URL = "redis://" + r.Addr + "/0"
	r.Start()
	t.Cleanup(r.Stop)
	return r
}

// Start (re)starts the server on its port and waits until it answers PING.
func (r *Redis) Start() {
	r.t.Helper()
	r.cmd = exec.Command("redis-server", "--port", fmt.Sprint(r.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--protected-mode", "no")
	if err := r.cmd.Start(); err != nil {
		r.t.Fatalf("redis-server: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if r.ping() {
			return
		}
		if time.Now().After(deadline) {
			r.Stop()
			r.t.Fatalf("redis-server on %s did not answer PING within 10s", r.Addr)
		}
		time.Sleep(10 * time.Millisecond) // polling a process that is starting, not synchronising goroutines
	}
}

// Stop kills the server and waits for it to exit.
func (r *Redis) Stop() {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	r.cmd.Process.Kill()
	r.cmd.Wait()
	r.cmd = nil
}

func (r *Redis) ping() bool {
	c, err := net.DialTimeout("tcp", r.Addr, 200*time.Millisecond)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	fmt.Fprint(c, "PING\r\n")
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}
