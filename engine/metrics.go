package engine

import (
	"time"

	"github.com/hermes-hooks/hermes/decisionlog"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics counts what every hook does: calls, errors, timeouts, cancelled and busy calls,
// blocks, dropped events, a latency histogram (the run only) and, for Lua plugins and
// persistent shell hooks, a histogram of the time calls waited for a free Lua state or
// co-process, labelled by source (plugin,
// shell, gateway), hook name and event; drops also by reason ("queue_full", "closed"). Series
// outlive reloads: a hook keeps counting under the same labels. It is a prometheus.Collector: register it with the host's registry. One Metrics
// may serve an engine and its gateway (pass it in both Options). Safe for concurrent use.
type Metrics struct {
	calls    *prometheus.CounterVec
	errors   *prometheus.CounterVec
	timeouts *prometheus.CounterVec
	cancels  *prometheus.CounterVec
	busy     *prometheus.CounterVec
	blocks   *prometheus.CounterVec
	drops    *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	wait     *prometheus.HistogramVec

	storeCalls    *prometheus.CounterVec   // store module calls, by source, hook and op
	storeErrors   *prometheus.CounterVec   //
	storeRejected *prometheus.CounterVec   // failed at once: the backend's circuit was open
	storeLatency  *prometheus.HistogramVec //

	webhookDeliveries *prometheus.CounterVec   // outbound webhook deliveries that got a 2xx, by webhook and event
	webhookFailures   *prometheus.CounterVec   // attempts that failed
	webhookRetries    *prometheus.CounterVec   // failed attempts followed by another
	webhookLatency    *prometheus.HistogramVec // from the first attempt to the 2xx

	decisionsSent, decisionsDropped, decisionsFailed prometheus.Counter // entries of the decision log
}

var webhookLabels = []string{"webhook", "event"}

var storeLabels = []string{"source", "hook", "op"}

var metricLabels = []string{"source", "hook", "event"}

// NewMetrics returns empty metrics named hermes_hook_*.
func NewMetrics() *Metrics {
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "hermes", Subsystem: "hook", Name: name, Help: help}, metricLabels)
	}
	return &Metrics{
		calls:    counter("calls_total", "Hook calls, by hook and event."),
		errors:   counter("errors_total", "Hook calls that failed (error raised, crashed, could not start)."),
		timeouts: counter("timeouts_total", "Hook calls interrupted at their timeout."),
		cancels:  counter("cancelled_total", "Hook calls cancelled by the host, or interrupted when the engine closed."),
		busy:     counter("busy_total", "Hook calls that did not run: every Lua state stayed in use for the busy timeout."),
		blocks:   counter("blocks_total", "Tool calls blocked, counted for the hook whose block won."),
		drops: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "hermes", Subsystem: "hook", Name: "drops_total",
			Help: "Gateway events not delivered to a hook: its queue was full, or the gateway was closed."}, append(metricLabels, "reason")),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "hermes", Subsystem: "hook", Name: "duration_seconds",
			Help:    "Duration of hook calls: how long they ran, without the wait for a free Lua state.",
			Buckets: []float64{.00001, .00005, .0001, .0005, .001, .005, .01, .05, .1, .5, 1, 5, 30},
		}, metricLabels),
		wait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "hermes", Subsystem: "hook", Name: "wait_seconds",
			Help:    "Time calls of Lua plugins and persistent shell hooks waited for a free Lua state or co-process of the hook before running (0 when one was free; busy calls waited until they gave up).",
			Buckets: []float64{0, .00001, .0001, .001, .01, .1, .5, 1, 5, 30},
		}, metricLabels),
		storeCalls: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "hermes", Subsystem: "store", Name: "calls_total",
			Help: "Calls of the store module (get, set, incr, delete, keys, update), by hook."}, storeLabels),
		storeErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "hermes", Subsystem: "store", Name: "errors_total",
			Help: "Calls of the store module that failed (backend down or slow, bad value)."}, storeLabels),
		storeRejected: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "hermes", Subsystem: "store", Name: "rejected_total",
			Help: "Calls of the store module failed at once, without reaching the backend: it had failed several times in a row (counted in errors_total too)."}, storeLabels),
		storeLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "hermes", Subsystem: "store", Name: "duration_seconds", Help: "Duration of store module calls.",
			Buckets: []float64{.00001, .00005, .0001, .0005, .001, .005, .01, .05, .1, .5, 1, 5},
		}, storeLabels),
		webhookDeliveries: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "hermes", Subsystem: "webhook", Name: "deliveries_total",
			Help: "Outbound webhook deliveries the endpoint accepted (2xx). Dropped ones are in hermes_hook_drops_total{source=\"webhook\"}."}, webhookLabels),
		webhookFailures: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "hermes", Subsystem: "webhook", Name: "failures_total",
			Help: "Outbound webhook attempts that failed (no answer, refused address, non-2xx)."}, webhookLabels),
		webhookRetries: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "hermes", Subsystem: "webhook", Name: "retries_total",
			Help: "Failed outbound webhook attempts that were tried again after a backoff."}, webhookLabels),
		webhookLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "hermes", Subsystem: "webhook", Name: "duration_seconds", Help: "Time from a delivery's first attempt to its 2xx, retries included.",
			Buckets: []float64{.001, .005, .01, .05, .1, .5, 1, 5, 10, 30, 60, 300},
		}, webhookLabels),
		decisionsSent: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "hermes", Subsystem: "decision_log", Name: "sent_total",
			Help: "Decisions the decision log's endpoint accepted (2xx)."}),
		decisionsDropped: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "hermes", Subsystem: "decision_log", Name: "dropped_total",
			Help: "Decisions not logged: the decision log's buffer was full (the call did not wait)."}),
		decisionsFailed: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "hermes", Subsystem: "decision_log", Name: "failed_total",
			Help: "Decisions buffered but not delivered: the endpoint kept failing past the retries, refused the batch, or was still failing when the engine closed."}),
	}
}

