package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// receiver starts, for the rest of a script, an HTTP server on loopback and writes its URL
// to the file named by the first argument. With "webhook SECRET" it is a webhook receiver
// that verifies each delivery with the Standard Webhooks library: 200 "verified <id>" or 401
// with the error. With "answer BODY" it answers every POST with BODY (a hook's answer).
//
//	receiver url.txt webhook whsec_...
//	receiver url.txt answer '{"action":"block","message":"no"}'
func receiver(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: receiver FILE webhook SECRET | receiver FILE answer BODY")
	}
	var h http.HandlerFunc
	switch args[1] {
	case "webhook":
		wh, err := standardwebhooks.NewWebhook(args[2])
		ts.Check(err)
		h = func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			if err := wh.Verify(body, r.Header); err != nil {
				http.Error(w, err.Error(), http.StatusUnauthorized)
				return
			}
			fmt.Fprintf(w, "verified %s", r.Header.Get("webhook-id"))
		}
	case "answer":
		h = func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, args[2]) }
	default:
		ts.Fatalf("receiver: unknown kind %q", args[1])
	}
	srv := httptest.NewServer(h)
	ts.Defer(srv.Close)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(strings.TrimSpace(srv.URL)), 0o644))
}
