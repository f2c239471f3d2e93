package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/rogpeppe/go-internal/testscript"
)

// waitServe waits until the server at a unix socket answers /healthz: a server started in
// the background (exec hermesctl serve ... &) creates its socket when it listens, and the
// directory's watch says when. The deadline only detects a server that never comes up.
//
//	waitserve unix:$WORK/hermes.sock
func waitServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 || !strings.HasPrefix(args[0], "unix:") {
		ts.Fatalf("usage: waitserve unix:PATH")
	}
	path := strings.TrimPrefix(args[0], "unix:")
	w, err := fsnotify.NewWatcher()
	if err != nil {
		ts.Fatalf("waitserve: %v", err)
	}
	defer w.Close()
	if err := w.Add(filepath.Dir(path)); err != nil {
		ts.Fatalf("waitserve: %v", err)
	}
	timeout := time.After(time.Minute)
	for { // watched first, then looked for: a socket made in between is seen either way
		if _, err := os.Stat(path); err == nil {
			break
		}
		select {
		case <-w.Events:
		case err := <-w.Errors:
			ts.Fatalf("waitserve: %v", err)
		case <-timeout:
			ts.Fatalf("waitserve: %s did not appear within a minute", path)
		}
	}
	// Listening: a connection waits in the backlog until the server accepts it.
	client, base := serverClient(args[0]) // hook --server's own client
	resp, err := client.Get(base + "/healthz")
	if err != nil {
		ts.Fatalf("waitserve: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		ts.Fatalf("waitserve: /healthz answered %s", resp.Status)
	}
}
