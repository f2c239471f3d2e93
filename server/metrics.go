package server

import (
	"strconv"
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

var (
	bundleRevision = prometheus.NewDesc("hermes_bundle_revision",
		"The revision of the managed home's active bundle (0: none yet).", nil, nil)
	bundleRunning = prometheus.NewDesc("hermes_bundle_running_revision",
		"The revision of the managed home's bundle the server runs (the active one once it reloaded).", nil, nil)
	bundleLastCheck = prometheus.NewDesc("hermes_bundle_last_check_timestamp_seconds",
		"When the bundle feed was last checked, whatever the outcome (0: never).", nil, nil)
	bundleLastSuccess = prometheus.NewDesc("hermes_bundle_last_success_timestamp_seconds",
		"When the bundle feed was last checked successfully (0: never).", nil, nil)
	bundleFailing = prometheus.NewDesc("hermes_bundle_check_failing",
		"1 when the last check of the bundle feed failed or refused a bundle (its reason is last_error of /v1/status), else 0.", nil, nil)
	bundleStale = prometheus.NewDesc("hermes_bundle_stale",
		"1 when the last successful check is older than bundles.max_age, else 0.", nil, nil)
)

func (m bundleMetrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{bundleRevision, bundleRunning, bundleLastCheck, bundleLastSuccess, bundleFailing, bundleStale} {
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
	ch <- prometheus.MustNewConstMetric(bundleRevision, prometheus.GaugeValue, float64(st.Revision))
	ch <- prometheus.MustNewConstMetric(bundleRunning, prometheus.GaugeValue, float64(st.Running))
	ch <- prometheus.MustNewConstMetric(bundleLastCheck, prometheus.GaugeValue, unix(st.LastCheck))
	ch <- prometheus.MustNewConstMetric(bundleLastSuccess, prometheus.GaugeValue, unix(st.LastSuccess))
	ch <- prometheus.MustNewConstMetric(bundleFailing, prometheus.GaugeValue, flag(st.LastError != ""))
	ch <- prometheus.MustNewConstMetric(bundleStale, prometheus.GaugeValue, flag(st.Stale))
}