// decisionLogCounters are the counters of the decision log; nil Metrics give nils.
func (m *Metrics) decisionLogCounters() (sent, dropped, failed decisionlog.Counter) {
	if m == nil {
		return nil, nil, nil
	}
	return m.decisionsSent, m.decisionsDropped, m.decisionsFailed
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.collectors() {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.collectors() {
		c.Collect(ch)
	}
}

func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.calls, m.errors, m.timeouts, m.cancels, m.busy, m.blocks, m.drops, m.latency, m.wait,
		m.storeCalls, m.storeErrors, m.storeRejected, m.storeLatency,
		m.webhookDeliveries, m.webhookFailures, m.webhookRetries, m.webhookLatency,
		m.decisionsSent, m.decisionsDropped, m.decisionsFailed}
}

// hookMetrics are one hook's series for one event, resolved once so that a call costs a
// few atomic adds.
type hookMetrics struct {
	calls, errors, timeouts, cancels, busy, blocks prometheus.Counter
	latency                                        prometheus.Observer
	wait                                           prometheus.Observer // plugins only, else nil
}

// For returns the series of (source, name, event); nil Metrics give nil.
func (m *Metrics) forHook(source, name, event string) *hookMetrics {
	if m == nil {
		return nil
	}
	h := &hookMetrics{
		calls:    m.calls.WithLabelValues(source, name, event),
		errors:   m.errors.WithLabelValues(source, name, event),
		timeouts: m.timeouts.WithLabelValues(source, name, event),
		cancels:  m.cancels.WithLabelValues(source, name, event),
		busy:     m.busy.WithLabelValues(source, name, event),
		blocks:   m.blocks.WithLabelValues(source, name, event),
		latency:  m.latency.WithLabelValues(source, name, event),
	}
	if source == hookspec.SourcePlugin || source == hookspec.SourceShell { // a Lua state of a pool, a persistent hook's co-process
		h.wait = m.wait.WithLabelValues(source, name, event)
	}
	return h
}

// observe records one call.
func (h *hookMetrics) observe(status hookspec.Status, d time.Duration) {
	if h == nil || status == hookspec.StatusSkipped {
		return
	}
	h.calls.Inc()
	h.latency.Observe(d.Seconds())
	switch status {
	case hookspec.StatusError:
		h.errors.Inc()
	case hookspec.StatusTimeout:
		h.timeouts.Inc()
	case hookspec.StatusCancelled:
		h.cancels.Inc()
	case hookspec.StatusBusy:
		h.busy.Inc()
	}
}

// observeWait records how long a call waited for a free Lua state or co-process (0: it did
// not wait).
func (h *hookMetrics) observeWait(status hookspec.Status, d time.Duration) {
	if h == nil || h.wait == nil || status == hookspec.StatusSkipped {
		return
	}
	h.wait.Observe(d.Seconds())
}

// Observe records one call of a hook that is not run by the engine (gateway hooks).
func (m *Metrics) Observe(source, name, event string, status hookspec.Status, d time.Duration) {
	m.forHook(source, name, event).observe(status, d)
}

// Drop records an event not delivered to a hook, and why.
func (m *Metrics) Drop(source, name, event string, reason hookspec.DropReason) {
	if m != nil {
		m.drops.WithLabelValues(source, name, event, reason.String()).Inc()
	}
}
