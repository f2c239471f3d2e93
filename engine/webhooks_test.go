package engine

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

const testSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

func webhookEnv(name string) string {
	if name == "HOOK_SECRET" {
		return testSecret
	}
	return ""
}

// A tool call with no hook at all is still delivered to a webhook that wants it, signed,
// and the call does not wait for the delivery.
func TestWebhookDeliversToolCalls(t *testing.T) {
	wh, _ := standardwebhooks.NewWebhook(testSecret)
	got := make(chan map[string]any, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if err := wh.Verify(b, r.Header); err != nil {
			t.Errorf("delivery does not verify: %v", err)
		}
		var m map[string]any
		json.Unmarshal(b, &m)
		got <- m
	}))
	defer srv.Close()
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "config.yaml"), `webhooks:
  - name: audit
    url: `+srv.URL+`
    events: [pre_tool_call, "agent:*"]
    matcher: terminal
    secret_env: HOOK_SECRET
    allow_private_network: true
`)
	m := NewMetrics()
	e, err := New(context.Background(), Options{Home: home, ManagedHome: t.TempDir(), Getenv: webhookEnv, Metrics: m})
	if err != nil {
		t.Fatal(err)
	}
	if b := e.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}}).Block; b != nil {
		t.Fatalf("blocked: %+v", b)
	}
	e.DecideTool(context.Background(), hookspec.ToolCall{Name: "file", Args: map[string]any{}}) // the matcher says no
	e.NotifyWebhooks("agent:end", map[string]any{"response": "done"})
	if ws := e.Webhooks(); len(ws) != 1 || ws[0].Layer != LayerUser {
		t.Errorf("Webhooks() = %+v", ws)
	}
	e.Close(context.Background())
	first, second := <-got, <-got
	data, _ := first["data"].(map[string]any)
	if first["type"] != "pre_tool_call" || data["tool_name"] != "terminal" || second["type"] != "agent:end" {
		t.Errorf("deliveries %v, %v", first, second)
	}
	if n := m.webhookDeliveries.With("audit", "pre_tool_call").Value(); n != 1 {
		t.Errorf("hermes_webhook_deliveries_total{pre_tool_call} = %v, want 1", n)
	}
}

// A webhook of the user's home cannot take the name of a managed one (webhooks test and the
// metrics know webhooks by name), nor start under managed_hooks_only.
func TestWebhookLayers(t *testing.T) {
	mh, home := managedHomes(t, "webhooks:\n  - {name: audit, url: \"https://audit.example.com/\", events: [\"*\"], secret_env: S}\n", map[string]string{
		"config.yaml": "webhooks:\n  - {name: audit, url: \"https://mine.example.com/\", events: [\"*\"], secret_env: S}\n  - {name: mine, url: \"https://mine.example.com/\", events: [\"*\"], secret_env: S}\n"})
	e, err := New(context.Background(), Options{Home: home, ManagedHome: mh, DisableWebhooks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	ws := e.Webhooks()
	if len(ws) != 2 || ws[0].Layer != LayerManaged || ws[0].URL != "https://audit.example.com/" || ws[1].Name != "mine" {
		t.Errorf("webhooks %+v: want the managed audit and the user's mine", ws)
	}
	if !hasWarning(e.Warnings(), "webhook audit not started: "+filepath.Join(mh, "config.yaml")+" declares a webhook of that name") {
		t.Errorf("warnings %v", e.Warnings())
	}
	writeFile(t, filepath.Join(mh, "config.yaml"), "policy: {managed_hooks_only: true}\n")
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ws := e.Webhooks(); len(ws) != 2 || ws[0].Refused == "" || ws[1].Refused == "" {
		t.Errorf("under managed_hooks_only: %+v, want both refused", ws)
	}
}
