package importer

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"redirects/internal/hostileimport"
)

// nestedSkips returns a file of n skips of kafka's shape whose windows all
// end at the file's end, then m redirects inside them all.
func nestedSkips(n, m int) string {
	var b strings.Builder
	b.WriteString("RewriteEngine On\n")
	for i := range n {
		word := ""
		for k := i; ; k /= 26 {
			word += string(rune('a' + k%26))
			if k < 26 {
				break
			}
		}
		fmt.Fprintf(&b, "RewriteRule ^/?(\\d+)/%s - [S=%d]\n", word, n+m-1-i)
	}
	for range m {
		b.WriteString("RewriteRule ^/?(\\d+)/([a-z]+)(\\.html)? /$1/documentation#$2 [R=302,L,NE]\n")
	}
	return b.String()
}

// BenchmarkApacheSkips reads Apache files of many [S=n] windows open at
// once (BENCHMARKS.md, "Apache skips"): 2,000 nested skips then 200
// redirects inside them, 20,000 nested skips, and hostileimport's
// ApacheSkips of 100 KB (a skip and a redirect a unit).
func BenchmarkApacheSkips(b *testing.B) {
	shape := func(size int64) string {
		out, err := io.ReadAll(hostileimport.ApacheSkips().Reader(size))
		if err != nil {
			b.Fatal(err)
		}
		return string(out)
	}
	for _, c := range []struct{ name, text string }{
		{"2000-skips-200-redirects", nestedSkips(2000, 200)},
		{"20000-skips", nestedSkips(20000, 0)},
		{"hostile-shape-100KB", shape(100 << 10)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				res, err := Read(context.Background(), bytes.NewReader([]byte(c.text)), "apache", Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(res.Rules)), "rules")
			}
		})
	}
}
