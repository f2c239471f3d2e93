package promcollector

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/hermes-hooks/hermes/metrics"
)

func TestAPrometheusRegistryGathersTheFamilies(t *testing.T) {
	calls := metrics.NewCounterVec("hermes_hook_calls_total", "Hook calls.", "source", "hook")
	calls.With("plugin", "guard").Add(2)
	calls.With("shell", "bad \xff").Inc() // not UTF-8: the client would refuse the whole scrape
	lat := metrics.NewHistogramVec("hermes_hook_duration_seconds", "Durations.", []float64{0.001, 0.1}, "hook")
	lat.With("guard").Observe(0.01)
	rev := metrics.Families{{Name: "hermes_bundle_revision", Help: "Revision.", Type: metrics.GaugeType, Series: []metrics.Series{{Value: 3}}}}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(New(metrics.Collectors{calls, lat, rev}))
	want := `# HELP hermes_bundle_revision Revision.
# TYPE hermes_bundle_revision gauge
hermes_bundle_revision 3
# HELP hermes_hook_calls_total Hook calls.
# TYPE hermes_hook_calls_total counter
hermes_hook_calls_total{hook="bad �",source="shell"} 1
hermes_hook_calls_total{hook="guard",source="plugin"} 2
# HELP hermes_hook_duration_seconds Durations.
# TYPE hermes_hook_duration_seconds histogram
hermes_hook_duration_seconds_bucket{hook="guard",le="0.001"} 0
hermes_hook_duration_seconds_bucket{hook="guard",le="0.1"} 1
hermes_hook_duration_seconds_bucket{hook="guard",le="+Inf"} 1
hermes_hook_duration_seconds_sum{hook="guard"} 0.01
hermes_hook_duration_seconds_count{hook="guard"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
}
