package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// httpsProxy starts, for the rest of a script, an HTTPS proxy on loopback that stands in for
// every host: it answers CONNECT, speaks TLS with a certificate for the host signed by a test
// CA, answers each request 200 "{}", and appends "METHOD https://host/path BODY" to the log
// file. It writes the CA to ca.pem and sets HTTPS_PROXY and SSL_CERT_FILE, so that a
// program's calls to any https URL reach it.
//
//	httpsproxy requests.log
func httpsProxy(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: httpsproxy LOGFILE")
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ts.Check(err)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "hermes test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	ts.Check(err)
	ca, err := x509.ParseCertificate(caDER)
	ts.Check(err)
	caFile := ts.MkAbs("ca.pem")
	ts.Check(os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o644))
	leaf := func(host string) (*tls.Certificate, error) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, err
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: host},
			DNSNames: []string{host}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return nil, err
		}
		return &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
	}
	var mu sync.Mutex
	logFile := ts.MkAbs(args[0])
	record := func(line string) {
		mu.Lock()
		defer mu.Unlock()
		f, err := os.OpenFile(logFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintln(f, line)
			f.Close()
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	ts.Defer(func() { ln.Close() })
	serve := func(c net.Conn) {
		defer c.Close()
		br := bufio.NewReader(c)
		req, err := http.ReadRequest(br)
		if err != nil || req.Method != http.MethodConnect {
			io.WriteString(c, "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
			return
		}
		host, _, _ := net.SplitHostPort(req.Host)
		io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
		tc := tls.Server(c, &tls.Config{GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return leaf(host) },
			NextProtos: []string{"http/1.1"}})
		tr := bufio.NewReader(tc)
		for {
			r, err := http.ReadRequest(tr)
			if err != nil {
				return
			}
			body, _ := io.ReadAll(r.Body)
			record(fmt.Sprintf("%s https://%s%s %s", r.Method, host, r.URL.RequestURI(), strings.TrimSpace(string(body))))
			io.WriteString(tc, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
		}
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	ts.Setenv("HTTPS_PROXY", "http://"+ln.Addr().String())
	ts.Setenv("https_proxy", "http://"+ln.Addr().String())
	ts.Setenv("SSL_CERT_FILE", caFile)
	ts.Setenv("NO_PROXY", "")
}

// pythonWithModule is a python3 (3.9 or later) that can import module: the one on $PATH,
// else the system's /usr/bin/python3; "" when none can.
func pythonWithModule(module string) string {
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		path, err := exec.LookPath(py)
		if err == nil && exec.Command(path, "-c", "import sys\nassert sys.version_info >= (3, 9)\nimport "+module).Run() == nil {
			return path
		}
	}
	return ""
}

// pythonWith puts first on $PATH a python3 that can import module (pythonWithModule); where
// none can, the script fails saying what to install (a script checks [pymod:MODULE] first,
// which is true where CI requires Python, HERMES_REQUIRE_PYTHON).
//
//	[!pymod:httpx] skip
//	pythonwith httpx
func pythonWith(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: pythonwith MODULE")
	}
	if path := pythonWithModule(args[0]); path != "" {
		bin := ts.MkAbs(".pythonwith")
		ts.Check(os.MkdirAll(bin, 0o755))
		ts.Check(os.Symlink(path, filepath.Join(bin, "python3")))
		ts.Setenv("PATH", bin+string(os.PathListSeparator)+ts.Getenv("PATH"))
		return
	}
	ts.Fatalf("no python3 3.9 or later that imports %s: install Debian's python3-%s", args[0], args[0])
}
