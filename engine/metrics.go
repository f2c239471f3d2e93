package engine

import (
	"time"

	"github.com/hermes-hooks/hermes/decisionlog"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/metrics"
)

// Metrics counts what every hook does: calls, errors, timeouts, cancelled and busy calls,
// blocks, dropped events, a latency histogram (the run only) and, for Lua plugins and
// persistent shell hooks, a histogram of the time calls waited for a free Lua state or
// co-process, labelled by source (plugin,
// shell, gateway), hook name and event; drops also by reason ("queue_full", "closed"). Series
// outlive reloads: a hook keeps counting under the same labels. It is a metrics.Collector: register it with the host's metrics.Registry, or, through
// package metrics/promcollector, with a Prometheus registry. One Metrics
// may serve an engine and its gateway (pass it in both Options). Safe for concurrent use.
type Metrics struct {
	calls    *metrics.CounterVec
	errors   *metrics.CounterVec
	timeouts *metrics.CounterVec
	cancels  *metrics.CounterVec
	busy     *metrics.CounterVec
	blocks   *metrics.CounterVec
	drops    *metrics.CounterVec
	latency  *metrics.HistogramVec
	wait     *metrics.HistogramVec

	storeCalls    *metrics.CounterVec   // store module calls, by source, hook and op
	storeErrors   *metrics.CounterVec   //
	storeRejected *metrics.CounterVec   // failed at once: the backend's circuit was open
	storeLatency  *metrics.HistogramVec //

	webhookDeliveries *metrics.CounterVec   // outbound webhook deliveries that got a 2xx, by webhook and event
	webhookFailures   *metrics.CounterVec   // attempts that failed
	webhookRetries    *metrics.CounterVec   // failed attempts followed by another
	webhookLatency    *metrics.HistogramVec // from the first attempt to the 2xx

	decisionsSent, decisionsDropped, decisionsFailed *metrics.CounterVec // entries of the decision log (no labels)
}

var webhookLabels = []string{"webhook", "event"}

var storeLabels = []string{"source", "hook", "op"}

var metricLabels = []string{"source", "hook", "event"}

