package edge

import (
	"fmt"
	"strconv"
	"testing"

	"redirects"
)

// BenchmarkExportCacheHit measures one cached export hit (finding a file
// already in memory and marking it recently used, under the cache's lock,
// which every export request takes) at several cache sizes. The hits go to
// 100 hot entries spread through the cache ("hot"), which isolates the
// cache's own work: it must not grow with the number of entries. "spread"
// strides over every entry, which adds the memory's cost of touching a
// large working set.
func BenchmarkExportCacheHit(b *testing.B) {
	for _, mode := range []string{"hot", "spread"} {
		for _, n := range []int{100, 10_000, 100_000} {
			b.Run(fmt.Sprintf("%s/entries=%d", mode, n), func(b *testing.B) {
				c := NewExportCache(nil, 1<<40)
				projects := make([]string, n)
				for i := range n {
					projects[i] = "prj_" + strconv.Itoa(i)
					c.lru.add(exportKey{projects[i], 1, "csv"}, &redirects.Export{Format: "csv", Body: []byte("x")})
				}
				hits := projects
				if mode == "hot" {
					hits = nil
					for i := 0; i < n; i += n / 100 {
						hits = append(hits, projects[i])
					}
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					// A prime stride lands the hits all over the recency
					// order, never on the entry touched last.
					i = (i + 7919) % len(hits)
					if c.Cached(hits[i], 1, "csv") == nil {
						b.Fatal("a cached export was not found")
					}
				}
			})
		}
	}
}
