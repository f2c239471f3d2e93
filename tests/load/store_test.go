package load

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// ledger is a plugin with four Lua states that counts every tool call with store.incr and
// appends the call's id to a list with store.update.
const ledger = `function register(ctx)
  local store = require("store")
  ctx.register_hook("pre_tool_call", function(kw)
    store.incr("calls")
    store.update("ids", function(ids)
      ids = ids or {}
      table.insert(ids, kw.tool_call_id)
      return ids
    end)
  end)
end`

const (
	processes = 4
	callsEach = 250
)

// Four hermesctl processes replay transcripts at once against one home whose plugin counts
// and records every tool call in the store: the count is exact and every id is there once,
// with the database in the home and with Redis.
func TestStoreAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds hermesctl and runs four processes")
	}
	bin := filepath.Join(t.TempDir(), "hermesctl")
	build := exec.Command("go", "build", "-o", bin, "./cmd/hermesctl")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, backend := range []string{"sqlite", "redis"} {
		t.Run(backend, func(t *testing.T) {
			config := ""
			if backend == "redis" {
				config = "store: {url: \"" + testutil.StartRedis(t).URL + "\"}\n"
			}
			home := testutil.Home(t, map[string]string{
				"plugins/ledger/plugin.yaml": "name: ledger\nstates: 4\ntimeout: 30\n",
				"plugins/ledger/handler.lua": ledger,
				"config.yaml":                config,
			})
			want := map[string]bool{}
			var transcripts []string
			for p := range processes {
				var b strings.Builder
				b.WriteString(`{"type":"message","platform":"cli","user_id":"u","text":"go"}` + "\n")
				for i := range callsEach {
					id := fmt.Sprintf("p%d-c%d", p, i)
					want[id] = true
					fmt.Fprintf(&b, `{"type":"llm","model":"m","tool_calls":[{"id":%q,"name":"terminal","args":{"command":"ls"},"result":"{}"}]}`+"\n", id)
				}
				b.WriteString(`{"type":"llm","model":"m","response":"done"}` + "\n")
				path := filepath.Join(t.TempDir(), "t.jsonl")
				if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				transcripts = append(transcripts, path)
			}
			var wg sync.WaitGroup
			for _, tr := range transcripts {
				wg.Go(func() {
					out, err := exec.Command(bin, "--home", home, "replay", "--json", tr).CombinedOutput()
					if err != nil {
						t.Errorf("replay %s: %v\n%s", tr, err, out)
					}
					if strings.Contains(string(out), `"status": "error"`) {
						t.Errorf("a hook failed:\n%s", out)
					}
				})
			}
			wg.Wait()
			get := func(key string) string {
				out, err := exec.Command(bin, "--home", home, "store", "get", "ledger", key).Output()
				if err != nil {
					t.Fatalf("store get %s: %v", key, err)
				}
				return strings.TrimSpace(string(out))
			}
			if n := get("calls"); n != fmt.Sprint(processes*callsEach) {
				t.Errorf("calls = %s, want %d", n, processes*callsEach)
			}
			var ids []string
			if err := json.Unmarshal([]byte(get("ids")), &ids); err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			for _, id := range ids {
				if seen[id] || !want[id] {
					t.Errorf("id %s duplicated or unknown", id)
				}
				seen[id] = true
			}
			if len(seen) != len(want) {
				t.Errorf("%d ids recorded, want %d", len(seen), len(want))
			}
			out, _ := exec.Command(bin, "--home", home, "store", "list").Output()
			if !strings.Contains(string(out), "plugin:ledger  2") {
				t.Errorf("store list:\n%s", out)
			}
		})
	}
}
