package metrics

import (
	"bytes"
	"math"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// parse reads the text exposition with the Prometheus parser, as a scraper would.
func parse(t *testing.T, text string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("Prometheus cannot read the exposition: %v\n%s", err, text)
	}
	return fams
}

func TestTheExpositionReadsBackInPrometheus(t *testing.T) {
	calls := NewCounterVec("hermes_hook_calls_total", "Hook calls, by hook.\nA second line, a \\ too.", "source", "hook")
	calls.With("plugin", "guard").Inc()
	calls.With("plugin", "guard").Add(2)
	calls.With("shell", "a \"quoted\\\" name\nwith a newline").Inc()
	calls.With("shell", "not \xffUTF-8").Inc() // a file name's bytes: written as valid UTF-8
	lat := NewHistogramVec("hermes_hook_duration_seconds", "Durations.", []float64{0.5, 0.001, 0.01}, "hook")
	for _, v := range []float64{0.0005, 0.001, 0.002, 0.3, 7} {
		lat.With("guard").Observe(v)
	}
	plain := NewCounterVec("hermes_decision_log_sent_total", "Sent.")
	plain.With().Add(0.5)
	zero := NewCounterVec("hermes_decision_log_dropped_total", "Dropped.") // never counted: 0, not missing
	up := Families{{Name: "hermes_bundle_revision", Help: "Revision.", Type: GaugeType, Series: []Series{{Value: 7}}}}
	none := Families{{Name: "hermes_bundle_stale", Help: "Stale.", Type: GaugeType}}
	reg := NewRegistry()
	reg.Register(lat, calls, plain, zero, up, none)

	rec := httptest.NewRecorder()
	reg.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if ct := rec.Header().Get("Content-Type"); ct != ContentType {
		t.Errorf("Content-Type %q", ct)
	}
	fams := parse(t, rec.Body.String())
	if _, ok := fams["hermes_bundle_stale"]; ok {
		t.Error("a family without series was written")
	}
	c := fams["hermes_hook_calls_total"]
	if c.GetHelp() != "Hook calls, by hook.\nA second line, a \\ too." || c.GetType() != dto.MetricType_COUNTER {
		t.Errorf("help %q, type %v", c.GetHelp(), c.GetType())
	}
	got := map[string]float64{}
	for _, m := range c.GetMetric() {
		l := map[string]string{}
		for _, p := range m.GetLabel() {
			l[p.GetName()] = p.GetValue()
		}
		got[l["source"]+"/"+l["hook"]] = m.GetCounter().GetValue()
	}
	// Series in the order of their values by label name: hook first, then source.
	if i, j := strings.Index(rec.Body.String(), `{hook="a \"quoted`), strings.Index(rec.Body.String(), `{hook="guard"`); i < 0 || j < 0 || i > j {
		t.Errorf("series not in the order of their values by label name:\n%s", rec.Body.String())
	}
	if !strings.Contains(rec.Body.String(), `hermes_hook_calls_total{hook="guard",source="plugin"} 3`+"\n") {
		t.Errorf("labels not by name, as the Prometheus client writes them:\n%s", rec.Body.String())
	}
	if got["plugin/guard"] != 3 || got["shell/a \"quoted\\\" name\nwith a newline"] != 1 || got["shell/not \uFFFDUTF-8"] != 1 || len(got) != 3 {
		t.Errorf("counters %v", got)
	}
	h := fams["hermes_hook_duration_seconds"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 5 || math.Abs(h.GetSampleSum()-7.3035) > 1e-9 {
		t.Errorf("count %d sum %v", h.GetSampleCount(), h.GetSampleSum())
	}
	wantBuckets := []struct {
		le float64
		n  uint64
	}{{0.001, 2}, {0.01, 3}, {0.5, 4}, {math.Inf(1), 5}} // upper bounds inclusive, cumulative, sorted
	if len(h.GetBucket()) != len(wantBuckets) {
		t.Errorf("%d buckets, want %d", len(h.GetBucket()), len(wantBuckets))
	}
	for i, b := range h.GetBucket() {
		if i >= len(wantBuckets) || b.GetUpperBound() != wantBuckets[i].le || b.GetCumulativeCount() != wantBuckets[i].n {
			t.Errorf("bucket %d: le %v count %d", i, b.GetUpperBound(), b.GetCumulativeCount())
		}
	}
	if v := fams["hermes_decision_log_sent_total"].GetMetric()[0].GetCounter().GetValue(); v != 0.5 {
		t.Errorf("a counter without labels: %v", v)
	}
	if z := fams["hermes_decision_log_dropped_total"]; z == nil || z.GetMetric()[0].GetCounter().GetValue() != 0 {
		t.Errorf("a counter without labels that never counted: %v", z)
	}
	if v := fams["hermes_bundle_revision"].GetMetric()[0].GetGauge().GetValue(); v != 7 {
		t.Errorf("gauge %v", v)
	}
	// The same state gives the same text: series sorted, families by name.
	var a, b bytes.Buffer
	WriteText(&a, reg.Gather())
	WriteText(&b, reg.Gather())
	if a.String() != b.String() || !strings.HasPrefix(a.String(), "# HELP hermes_bundle_revision") {
		t.Errorf("not stable or not sorted:\n%s", a.String())
	}
}

func TestCountersAndHistogramsUnderConcurrentUse(t *testing.T) {
	c := NewCounterVec("c_total", "C.", "k")
	h := NewHistogramVec("h_seconds", "H.", []float64{1}, "k")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				c.With("a").Inc()
				c.With([]string{"x", "y"}[g%2]).Add(1)
				h.With("a").Observe(float64(i % 2 * 2)) // 0 and 2: half in the first bucket
			}
		})
	}
	wg.Wait()
	if v := c.With("a").Value(); v != 8000 {
		t.Errorf("counter %v, want 8000", v)
	}
	if v := c.With("x").Value() + c.With("y").Value(); v != 8000 {
		t.Errorf("counters %v, want 8000", v)
	}
	hv := h.With("a").Value()
	if hv.Count != 8000 || hv.Sum != 8000 || hv.Buckets[0].Count != 4000 {
		t.Errorf("histogram %+v", hv)
	}
	found := false
	for _, f := range registryWith(c).Gather() {
		for _, s := range f.Series {
			if f.Name == "c_total" && slices.Equal(s.Values, []string{"x"}) {
				found = true
				if s.Value != 4000 {
					t.Errorf("gathered c_total{k=x} %v, want 4000", s.Value)
				}
			}
		}
	}
	if !found {
		t.Error("c_total{k=x} was not gathered")
	}
}

