//go:build unix

package serverbench

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// countingGuard is the reference guard that also counts its decisions in the store, as a
// guard with state that spans calls does: replicas keep that state in the shared Redis.
const countingGuard = `
local store = require("store")
function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw)
    store.incr("decisions")
    if kw.tool_name ~= "terminal" or type(kw.args) ~= "table" then return nil end
    local command = kw.args.command
    if type(command) == "string" and command:find("rm -rf", 1, true) then
      return { action = "block", message = "Blocked: ` + "`\" .. command .. \"`" + ` is destructive and not permitted." }
    end
  end)
end
`

// redisHome writes a home with countingGuard whose store is the Redis at url.
func redisHome(tb testing.TB, url string) string {
	home := tb.TempDir()
	files := map[string]string{
		"config.yaml":                     "store: {url: \"" + url + "\"}\n",
		"plugins/rm-rf-guard/plugin.yaml": "name: rm-rf-guard\n",
		"plugins/rm-rf-guard/handler.lua": countingGuard,
	}
	for name, content := range files {
		p := filepath.Join(home, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return home
}

// BenchmarkReplicas loads one hook server, then two replicas sharing its home and Redis
// store (the requests spread over both in turn), with the counting guard, from 16 and 256
// keep-alive clients over loopback TCP; the phases alternate as in BenchmarkServers. The
// replicas run in this process, so they share its two-core machine with the load: the
// ratio says what a second replica buys on the same machine, not on a second one.
func BenchmarkReplicas(b *testing.B) {
	redis := testutil.StartRedis(b)
	home := redisHome(b, redis.URL)
	first := startOurs(b, home)
	second := startOurs(b, home)
	for _, in := range inputs { // the replicas answer alike
		if a, c := decide(b, first, in), decide(b, second, in); (a == nil) != (c == nil) {
			b.Fatalf("%s: the replicas decided %v and %v", in, a, c)
		}
	}
	for _, clients := range []int{16, 256} {
		b.Run("clients="+strconv.Itoa(clients), func(b *testing.B) {
			sides := []struct {
				name string
				ts   []peer
				l    load
			}{{name: "one", ts: []peer{first}}, {name: "two", ts: []peer{first, second}}}
			for i := range sides {
				run(targets(sides[i].ts...), clients, phaseTime()/5, nil)
			}
			i := 0
			for b.Loop() {
				for j := range sides {
					s := &sides[(i+j)%2]
					run(targets(s.ts...), clients, phaseTime(), &s.l)
				}
				i++
			}
			for _, s := range sides {
				if s.l.errors > 0 {
					b.Errorf("%s: %d of %d requests failed, the first: %s", s.name, s.l.errors, s.l.errors+s.l.ok, s.l.firstErr)
				}
				b.ReportMetric(s.l.perSecond(), s.name+"-decisions/s")
				b.ReportMetric(s.l.quantile(0.99), s.name+"-p99-ms")
			}
			b.ReportMetric(sides[1].l.perSecond()/sides[0].l.perSecond(), "throughput-two/one")
			b.ReportMetric(0, "ns/op")
			b.Logf("load average: %s", loadAverage())
		})
	}
}
