package server

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hermes-hooks/hermes/decisionlog"
	"github.com/hermes-hooks/hermes/engine"
)

// The decision log names the caller of each call: the name of the token it came with.
func TestDecisionLogNamesTheCaller(t *testing.T) {
	var mu sync.Mutex
	var got []decisionlog.Entry
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entries, err := decisionlog.ReadBatch(r.Body)
		if err != nil {
			t.Error(err)
		}
		mu.Lock()
		got = append(got, entries...)
		mu.Unlock()
	}))
	defer recv.Close()
	eng, err := engine.New(context.Background(), engine.Options{Home: testHome(t, nil), DecisionLog: &decisionlog.Options{URL: recv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "tokens.json")
	toks, _ := LoadTokens(file)
	tok, _ := toks.Add(file, "ci-bot")
	s, err := New(Options{Engine: eng, Tokens: toks})
	if err != nil {
		t.Fatal(err)
	}
	if code, body, _ := do(t, s, "POST", "/v1/hooks/pre_tool_call", `{"tool_name":"terminal","args":{"command":"rm -rf /"}}`, "Authorization", "Bearer "+tok); code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	eng.Close(context.Background())
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].Caller != "ci-bot" || got[0].Outcome != "block" || got[0].Hook != "guard" {
		t.Errorf("entries = %+v, want one block by guard from ci-bot", got)
	}
}
