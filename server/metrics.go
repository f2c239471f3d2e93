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

// bundleMetrics report the managed home's bundle feed, read at each scrape; nothing when
// the managed home has no bundles:.
func bundleMetrics(eng *engine.Engine) metrics.Collector {
	gauge := func(name, help string, v func(engine.BundleStatus) float64) metrics.Collector {
		return metrics.GaugeFunc{Name: name, Help: help, Value: func() (float64, bool) {
			st, ok := eng.Bundle()
			if !ok {
				return 0, false
			}
			return v(st), true
		}}
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
	return metrics.Collectors{
		gauge("hermes_bundle_revision", "The revision of the managed home's active bundle (0: none yet).",
			func(st engine.BundleStatus) float64 { return float64(st.Revision) }),
		gauge("hermes_bundle_running_revision", "The revision of the managed home's bundle the server runs (the active one once it reloaded).",
			func(st engine.BundleStatus) float64 { return float64(st.Running) }),
		gauge("hermes_bundle_last_check_timestamp_seconds", "When the bundle feed was last checked, whatever the outcome (0: never).",
			func(st engine.BundleStatus) float64 { return unix(st.LastCheck) }),
		gauge("hermes_bundle_last_success_timestamp_seconds", "When the bundle feed was last checked successfully (0: never).",
			func(st engine.BundleStatus) float64 { return unix(st.LastSuccess) }),
		gauge("hermes_bundle_check_failing", "1 when the last check of the bundle feed failed or refused a bundle (its reason is last_error of /v1/status), else 0.",
			func(st engine.BundleStatus) float64 { return flag(st.LastError != "") }),
		gauge("hermes_bundle_stale", "1 when the last successful check is older than bundles.max_age, else 0.",
			func(st engine.BundleStatus) float64 { return flag(st.Stale) }),
	}
}
