// Package promcollector makes a metrics.Collector (an engine's Metrics, say) a
// prometheus.Collector, for hosts whose metrics go through the Prometheus client:
//
//	prometheus.MustRegister(promcollector.New(m))
package promcollector

import (
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hermes-hooks/hermes/metrics"
)

// New returns a prometheus.Collector of c's families. It is unchecked (it describes no
// metrics ahead): c's series appear as they are made.
func New(c metrics.Collector) prometheus.Collector { return collector{c} }

type collector struct{ c metrics.Collector }

func (collector) Describe(chan<- *prometheus.Desc) {}

func (p collector) Collect(ch chan<- prometheus.Metric) {
	for _, f := range p.c.Collect() {
		if len(f.Series) == 0 {
			continue
		}
		desc := prometheus.NewDesc(f.Name, f.Help, f.Labels, nil)
		for _, s := range f.Series {
			values := make([]string, len(s.Values)) // the client refuses label values that are not UTF-8
			for i, v := range s.Values {
				values[i] = strings.ToValidUTF8(v, "\uFFFD")
			}
			var m prometheus.Metric
			var err error
			switch {
			case s.Histogram != nil:
				buckets := make(map[float64]uint64, len(s.Histogram.Buckets))
				for _, b := range s.Histogram.Buckets {
					buckets[b.UpperBound] = b.Count
				}
				m, err = prometheus.NewConstHistogram(desc, s.Histogram.Count, s.Histogram.Sum, buckets, values...)
			case f.Type == metrics.CounterType:
				m, err = prometheus.NewConstMetric(desc, prometheus.CounterValue, s.Value, values...)
			default:
				m, err = prometheus.NewConstMetric(desc, prometheus.GaugeValue, s.Value, values...)
			}
			if err != nil {
				m = prometheus.NewInvalidMetric(desc, err)
			}
			ch <- m
		}
	}
}
