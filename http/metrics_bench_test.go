package http

import (
	"testing"
	"time"
)

// BenchmarkMetricsObserve measures what the edge pays to count one answer:
// the request counter and the latency histogram.
func BenchmarkMetricsObserve(b *testing.B) {
	m := NewMetrics()
	b.ReportAllocs()
	for b.Loop() {
		m.observe(epLookup, 200, 150*time.Microsecond)
	}
}

// BenchmarkMetricsObserveParallel is BenchmarkMetricsObserve from every
// core at once, as the edge's event loops count.
func BenchmarkMetricsObserveParallel(b *testing.B) {
	m := NewMetrics()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.observe(epLookup, 200, 150*time.Microsecond)
		}
	})
}
