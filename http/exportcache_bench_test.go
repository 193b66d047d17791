package http

import (
	"fmt"
	"strconv"
	"testing"

	"redirects"
)

// BenchmarkExportCacheHit measures one cached export hit (the lookup of a
// file already in memory, which marks it recently used) at several cache
// sizes: the cost must not grow with the number of entries, since every
// export request takes the cache's lock for it.
func BenchmarkExportCacheHit(b *testing.B) {
	for _, n := range []int{100, 10_000, 100_000} {
		b.Run(fmt.Sprintf("entries=%d", n), func(b *testing.B) {
			c := NewExportCache(nil, 1<<40)
			projects := make([]string, n)
			for i := range n {
				projects[i] = "prj_" + strconv.Itoa(i)
				c.lru.add(exportKey{projects[i], 1, "csv"}, &redirects.Export{Format: "csv", Body: []byte("x")})
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				// Stride through the entries so that hits land all over the
				// recency order, not on the entry touched last.
				i = (i + 7919) % n
				if c.Cached(projects[i], 1, "csv") == nil {
					b.Fatal("a cached export was not found")
				}
			}
		})
	}
}
