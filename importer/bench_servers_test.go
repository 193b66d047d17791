package importer

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// benchServerRead reads a generated 1,000,000-line file through the
// pipeline (the dry run's work before the store), reporting the peak heap
// (sampled every 5 ms) and the allocations.
func benchServerRead(b *testing.B, from string, file []byte, wantRules int) {
	b.SetBytes(int64(len(file)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		var peak uint64
		done := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			var m runtime.MemStats
			for {
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapAlloc)
				select {
				case <-done:
					return
				case <-time.After(5 * time.Millisecond):
				}
			}
		})
		res, err := Read(context.Background(), bytes.NewReader(file), from, Options{})
		close(done)
		wg.Wait()
		if err != nil || len(res.Rules) < wantRules {
			b.Fatalf("%v, %d rules, want %d", err, len(res.Rules), wantRules)
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(1<<20), "MiB-alloc/op")
		b.ReportMetric(float64(peak)/(1<<20), "MiB-peak-heap")
	}
}

// BenchmarkReadApache1M: 1,000,000 lines of Redirect (a tenth
// RedirectMatch with a capture), each Redirect two rules.
func BenchmarkReadApache1M(b *testing.B) {
	var buf bytes.Buffer
	for i := 0; i < 1_000_000; i++ {
		if i%10 == 0 {
			fmt.Fprintf(&buf, "RedirectMatch 301 ^/section-%d/(.*)$ /new/section-%d/$1\n", i, i)
		} else {
			fmt.Fprintf(&buf, "Redirect 301 /old/page-%d.html /new/page-%d\n", i, i)
		}
	}
	benchServerRead(b, "apache", buf.Bytes(), 1_000_000)
}

// BenchmarkReadNginx1M: a server block of 1,000,000 location lines, a
// tenth of them ^~ prefixes.
func BenchmarkReadNginx1M(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString("server {\n")
	for i := 0; i < 999_998; i++ {
		if i%10 == 0 {
			fmt.Fprintf(&buf, "    location ^~ /section-%d/ { return 301 /new/section-%d/; }\n", i, i)
		} else {
			fmt.Fprintf(&buf, "    location = /old/page-%d.html { return 301 /new/page-%d; }\n", i, i)
		}
	}
	buf.WriteString("}\n")
	benchServerRead(b, "nginx", buf.Bytes(), 999_998)
}

// BenchmarkReadNginxMap1M: a 1,000,000-line map file.
func BenchmarkReadNginxMap1M(b *testing.B) {
	var buf bytes.Buffer
	for i := 0; i < 1_000_000; i++ {
		fmt.Fprintf(&buf, "/old/page-%d.html /new/page-%d;\n", i, i)
	}
	benchServerRead(b, "nginx", buf.Bytes(), 1_000_000)
}

// BenchmarkReadHAProxy1M: 500,000 rules of the haproxy export's shape
// (an acl line and a redirect line each).
func BenchmarkReadHAProxy1M(b *testing.B) {
	var buf bytes.Buffer
	for i := 0; i < 500_000; i++ {
		fetch := "path"
		if i%10 == 0 {
			fetch = "path_beg"
		}
		fmt.Fprintf(&buf, "acl redirect_%d %s /old/page-%d.html\nhttp-request redirect code 301 location /new/page-%d if redirect_%d\n", i, fetch, i, i, i)
	}
	benchServerRead(b, "haproxy", buf.Bytes(), 500_000)
}

// BenchmarkReadHAProxyMap1M: a 1,000,000-line haproxy-map-prefix file.
func BenchmarkReadHAProxyMap1M(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString("# haproxy-map-prefix: a benchmark\n")
	for i := 0; i < 999_999; i++ {
		fmt.Fprintf(&buf, "/section-%d/ 301 /new/section-%d/\n", i, i)
	}
	benchServerRead(b, "haproxy-map", buf.Bytes(), 999_999)
}
