// Package metrics holds counters and histograms with labels and writes them in Prometheus'
// text exposition format, for the engine's and the hook server's metrics.
//
// It is small on purpose: every `hermesctl hook` call is a new process, and the Prometheus
// client's package initialisation (its default registry with the Go and process
// collectors, procfs, expvar) was about a tenth of such a call's time. A host that
// uses the Prometheus client registers a Collector of this package with its registry
// through package metrics/promcollector.
package metrics

import (
	"bufio"
	"encoding/binary"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Type is a metric family's type.
type Type int

const (
	CounterType Type = iota
	GaugeType
	HistogramType
)

func (t Type) String() string {
	switch t {
	case CounterType:
		return "counter"
	case GaugeType:
		return "gauge"
	default:
		return "histogram"
	}
}

// Family is one metric family's state at the time it was collected.
type Family struct {
	Name, Help string
	Type       Type
	Labels     []string // the label names, in the order of each series' Values
	Series     []Series // sorted by their label values
}

// Series is one series of a family.
type Series struct {
	Values    []string        // label values, one per Family.Labels
	Value     float64         // a counter's or gauge's value
	Histogram *HistogramValue // a histogram's
}

// HistogramValue is a histogram's state: the count of observations up to each bucket's
// upper bound (cumulative, as Prometheus exposes them; the +Inf bucket is Count).
type HistogramValue struct {
	Count   uint64
	Sum     float64
	Buckets []Bucket
}

// Bucket is a histogram bucket: the observations up to UpperBound.
type Bucket struct {
	UpperBound float64
	Count      uint64
}

// Collector is anything whose families a Registry writes.
type Collector interface {
	Collect() []Family
}

// Registry writes the families of its collectors. It is safe for concurrent use.
type Registry struct {
	mu         sync.Mutex
	collectors []Collector
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{} }

// Register adds collectors.
func (r *Registry) Register(cs ...Collector) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.collectors = append(r.collectors, cs...)
}

// Gather collects every family, sorted by name. Families of one name from several
// collectors are merged.
func (r *Registry) Gather() []Family {
	r.mu.Lock()
	cs := slices.Clone(r.collectors)
	r.mu.Unlock()
	var fams []Family
	for _, c := range cs {
		fams = append(fams, c.Collect()...)
	}
	slices.SortStableFunc(fams, func(a, b Family) int { return strings.Compare(a.Name, b.Name) })
	out := fams[:0]
	for _, f := range fams {
		if n := len(out); n > 0 && out[n-1].Name == f.Name {
			out[n-1].Series = append(out[n-1].Series, f.Series...)
			continue
		}
		out = append(out, f)
	}
	return out
}

// ContentType is the media type of the text exposition format.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// ServeHTTP writes the registry's families in the text exposition format.
func (r *Registry) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", ContentType)
	WriteText(w, r.Gather())
}

// WriteText writes families in Prometheus' text exposition format (version 0.0.4). Families
// without series are left out.
func WriteText(w io.Writer, fams []Family) error {
	b := bufio.NewWriter(w)
	for _, f := range fams {
		if len(f.Series) == 0 {
			continue
		}
		b.WriteString("# HELP ")
		b.WriteString(f.Name)
		b.WriteByte(' ')
		b.WriteString(helpEscaper.Replace(f.Help))
		b.WriteString("\n# TYPE ")
		b.WriteString(f.Name)
		b.WriteByte(' ')
		b.WriteString(f.Type.String())
		b.WriteByte('\n')
		// Labels by name, as the Prometheus client writes them.
		order := make([]int, len(f.Labels))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(i, j int) int { return strings.Compare(f.Labels[i], f.Labels[j]) })
		series := slices.Clone(f.Series) // and series by their values in that order, as it does
		slices.SortStableFunc(series, func(a, b Series) int {
			for _, i := range order {
				if c := strings.Compare(a.Values[i], b.Values[i]); c != 0 {
					return c
				}
			}
			return 0
		})
		for _, s := range series {
			w := sample{b: b, name: f.Name, labels: f.Labels, values: s.Values, order: order}
			if s.Histogram == nil {
				w.write("", "", s.Value)
				continue
			}
			h := s.Histogram
			for _, bk := range h.Buckets {
				w.write("_bucket", formatFloat(bk.UpperBound), float64(bk.Count))
			}
			w.write("_bucket", "+Inf", float64(h.Count))
			w.write("_sum", "", h.Sum)
			w.write("_count", "", float64(h.Count))
		}
	}
	return b.Flush()
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	valueEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

// sample writes the samples of one series.
type sample struct {
	b              *bufio.Writer
	name           string
	labels, values []string
	order          []int // label indexes, by label name
}

func (w sample) write(suffix, le string, v float64) {
	b := w.b
	b.WriteString(w.name)
	b.WriteString(suffix)
	if len(w.labels) > 0 || le != "" {
		b.WriteByte('{')
		for n, i := range w.order {
			if n > 0 {
				b.WriteByte(',')
			}
			b.WriteString(w.labels[i])
			b.WriteString(`="`)
			b.WriteString(valueEscaper.Replace(strings.ToValidUTF8(w.values[i], "\uFFFD")))
			b.WriteByte('"')
		}
		if le != "" {
			if len(w.labels) > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`le="`)
			b.WriteString(le)
			b.WriteByte('"')
		}
		b.WriteByte('}')
	}
	b.WriteByte(' ')
	b.WriteString(formatFloat(v))
	b.WriteByte('\n')
}

func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Counter is a count that only goes up. Its methods are safe for concurrent use.
type Counter struct {
	n    atomic.Uint64 // whole increments
	frac atomic.Uint64 // float64 bits of the others
}

// Inc adds one.
func (c *Counter) Inc() { c.n.Add(1) }

