package importer

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// benchLines is how many lines the readers' benchmarks read.
const benchLines = 1_000_000

// benchRead reads file as format b.N times, and reports the lines read a
// second and the peak of the heap above what it held before (the file
// itself aside), sampled every 5 ms.
func benchRead(b *testing.B, format string, file []byte) {
	b.Helper()
	b.SetBytes(int64(len(file)))
	b.ResetTimer() // the file's making is not the reading
	b.ReportAllocs()
	var peak uint64
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := ms.HeapAlloc
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.NewTicker(5 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
					var m runtime.MemStats
					runtime.ReadMemStats(&m)
					if m.HeapAlloc > base && m.HeapAlloc-base > peak {
						peak = m.HeapAlloc - base
					}
				}
			}
		}()
		before := cpuTime()
		res, err := Read(context.Background(), bytes.NewReader(file), format, Options{})
		cpu += cpuTime() - before
		close(stop)
		wg.Wait()
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Rules) == 0 {
			b.Fatal("no rules read")
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
	// The CPU time of the process (GC included) over the reads: on a
	// shared machine it says more than the wall clock.
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(benchLines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// cpuTime returns the user and system time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkReadVercel: a vercel.json of a million lines (one redirect a
// line: literal sources, :path* and (.*) tails).
func BenchmarkReadVercel(b *testing.B) {
	var f strings.Builder
	f.WriteString("{\n  \"redirects\": [\n")
	n := benchLines - 4
	for i := 0; i < n; i++ {
		sep := ","
		if i == n-1 {
			sep = ""
		}
		switch i % 20 {
		case 0:
			fmt.Fprintf(&f, "    {\"source\": \"/blog%d/:path*\", \"destination\": \"/news/%d/:path*\"}%s\n", i, i, sep)
		case 1:
			fmt.Fprintf(&f, "    {\"source\": \"/docs%d/(.*)\", \"destination\": \"/guide/%d/$1\", \"permanent\": false}%s\n", i, i, sep)
		default:
			fmt.Fprintf(&f, "    {\"source\": \"/page/%d\", \"destination\": \"/new/%d\", \"statusCode\": 301}%s\n", i, i, sep)
		}
	}
	f.WriteString("  ]\n}\n")
	benchRead(b, "vercel", []byte(f.String()))
}

// BenchmarkReadVercelBulk: a bulk redirects CSV of a million lines.
func BenchmarkReadVercelBulk(b *testing.B) {
	var f strings.Builder
	f.WriteString("source,destination,permanent,statusCode,caseSensitive,query\n")
	for i := 1; i < benchLines; i++ {
		fmt.Fprintf(&f, "/old/%d,/new/%d,%s,,%s,t\n", i, i, []string{"t", "f"}[i%2], []string{"", "f"}[i%2])
	}
	benchRead(b, "vercel-bulk", []byte(f.String()))
}

// BenchmarkReadVercelBulkJSONL: the same as JSON lines.
func BenchmarkReadVercelBulkJSONL(b *testing.B) {
	var f strings.Builder
	for i := 0; i < benchLines; i++ {
		fmt.Fprintf(&f, "{\"source\":\"/old/%d\",\"destination\":\"/new/%d\",\"permanent\":true,\"query\":true}\n", i, i)
	}
	benchRead(b, "vercel-bulk", []byte(f.String()))
}

// BenchmarkReadWordPress: Redirection's CSV export, a million lines
// (plain sources and some regexes).
func BenchmarkReadWordPress(b *testing.B) {
	var f strings.Builder
	f.WriteString("source,target,regex,code,type,hits,title,status\n")
	for i := 1; i < benchLines; i++ {
		if i%50 == 0 {
			fmt.Fprintf(&f, "\"^/blog%d/(.*)$\",\"/news/%d/$1\",1,301,\"url\",0,\"\",\"active\"\n", i, i)
			continue
		}
		fmt.Fprintf(&f, "\"/old-page-%d\",\"/new-page-%d\",0,301,\"url\",%d,\"Page %d\",\"active\"\n", i, i, i%7, i)
	}
	benchRead(b, "wordpress", []byte(f.String()))
}

// BenchmarkReadWordPressJSON: Redirection's JSON export, a redirect a
// line, a million lines.
func BenchmarkReadWordPressJSON(b *testing.B) {
	var f strings.Builder
	f.WriteString("{\n  \"plugin\": {\"version\": \"5.4.2\"},\n  \"groups\": [],\n  \"redirects\": [\n")
	n := benchLines - 6
	for i := 0; i < n; i++ {
		sep := ","
		if i == n-1 {
			sep = ""
		}
		fmt.Fprintf(&f, "    {\"id\":%d,\"url\":\"/old/%d\",\"match_url\":\"/old/%d\",\"match_data\":{\"source\":{\"flag_query\":\"exact\",\"flag_case\":true,\"flag_trailing\":true,\"flag_regex\":false}},\"action_code\":301,\"action_type\":\"url\",\"action_data\":{\"url\":\"/new/%d\"},\"match_type\":\"url\",\"regex\":false,\"group_id\":1,\"position\":%d,\"enabled\":true}%s\n", i+1, i, i, i, i, sep)
	}
	f.WriteString("  ]\n}\n")
	benchRead(b, "wordpress", []byte(f.String()))
}