// A store call resolves its series at every call: a known series costs no allocation.
func TestWithOnAKnownSeriesDoesNotAllocate(t *testing.T) {
	c := NewCounterVec("hermes_store_calls_total", "C.", "source", "hook", "op")
	c.With("plugin", "counter", "incr").Inc()
	if n := testing.AllocsPerRun(100, func() { c.With("plugin", "counter", "incr").Inc() }); n != 0 {
		t.Errorf("%v allocations per call on a known series, want 0", n)
	}
}

func TestLabelValuesNeverShareASeries(t *testing.T) {
	c := NewCounterVec("c_total", "C.", "a", "b")
	c.With("x\xffy", "z").Inc()
	c.With("x", "y\xffz").Add(2)
	if a, b := c.With("x\xffy", "z").Value(), c.With("x", "y\xffz").Value(); a != 1 || b != 2 {
		t.Errorf("two lists of values counted together: %v and %v", a, b)
	}
}

func TestCounterNeverGoesDown(t *testing.T) {
	var c Counter
	c.Add(3)
	c.Add(-1)
	c.Add(0.25)
	if v := c.Value(); v != 3.25 {
		t.Errorf("%v, want 3.25", v)
	}
}

func TestWrongLabelCountPanicsWithTheName(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "c_total takes 2 label values, got 1") {
			t.Errorf("recovered %v", r)
		}
	}()
	NewCounterVec("c_total", "C.", "a", "b").With("x")
}

func registryWith(cs ...Collector) *Registry {
	r := NewRegistry()
	r.Register(cs...)
	return r
}
