package engine

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/consent"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// An HTTP hook is consented like a command, keyed on its URL: not registered until its URL
// is approved, and an approval of another URL does not count.
func TestHTTPHookConsentIsPinnedToTheURL(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"action": "block", "message": "from the policy service"}`)
	}))
	defer srv.Close()
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "config.yaml"), "hooks:\n  pre_tool_call:\n    - type: http\n      url: "+srv.URL+"/guard\n      allow_private_network: true\n")
	open := func(accept bool) *Engine {
		e, err := New(context.Background(), Options{Home: home, ManagedHome: t.TempDir(), AcceptHooks: accept})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close(context.Background()) })
		return e
	}
	store := consent.Open(consent.DefaultPath(home), nil)
	store.Approve(context.Background(), hooknames.PreToolCall, srv.URL+"/other")
	if e := open(false); e.DecideTool(context.Background(), rmRF).Block != nil || e.ShellHooks()[0].Registered {
		t.Fatal("an HTTP hook ran without its URL approved")
	}
	if b := open(true).DecideTool(context.Background(), rmRF).Block; b == nil || b.Message != "from the policy service" {
		t.Fatalf("approved: got %+v, want the service's block", b)
	}
	list, _ := store.Approvals()
	found := false
	for _, a := range list {
		if a.Command == srv.URL+"/guard" {
			found = a.ScriptSHA256 == "" // a URL has no script to fingerprint
		}
	}
	if !found {
		t.Errorf("approvals %+v: want one for the URL, with no script hash", list)
	}
	e := open(false)
	if b := e.DecideTool(context.Background(), rmRF).Block; b == nil {
		t.Fatal("after approval, the hook did not run")
	}
	if s := e.ShellHooks()[0]; s.Type != "http" || !s.Consent.Approved || s.Consent.ContentDrift {
		t.Errorf("info %+v, want an approved http hook without drift", s)
	}
}

// A managed HTTP hook on loopback reaches its service when the policy names the URL, and is
// refused otherwise.
func TestManagedHTTPHookAllowedByPolicy(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"action": "block", "message": "managed service"}`)
	}))
	defer srv.Close()
	for _, allowed := range []bool{true, false} {
		policy := ""
		if allowed {
			policy = "policy:\n  allowed_http_urls: [\"" + srv.URL + "/*\"]\n"
		}
		mh, home := managedHomes(t, "hooks:\n  pre_tool_call:\n    - type: http\n      url: "+srv.URL+"/guard\n      fail_closed: true\n"+policy, map[string]string{"config.yaml": ""})
		e, logs := newManagedEngine(t, mh, home)
		b := e.DecideTool(context.Background(), rmRF).Block
		switch {
		case b == nil:
			t.Errorf("allowed=%v: not blocked", allowed)
		case allowed && b.Message != "managed service":
			t.Errorf("allowed by policy: %q, want the service's answer", b.Message)
		case !allowed && (!strings.Contains(b.Message, "failed closed (error)") || !strings.Contains(logs.String(), "loopback")):
			t.Errorf("not allowed: %q, want a fail_closed block, and the refusal logged:\n%s", b.Message, logs.String())
		}
	}
}

// A reload that changes the managed policy's allowed_http_urls applies to an HTTP hook that
// did not change: it is not kept with the URLs it started with.
func TestHTTPHookFollowsPolicyOnReload(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"action": "block", "message": "service"}`)
	}))
	defer srv.Close()
	hook := "hooks:\n  pre_tool_call:\n    - type: http\n      url: " + srv.URL + "/guard\n      fail_closed: true\n"
	mh, home := managedHomes(t, hook+"policy:\n  allowed_http_urls: [\""+srv.URL+"/*\"]\n", map[string]string{"config.yaml": ""})
	e, logs := newManagedEngine(t, mh, home)
	if b := e.DecideTool(context.Background(), rmRF).Block; b == nil || b.Message != "service" {
		t.Fatalf("allowed: %+v", b)
	}
	writeFile(t, filepath.Join(mh, "config.yaml"), hook)
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b := e.DecideTool(context.Background(), rmRF).Block; b == nil || !strings.Contains(logs.String(), "loopback") {
		t.Fatalf("after the policy dropped the URL: %+v, want a block, and the refusal logged:\n%s", b, logs.String())
	}
}

// An http hook is named by its URL without query values in everything the engine reports
// of it: its result's name and errors, the block it fails closed with, and the logs, for a
// hook that runs in the call and one that runs in the background.
func TestHTTPHookReportedWithoutQueryValues(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"decison": "block"}`) // an answer that does nothing
	}))
	defer srv.Close()
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "config.yaml"), "hooks:\n  pre_tool_call:\n"+
		"    - {type: http, url: '"+srv.URL+"/guard?token=Q5ecret', allow_private_network: true, fail_closed: true}\n"+
		"    - {type: http, url: '"+srv.URL+"/watch?token=Q5ecret', allow_private_network: true, dialect: claude, async: true}\n")
	logs := &testutil.Buffer{}
	e, err := New(context.Background(), Options{Home: home, ManagedHome: t.TempDir(), AcceptHooks: true, Logger: newTestLogger(logs)})
	if err != nil {
		t.Fatal(err)
	}
	rep := e.Fire(context.Background(), hookspec.PreToolCall, rmRF.Kwargs(false))
	e.Close(context.Background()) // the background hook has ended
	shown, _ := json.Marshal(rep)
	if b := rep.Block(); b == nil || !strings.Contains(b.Message, "token=[redacted]") {
		t.Errorf("block %+v, want one naming the hook", b)
	} else {
		shown = append(shown, b.Message+b.Hook...)
	}
	if len(rep.Hooks) != 2 || rep.Hooks[1].Name != srv.URL+"/watch?token=[redacted]" {
		t.Errorf("hooks %+v, want both named without query values", rep.Hooks)
	}
	if s := string(shown) + logs.String(); strings.Contains(s, "Q5ecret") {
		t.Errorf("a query value is shown:\n%s", s)
	}
}