// Add adds v; a negative v is ignored (a counter does not go down).
func (c *Counter) Add(v float64) {
	switch {
	case v >= 0 && v < 1<<53 && v == math.Trunc(v):
		c.n.Add(uint64(v))
	case v > 0:
		addFloat(&c.frac, v)
	}
}

// Value is the count.
func (c *Counter) Value() float64 { return float64(c.n.Load()) + math.Float64frombits(c.frac.Load()) }

// addFloat adds v to the float64 whose bits x holds.
func addFloat(x *atomic.Uint64, v float64) {
	for {
		old := x.Load()
		if x.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// Histogram counts observations in buckets. Its methods are safe for concurrent use.
type Histogram struct {
	bounds []float64       // upper bounds, ascending
	counts []atomic.Uint64 // per bucket, not cumulative; the last is +Inf's
	sum    atomic.Uint64   // float64 bits
}

func newHistogram(bounds []float64) *Histogram {
	return &Histogram{bounds: bounds, counts: make([]atomic.Uint64, len(bounds)+1)}
}

// Observe records v.
func (h *Histogram) Observe(v float64) {
	i, _ := slices.BinarySearch(h.bounds, v) // the first bound >= v: le is inclusive
	h.counts[i].Add(1)
	addFloat(&h.sum, v)
}

// Value is the histogram's state.
func (h *Histogram) Value() *HistogramValue {
	v := &HistogramValue{Sum: math.Float64frombits(h.sum.Load()), Buckets: make([]Bucket, len(h.bounds))}
	for i := range h.counts {
		v.Count += h.counts[i].Load()
		if i < len(h.bounds) {
			v.Buckets[i] = Bucket{UpperBound: h.bounds[i], Count: v.Count}
		}
	}
	return v
}

// vec is a family's series by label values.
type vec[T any] struct {
	name, help string
	labels     []string
	make       func() *T

	mu     sync.RWMutex
	series map[string]*vecEntry[T]
}

type vecEntry[T any] struct {
	values []string
	m      *T
}

func (v *vec[T]) with(values []string) *T {
	if len(values) != len(v.labels) {
		panic("metrics: " + v.name + " takes " + strconv.Itoa(len(v.labels)) + " label values, got " + strconv.Itoa(len(values)))
	}
	// The key is each value with its length before it, so that no two lists of values share
	// one; built on the stack, and looked up without making a string (a store call resolves
	// its series at every call), it costs an allocation only for a new series.
	var buf [128]byte
	kb := buf[:0]
	for _, v := range values {
		kb = binary.AppendUvarint(kb, uint64(len(v)))
		kb = append(kb, v...)
	}
	v.mu.RLock()
	e := v.series[string(kb)]
	v.mu.RUnlock()
	if e != nil {
		return e.m
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if e = v.series[string(kb)]; e == nil {
		key := string(kb)
		if v.series == nil {
			v.series = map[string]*vecEntry[T]{}
		}
		e = &vecEntry[T]{values: slices.Clone(values), m: v.make()}
		v.series[key] = e
	}
	return e.m
}

func (v *vec[T]) family(t Type, value func(*T) Series) Family {
	v.mu.RLock()
	f := Family{Name: v.name, Help: v.help, Type: t, Labels: v.labels, Series: make([]Series, 0, len(v.series))}
	for _, e := range v.series {
		s := value(e.m)
		s.Values = slices.Clone(e.values)
		f.Series = append(f.Series, s)
	}
	v.mu.RUnlock()
	slices.SortFunc(f.Series, func(a, b Series) int { return slices.Compare(a.Values, b.Values) })
	return f
}

// CounterVec is a family of counters, one per combination of label values.
type CounterVec struct{ v vec[Counter] }

// NewCounterVec returns a counter family; no labels make a family of one counter (With()),
// there from the start.
func NewCounterVec(name, help string, labels ...string) *CounterVec {
	c := &CounterVec{vec[Counter]{name: name, help: help, labels: labels, make: func() *Counter { return new(Counter) }}}
	if len(labels) == 0 {
		c.With()
	}
	return c
}

// With returns the counter of the label values (in the order of the labels), made at first use.
func (c *CounterVec) With(values ...string) *Counter { return c.v.with(values) }

// Collect returns the family.
func (c *CounterVec) Collect() []Family {
	return []Family{c.v.family(CounterType, func(m *Counter) Series { return Series{Value: m.Value()} })}
}

// HistogramVec is a family of histograms with the same buckets, one per combination of
// label values.
type HistogramVec struct{ v vec[Histogram] }

// NewHistogramVec returns a histogram family with the buckets' upper bounds (ascending;
// +Inf is implied).
func NewHistogramVec(name, help string, buckets []float64, labels ...string) *HistogramVec {
	bounds := slices.Clone(buckets)
	slices.Sort(bounds)
	return &HistogramVec{vec[Histogram]{name: name, help: help, labels: labels, make: func() *Histogram { return newHistogram(bounds) }}}
}

// With returns the histogram of the label values, made at first use.
func (h *HistogramVec) With(values ...string) *Histogram { return h.v.with(values) }

// Collect returns the family.
func (h *HistogramVec) Collect() []Family {
	return []Family{h.v.family(HistogramType, func(m *Histogram) Series { return Series{Histogram: m.Value()} })}
}

// Families are families made by their owner (gauges read when collected, say) as a
// Collector.
type Families []Family

// Collect returns the families.
func (fs Families) Collect() []Family { return fs }

// Collectors is several collectors as one.
type Collectors []Collector

// Collect returns every collector's families, in order.
func (cs Collectors) Collect() []Family {
	var fams []Family
	for _, c := range cs {
		fams = append(fams, c.Collect()...)
	}
	return fams
}
