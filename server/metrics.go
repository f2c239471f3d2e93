package server

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
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
