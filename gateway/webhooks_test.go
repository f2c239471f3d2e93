package gateway

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
)

// Gateway events reach the webhooks that want them, with the event's context as data,
// whether or not a gateway hook subscribes.
func TestEmitNotifiesWebhooks(t *testing.T) {
	got := make(chan map[string]any, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &m)
		got <- m
	}))
	defer srv.Close()
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("webhooks:\n  - {name: w, url: \""+srv.URL+
		"\", events: [\"agent:*\"], secret_env: S, allow_private_network: true}\n"), 0o644)
	g, err := New(context.Background(), Options{Engine: engine.Options{Home: home, ManagedHome: t.TempDir(),
		Getenv: func(string) string { return "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }}})
	if err != nil {
		t.Fatal(err)
	}
	g.Emit(context.Background(), hookspec.NamedEvent{Name: "agent:end", Data: map[string]any{"response": "done"}})
	g.Emit(context.Background(), hookspec.NamedEvent{Name: "session:start", Data: map[string]any{}}) // not wanted
	g.EmitSync(context.Background(), hookspec.NamedEvent{Name: "agent:start", Data: map[string]any{"message": "hi"}})
	g.Close(context.Background())
	close(got)
	var types []string
	for m := range got {
		types = append(types, m["type"].(string))
		if m["type"] == "agent:end" && m["data"].(map[string]any)["response"] != "done" {
			t.Errorf("agent:end data = %v", m["data"])
		}
	}
	if len(types) != 2 || types[0] != "agent:end" || types[1] != "agent:start" {
		t.Errorf("delivered %v, want agent:end then agent:start", types)
	}
}
