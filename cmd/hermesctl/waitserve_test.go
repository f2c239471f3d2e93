package main

import (
	"context"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// waitServe waits until the server at a unix socket answers /healthz: a server started in
// the background (exec hermesctl serve ... &) takes a moment to listen. The deadline only
// detects a server that never comes up.
//
//	waitserve unix:$WORK/hermes.sock
func waitServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 || !strings.HasPrefix(args[0], "unix:") {
		ts.Fatalf("usage: waitserve unix:PATH")
	}
	path := strings.TrimPrefix(args[0], "unix:")
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", path)
	}}}
	deadline := time.Now().Add(time.Minute)
	for {
		resp, err := client.Get("http://unix/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitserve: %s did not answer within a minute: %v", args[0], err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
