package http

import (
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkMetricsObserve measures what the edge pays to count one answer:
// the request counter and the latency histogram.
func BenchmarkMetricsObserve(b *testing.B) {
	m := NewMetrics()
	b.ReportAllocs()
	for b.Loop() {
		m.observe(1, epLookup, 200, 150*time.Microsecond)
	}
}

// BenchmarkMetricsObserveParallel is BenchmarkMetricsObserve from every
// core at once, as the edge's event loops count: each goroutine in a shard
// of its own, as each loop.
func BenchmarkMetricsObserveParallel(b *testing.B) {
	m := NewMetrics()
	var loops atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		shard := int(loops.Add(1))
		for pb.Next() {
			m.observe(shard, epLookup, 200, 150*time.Microsecond)
			m.limiter(shard, 0)
		}
	})
}
