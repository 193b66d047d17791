package importer

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkReadCSV1M reads a 1,000,000-line draft CSV through the pipeline
// (the dry run's work before the store), reporting the peak heap.
func BenchmarkReadCSV1M(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString("source,destination,statusCode,matchType\n")
	for i := 0; i < 1_000_000; i++ {
		if i%10 == 0 {
			fmt.Fprintf(&buf, "/section-%d/,/new/section-%d/,301,starts_with\n", i, i)
		} else {
			fmt.Fprintf(&buf, "/old/page-%d.html,/new/page-%d,301,exact\n", i, i)
		}
	}
	file := buf.Bytes()
	b.SetBytes(int64(len(file)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		res, err := Read(context.Background(), bytes.NewReader(file), "csv", Options{})
		if err != nil || len(res.Rules) != 1_000_000 {
			b.Fatalf("%v, %d rules", err, len(res.Rules))
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), "MiB-alloc/op")
	}
}
