package engine

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
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
	if b := e.PreToolCall(context.Background(), ToolCall{Name: "terminal", Args: map[string]any{"command": "ls"}}); b != nil {
		t.Fatalf("blocked: %+v", b)
	}
	e.PreToolCall(context.Background(), ToolCall{Name: "file", Args: map[string]any{}}) // the matcher says no
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
	if n := testutil.ToFloat64(m.webhookDeliveries.WithLabelValues("audit", "pre_tool_call")); n != 1 {
		t.Errorf("hermes_webhook_deliveries_total{pre_tool_call} = %v, want 1", n)
	}
}
