package importer

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// benchFileLines is how many lines the benchmarks' files hold.
const benchFileLines = 1_000_000

// writeBenchFile writes a file of benchLines lines made by line(i) under the
// benchmark's temporary directory (never the repository), and returns its
// path.
func writeBenchFile(b *testing.B, name string, header string, line func(i int) string) string {
	b.Helper()
	p := filepath.Join(b.TempDir(), name)
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(header)
	for i := 0; i < benchFileLines; i++ {
		w.WriteString(line(i))
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return p
}

// benchReadFile reads the file as format from, b.N times, and reports the
// process's peak resident memory.
func benchReadFile(b *testing.B, p, from string, o Options) {
	b.Helper()
	st, _ := os.Stat(p)
	b.SetBytes(st.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		res, err := Read(context.Background(), f, from, o)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		if res.AsIs+res.Changed+res.Skipped < benchFileLines/5 {
			b.Fatalf("only %d lines classed", res.AsIs+res.Changed+res.Skipped)
		}
	}
	b.StopTimer()
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MB")
	}
}

// BenchmarkReadNetlify: a 1,000,000-line _redirects file (exact lines,
// splats, a rewrite and a comment every so often).
func BenchmarkReadNetlify(b *testing.B) {
	p := writeBenchFile(b, "_redirects", "# generated\n", func(i int) string {
		switch i % 50 {
		case 0:
			return fmt.Sprintf("/section%d/*  /s%d/:splat  302\n", i, i)
		case 1:
			return fmt.Sprintf("/spa%d/*  /index.html  200\n", i)
		case 2:
			return "# a comment\n"
		}
		return fmt.Sprintf("/old/page-%d  /new/page-%d  301\n", i, i)
	})
	benchReadFile(b, p, "netlify", Options{})
}

// BenchmarkReadCloudflare: a 1,000,000-line Bulk Redirects CSV.
func BenchmarkReadCloudflare(b *testing.B) {
	p := writeBenchFile(b, "bulk.csv", "", func(i int) string {
		if i%50 == 0 {
			return fmt.Sprintf("example.com/dir%d/,https://example.com/d%d/,308,TRUE,,TRUE,\n", i, i)
		}
		return fmt.Sprintf("example.com/old/page-%d,https://example.com/new/page-%d,301,,,,\n", i, i)
	})
	benchReadFile(b, p, "cloudflare", Options{Hosts: []string{"example.com"}})
}

// BenchmarkReadShopify: a 1,000,000-row Shopify URL redirects CSV.
func BenchmarkReadShopify(b *testing.B) {
	p := writeBenchFile(b, "redirects.csv", "Redirect from,Redirect to\n", func(i int) string {
		return fmt.Sprintf("/old/page-%d,/products/item-%d\n", i, i)
	})
	benchReadFile(b, p, "shopify", Options{})
}

// BenchmarkReadNetlifyTOML: a 1,000,000-line netlify.toml (250,000
// [[redirects]] tables of four lines).
func BenchmarkReadNetlifyTOML(b *testing.B) {
	p := writeBenchFile(b, "netlify.toml", "[build]\n  publish = \"public\"\n", func(i int) string {
		switch i % 4 {
		case 0:
			return "[[redirects]]\n"
		case 1:
			return fmt.Sprintf("  from = \"/old/page-%d\"\n", i)
		case 2:
			return fmt.Sprintf("  to = \"/new/page-%d\"\n", i)
		}
		return "  status = 301\n"
	})
	benchReadFile(b, p, "netlify-toml", Options{})
}