// NewMetrics returns empty metrics named hermes_hook_*.
func NewMetrics() *Metrics {
	counter := func(name, help string) *metrics.CounterVec {
		return metrics.NewCounterVec("hermes_hook_"+name, help, metricLabels...)
	}
	return &Metrics{
		calls:    counter("calls_total", "Hook calls, by hook and event."),
		errors:   counter("errors_total", "Hook calls that failed (error raised, crashed, could not start)."),
		timeouts: counter("timeouts_total", "Hook calls interrupted at their timeout."),
		cancels:  counter("cancelled_total", "Hook calls cancelled by the host, or interrupted when the engine closed."),
		busy:     counter("busy_total", "Hook calls that did not run: every Lua state stayed in use for the busy timeout."),
		blocks:   counter("blocks_total", "Tool calls blocked, counted for the hook whose block won."),
		drops: metrics.NewCounterVec("hermes_hook_drops_total",
			"Gateway events not delivered to a hook: its queue was full, or the gateway was closed.", append(metricLabels, "reason")...),
		latency: metrics.NewHistogramVec("hermes_hook_duration_seconds",
			"Duration of hook calls: how long they ran, without the wait for a free Lua state.",
			[]float64{.00001, .00005, .0001, .0005, .001, .005, .01, .05, .1, .5, 1, 5, 30}, metricLabels...),
		wait: metrics.NewHistogramVec("hermes_hook_wait_seconds",
			"Time calls of Lua plugins and persistent shell hooks waited for a free Lua state or co-process of the hook before running (0 when one was free; busy calls waited until they gave up).",
			[]float64{0, .00001, .0001, .001, .01, .1, .5, 1, 5, 30}, metricLabels...),
		storeCalls: metrics.NewCounterVec("hermes_store_calls_total",
			"Calls of the store module (get, set, incr, delete, keys, update), by hook.", storeLabels...),
		storeErrors: metrics.NewCounterVec("hermes_store_errors_total",
			"Calls of the store module that failed (backend down or slow, bad value).", storeLabels...),
		storeRejected: metrics.NewCounterVec("hermes_store_rejected_total",
			"Calls of the store module failed at once, without reaching the backend: it had failed several times in a row (counted in errors_total too).", storeLabels...),
		storeLatency: metrics.NewHistogramVec("hermes_store_duration_seconds",
			"Duration of store module calls.",
			[]float64{.00001, .00005, .0001, .0005, .001, .005, .01, .05, .1, .5, 1, 5}, storeLabels...),
		webhookDeliveries: metrics.NewCounterVec("hermes_webhook_deliveries_total",
			"Outbound webhook deliveries the endpoint accepted (2xx). Dropped ones are in hermes_hook_drops_total{source=\"webhook\"}.", webhookLabels...),
		webhookFailures: metrics.NewCounterVec("hermes_webhook_failures_total",
			"Outbound webhook attempts that failed (no answer, refused address, non-2xx).", webhookLabels...),
		webhookRetries: metrics.NewCounterVec("hermes_webhook_retries_total",
			"Failed outbound webhook attempts that were tried again after a backoff.", webhookLabels...),
		webhookLatency: metrics.NewHistogramVec("hermes_webhook_duration_seconds",
			"Time from a delivery's first attempt to its 2xx, retries included.",
			[]float64{.001, .005, .01, .05, .1, .5, 1, 5, 10, 30, 60, 300}, webhookLabels...),
		decisionsSent: metrics.NewCounterVec("hermes_decision_log_sent_total",
			"Decisions the decision log's endpoint accepted (2xx)."),
		decisionsDropped: metrics.NewCounterVec("hermes_decision_log_dropped_total",
			"Decisions not logged: the decision log's buffer was full (the call did not wait)."),
		decisionsFailed: metrics.NewCounterVec("hermes_decision_log_failed_total",
			"Decisions buffered but not delivered: the endpoint kept failing past the retries, refused the batch, or was still failing when the engine closed."),
	}
}

// decisionLogCounters are the counters of the decision log; nil Metrics give nils.
func (m *Metrics) decisionLogCounters() (sent, dropped, failed decisionlog.Counter) {
	if m == nil {
		return nil, nil, nil
	}
	return m.decisionsSent.With(), m.decisionsDropped.With(), m.decisionsFailed.With()
}

// Collect implements metrics.Collector.
func (m *Metrics) Collect() []metrics.Family {
	return metrics.Collectors{m.calls, m.errors, m.timeouts, m.cancels, m.busy, m.blocks, m.drops, m.latency, m.wait,
		m.storeCalls, m.storeErrors, m.storeRejected, m.storeLatency,
		m.webhookDeliveries, m.webhookFailures, m.webhookRetries, m.webhookLatency,
		m.decisionsSent, m.decisionsDropped, m.decisionsFailed}.Collect()
}

// hookMetrics are one hook's series for one event, resolved once so that a call costs a
// few atomic adds.
type hookMetrics struct {
	calls, errors, timeouts, cancels, busy, blocks *metrics.Counter
	latency                                        *metrics.Histogram
	wait                                           *metrics.Histogram // plugins only, else nil
}

// For returns the series of (source, name, event); nil Metrics give nil.
func (m *Metrics) forHook(source, name, event string) *hookMetrics {
	if m == nil {
		return nil
	}
	h := &hookMetrics{
		calls:    m.calls.With(source, name, event),
		errors:   m.errors.With(source, name, event),
		timeouts: m.timeouts.With(source, name, event),
		cancels:  m.cancels.With(source, name, event),
		busy:     m.busy.With(source, name, event),
		blocks:   m.blocks.With(source, name, event),
		latency:  m.latency.With(source, name, event),
	}
	if source == hookspec.SourcePlugin || source == hookspec.SourceShell { // a Lua state of a pool, a persistent hook's co-process
		h.wait = m.wait.With(source, name, event)
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
		m.drops.With(source, name, event, reason.String()).Inc()
	}
}
