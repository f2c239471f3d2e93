//go:build unix

package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// On SIGHUP with a home that no longer loads, the server keeps answering with the hooks it
// had; cancelling its context (SIGTERM, SIGINT) drains and stops it with exit 0.
func TestServeKeepsHooksWhenReloadFails(t *testing.T) {
	home := guardHome(t, "guarded")
	sock := "unix:" + filepath.Join(t.TempDir(), "s.sock")
	srv := startServe(t, "--home", home, "--addr", sock)
	if got := fireGuard(t, sock); !strings.Contains(got, "guarded") {
		t.Fatalf("before the reload: %s", got)
	}
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("plugins: [\n"), 0o644)
	syscall.Kill(os.Getpid(), syscall.SIGHUP)
	srv.stderr.WaitFor(t, "reload failed; the running hooks stay", time.Minute)
	if got := fireGuard(t, sock); !strings.Contains(got, "guarded") {
		t.Errorf("after a failed reload: %s", got)
	}
	if code := srv.stop(); code != exitOK {
		t.Errorf("serve exited %d:\n%s", code, srv.stderr.String())
	}
	srv.stderr.WaitFor(t, "drained; stopped", time.Minute)
}

// The access log's last records are written when the server stops, before it says it
// stopped: here no record would be written otherwise (their delay is an hour).
func TestServeWritesTheAccessLogWhenItStops(t *testing.T) {
	defer func(d time.Duration) { accessLogDelay = d }(accessLogDelay)
	accessLogDelay = time.Hour
	sock := "unix:" + filepath.Join(t.TempDir(), "s.sock")
	srv := startServe(t, "--home", guardHome(t, "guarded"), "--addr", sock)
	if got := fireGuard(t, sock); !strings.Contains(got, "guarded") {
		t.Fatalf("the guard answered %s", got)
	}
	if strings.Contains(srv.stderr.String(), `"path":"/v1/hooks/pre_tool_call"`) {
		t.Fatalf("the record was written before its delay:\n%s", srv.stderr.String())
	}
	if code := srv.stop(); code != exitOK {
		t.Fatalf("serve exited %d:\n%s", code, srv.stderr.String())
	}
	out := srv.stderr.String()
	rec, stopped := strings.Index(out, `"path":"/v1/hooks/pre_tool_call","status":200`), strings.Index(out, "drained; stopped")
	if rec < 0 || stopped < 0 || rec > stopped {
		t.Errorf("the call's access log record is not written before the stop's message:\n%s", out)
	}
}

// Over TLS with a token, `hook claude --server https://...` gets the server's answer; without
// the token the server runs nothing and the command blocks, saying why.
func TestServeTLSAndTokens(t *testing.T) {
	home := guardHome(t, "guarded")
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writeSelfSigned(t, cert, key)
	t.Setenv("SSL_CERT_FILE", cert) // the client trusts the server's certificate
	var out strings.Builder
	if code := run(context.Background(), []string{"serve", "token", "add", "agent", "--home", home}, strings.NewReader(""), &out, io.Discard); code != exitOK {
		t.Fatalf("token add: %d", code)
	}
	token := strings.TrimSpace(out.String())
	srv := startServe(t, "--home", home, "--addr", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", key)
	m := regexp.MustCompile(`on (127\.0\.0\.1:\d+) `).FindStringSubmatch(srv.stderr.String())
	if m == nil {
		t.Fatalf("no address in %q", srv.stderr.String())
	}
	payload := `{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`
	ask := func() (int, string, string) {
		var so, se strings.Builder
		code := run(context.Background(), []string{"hook", "claude", "--server", "https://" + m[1]}, strings.NewReader(payload), &so, &se)
		return code, so.String(), se.String()
	}
	t.Setenv("HERMES_SERVER_TOKEN", token)
	if code, so, se := ask(); code != 0 || !strings.Contains(so, `"permissionDecisionReason":"guarded"`) {
		t.Errorf("with the token: %d %q %q", code, so, se)
	}
	t.Setenv("HERMES_SERVER_TOKEN", "hmt_wrong")
	if code, so, se := ask(); code != 2 || so != "" || !strings.Contains(se, "401 Unauthorized") {
		t.Errorf("with a wrong token: %d %q %q", code, so, se)
	}
}

// writeSelfSigned writes a certificate for 127.0.0.1 and its key.
func writeSelfSigned(t *testing.T, certFile, keyFile string) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
}

// A guard added to the managed home while the server runs is in force once it reloads.
func TestServeReloadsOnManagedChange(t *testing.T) {
	home := testutil.Home(t, map[string]string{"config.yaml": "{}\n"})
	managed := testutil.Home(t, map[string]string{"config.yaml": "{}\n"})
	t.Setenv("HERMES_MANAGED_HOME", managed)
	sock := "unix:" + filepath.Join(t.TempDir(), "s.sock")
	srv := startServe(t, "-v", "--home", home, "--addr", sock)
	testutil.WriteFiles(t, managed, map[string]string{
		"plugins/guard/plugin.yaml": "name: guard\n",
		"plugins/guard/handler.lua": `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw) return {action = "block", message = "managed guard"} end)
end`,
	})
	// The watch is armed in the background: touch the managed home until a reload says so
	// (the deadline only detects a watch that never comes).
	for deadline := time.Now().Add(time.Minute); !srv.stderr.Await("the managed home changed", 200*time.Millisecond); {
		if time.Now().After(deadline) {
			t.Fatalf("no reload after the managed home changed:\n%s", srv.stderr.String())
		}
		os.WriteFile(filepath.Join(managed, "config.yaml"), []byte("{}\n"), 0o644)
	}
	if got := fireGuard(t, sock); !strings.Contains(got, "managed guard") {
		t.Errorf("after the managed home changed: %s\n%s", got, srv.stderr.String())
	}
}

// guardHome is a home whose plugin blocks every tool call with message.
func guardHome(t *testing.T, message string) string {
	return testutil.Home(t, map[string]string{
		"plugins/guard/plugin.yaml": "name: guard\n",
		"plugins/guard/handler.lua": `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw) return {action = "block", message = "` + message + `"} end)
end`,
	})
}

// served is `hermesctl serve` running in the test, until stop ends it (as SIGTERM does).
type served struct {
	stderr testutil.Buffer
	cancel context.CancelFunc
	done   chan int
	once   sync.Once
	code   int
}

// startServe runs `hermesctl serve args...` and returns once it says it serves.
func startServe(t *testing.T, args ...string) *served {
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{cancel: cancel, done: make(chan int, 1)}
	t.Cleanup(func() { s.stop() })
	go func() {
		s.done <- run(ctx, append([]string{"serve"}, args...), strings.NewReader(""), io.Discard, &s.stderr)
	}()
	s.stderr.WaitFor(t, "serving ", time.Minute)
	return s
}

// stop ends the server, waits for it and returns its exit code.
func (s *served) stop() int {
	s.once.Do(func() { s.cancel(); s.code = <-s.done })
	return s.code
}

// fireGuard POSTs a tool call to /v1/hooks/pre_tool_call of the server at url (unix:PATH
// or http[s]://) with hook --server's client, and returns the answer.
func fireGuard(t *testing.T, url string) string {
	client, base := serverClient(url)
	resp, err := client.Post(base+"/v1/hooks/pre_tool_call", "application/json", strings.NewReader(`{"tool_name":"terminal","args":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
