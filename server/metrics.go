package server

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hermes-hooks/hermes/engine"
)

// httpMetrics count the server's calls: by route, status code and caller (the token's
// name: bounded by the operator).
type httpMetrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hermes_server_requests_total",
			Help: "Calls answered by the hook server, by route, status code and caller."}, []string{"route", "code", "caller"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hermes_server_request_duration_seconds",
			Help:    "How long the hook server took to answer a call, by route.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5}}, []string{"route"}),
	}
	reg.MustRegister(m.requests, m.latency)
	return m
}

func (m *httpMetrics) observe(route string, code int, caller string, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(code), caller).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

// bundleMetrics report the managed home's bundle feed, read at each scrape; nothing when
// the managed home has no bundles:.
type bundleMetrics struct{ eng *engine.Engine }

// bundleDescs describe the bundle metrics.
type bundleDescs struct {
	revision, running, lastCheck, lastSuccess, failing, stale *prometheus.Desc
}

// bundleDesc makes the descriptions at first use: only a server with a bundle feed reports them.
var bundleDesc = sync.OnceValue(func() *bundleDescs {
	return &bundleDescs{
		revision: prometheus.NewDesc("hermes_bundle_revision",
			"The revision of the managed home's active bundle (0: none yet).", nil, nil),
		running: prometheus.NewDesc("hermes_bundle_running_revision",
			"The revision of the managed home's bundle the server runs (the active one once it reloaded).", nil, nil),
		lastCheck: prometheus.NewDesc("hermes_bundle_last_check_timestamp_seconds",
			"When the bundle feed was last checked, whatever the outcome (0: never).", nil, nil),
		lastSuccess: prometheus.NewDesc("hermes_bundle_last_success_timestamp_seconds",
			"When the bundle feed was last checked successfully (0: never).", nil, nil),
		failing: prometheus.NewDesc("hermes_bundle_check_failing",
			"1 when the last check of the bundle feed failed or refused a bundle (its reason is last_error of /v1/status), else 0.", nil, nil),
		stale: prometheus.NewDesc("hermes_bundle_stale",
			"1 when the last successful check is older than bundles.max_age, else 0.", nil, nil),
	}
})

func (m bundleMetrics) Describe(ch chan<- *prometheus.Desc) {
	ds := bundleDesc()
	for _, d := range []*prometheus.Desc{ds.revision, ds.running, ds.lastCheck, ds.lastSuccess, ds.failing, ds.stale} {
		ch <- d
	}
}

func (m bundleMetrics) Collect(ch chan<- prometheus.Metric) {
	st, ok := m.eng.Bundle()
	if !ok {
		return
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
	d := bundleDesc()
	ch <- prometheus.MustNewConstMetric(d.revision, prometheus.GaugeValue, float64(st.Revision))
	ch <- prometheus.MustNewConstMetric(d.running, prometheus.GaugeValue, float64(st.Running))
	ch <- prometheus.MustNewConstMetric(d.lastCheck, prometheus.GaugeValue, unix(st.LastCheck))
	ch <- prometheus.MustNewConstMetric(d.lastSuccess, prometheus.GaugeValue, unix(st.LastSuccess))
	ch <- prometheus.MustNewConstMetric(d.failing, prometheus.GaugeValue, flag(st.LastError != ""))
	ch <- prometheus.MustNewConstMetric(d.stale, prometheus.GaugeValue, flag(st.Stale))
}
