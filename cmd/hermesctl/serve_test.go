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
	"net/http"
	"os"
	"path/filepath"
	"regexp"
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

// Over TLS with a token, `hook claude --server https://...` gets the server's answer; without
// the token the server runs nothing and the command blocks, saying why.
func TestServeTLSAndTokens(t *testing.T) {
	home := testutil.Home(t, map[string]string{
		"plugins/guard/plugin.yaml": "name: guard\n",
		"plugins/guard/handler.lua": `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw) return {action = "block", message = "guarded"} end)
end`,
	})
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writeSelfSigned(t, cert, key)
	t.Setenv("SSL_CERT_FILE", cert) // the client trusts the server's certificate
	var out strings.Builder
	if code := run(context.Background(), []string{"serve", "token", "add", "agent", "--home", home}, strings.NewReader(""), &out, io.Discard); code != exitOK {
		t.Fatalf("token add: %d", code)
	}
	token := strings.TrimSpace(out.String())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr testutil.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--home", home, "--addr", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", key}, strings.NewReader(""), io.Discard, &stderr)
	}()
	stderr.WaitFor(t, "serving ", time.Minute)
	m := regexp.MustCompile(`on (127\.0\.0\.1:\d+) `).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no address in %q", stderr.String())
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
	cancel()
	<-done
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
	sock := filepath.Join(t.TempDir(), "s.sock")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr testutil.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "-v", "--home", home, "--addr", "unix:" + sock}, strings.NewReader(""), io.Discard, &stderr)
	}()
	stderr.WaitFor(t, "serving ", time.Minute)
	testutil.WriteFiles(t, managed, map[string]string{
		"plugins/guard/plugin.yaml": "name: guard\n",
		"plugins/guard/handler.lua": `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw) return {action = "block", message = "managed guard"} end)
end`,
	})
	// The watch is armed in the background: touch the managed home until a reload says so
	// (the deadline only detects a watch that never comes).
	for deadline := time.Now().Add(time.Minute); !stderr.Await("the managed home changed", 200*time.Millisecond); {
		if time.Now().After(deadline) {
			t.Fatalf("no reload after the managed home changed:\n%s", stderr.String())
		}
		os.WriteFile(filepath.Join(managed, "config.yaml"), []byte("{}\n"), 0o644)
	}
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	resp, err := client.Post("http://unix/v1/hooks/pre_tool_call", "application/json", strings.NewReader(`{"tool_name":"terminal","args":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "managed guard") {
		t.Errorf("after the managed home changed: %s\n%s", b, stderr.String())
	}
	cancel()
	<-done
}
