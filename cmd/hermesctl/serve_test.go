//go:build unix

package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// On SIGHUP with a home that no longer loads, the server keeps answering with the hooks it
// had; cancelling its context (SIGTERM, SIGINT) drains and stops it with exit 0.
func TestServeKeepsHooksWhenReloadFails(t *testing.T) {
	home := testutil.Home(t, map[string]string{
		"plugins/guard/plugin.yaml": "name: guard\n",
		"plugins/guard/handler.lua": `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw) return {action = "block", message = "guarded"} end)
end`,
	})
	sock := filepath.Join(t.TempDir(), "s.sock")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr testutil.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--home", home, "--addr", "unix:" + sock}, strings.NewReader(""), io.Discard, &stderr)
	}()
	stderr.WaitFor(t, "serving ", time.Minute)
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	call := func() string {
		resp, err := client.Post("http://unix/v1/hooks/pre_tool_call", "application/json", strings.NewReader(`{"tool_name":"terminal","args":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	if got := call(); !strings.Contains(got, "guarded") {
		t.Fatalf("before the reload: %s", got)
	}
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("plugins: [\n"), 0o644)
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	stderr.WaitFor(t, "reload failed; the running hooks stay", time.Minute)
	if got := call(); !strings.Contains(got, "guarded") {
		t.Errorf("after a failed reload: %s", got)
	}
	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("serve exited %d:\n%s", code, stderr.String())
	}
	stderr.WaitFor(t, "drained; stopped", time.Minute)
}
