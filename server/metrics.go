package server

import (
	"strconv"
	"time"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/metrics"
)

// httpMetrics count the server's calls: by route, status code and caller (the token's
// name: bounded by the operator).
type httpMetrics struct {
	requests *metrics.CounterVec
	latency  *metrics.HistogramVec
}

func newHTTPMetrics(reg *metrics.Registry) *httpMetrics {
	m := &httpMetrics{
		requests: metrics.NewCounterVec("hermes_server_requests_total",
			"Calls answered by the hook server, by route, status code and caller.", "route", "code", "caller"),
		latency: metrics.NewHistogramVec("hermes_server_request_duration_seconds",
			"How long the hook server took to answer a call, by route.",
			[]float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}, "route"),
	}
	reg.Register(m.requests, m.latency)
	return m
}

func (m *httpMetrics) observe(route string, code int, caller string, d time.Duration) {
	m.requests.With(route, strconv.Itoa(code), caller).Inc()
	m.latency.With(route).Observe(d.Seconds())
}

// bundleMetrics report the managed home's bundle feed, read once at each scrape (so the
// six agree); nothing when the managed home has no bundles:.
type bundleMetrics struct{ eng *engine.Engine }

func (b bundleMetrics) Collect() []metrics.Family {
	st, ok := b.eng.Bundle()
	if !ok {
		return nil
	}
	unix := func(t time.Time) float64 {
		if t.IsZero() {
			return 0
		}
		return float64(t.UnixNano()) / 1e9
	}
	flag := func(b bool) float64 {
		if b {
			return 1
		}
		return 0
	}
	gauge := func(name, help string, v float64) metrics.Family {
		return metrics.Family{Name: name, Help: help, Type: metrics.GaugeType, Series: []metrics.Series{{Value: v}}}
	}
	return []metrics.Family{
		gauge("hermes_bundle_revision", "The revision of the managed home's active bundle (0: none yet).", float64(st.Revision)),
		gauge("hermes_bundle_running_revision", "The revision of the managed home's bundle the server runs (the active one once it reloaded).", float64(st.Running)),
		gauge("hermes_bundle_last_check_timestamp_seconds", "When the bundle feed was last checked, whatever the outcome (0: never).", unix(st.LastCheck)),
		gauge("hermes_bundle_last_success_timestamp_seconds", "When the bundle feed was last checked successfully (0: never).", unix(st.LastSuccess)),
		gauge("hermes_bundle_check_failing", "1 when the last check of the bundle feed failed or refused a bundle (its reason is last_error of /v1/status), else 0.", flag(st.LastError != "")),
		gauge("hermes_bundle_stale", "1 when the last successful check is older than bundles.max_age, else 0.", flag(st.Stale)),
	}
}
