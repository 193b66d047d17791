//go:build unix

package destcheck

import (
	"context"
	"fmt"
	"net/http"
	"syscall"
	"testing"
	"time"

	"redirects"
)

// BenchmarkCheck10k checks 10,000 destinations at the configured limits
// (2 per host, 16 in all, HEAD answered 200 at once), spread over hosts
// loopback addresses: with 8 hosts the 16 in all bind, with 1 the 2 per
// host do. One op is the whole check.
func BenchmarkCheck10k(b *testing.B) {
	for _, hosts := range []int{1, 8} {
		b.Run(fmt.Sprintf("hosts=%d", hosts), func(b *testing.B) {
			var targets []redirects.CheckTarget
			for h := range hosts {
				u := serveOnCleanup(b, fmt.Sprintf("127.0.0.%d", h+1), http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
				for k := range 10_000 / hosts {
					d := fmt.Sprintf("%s/page/%d", u, k)
					targets = append(targets, redirects.CheckTarget{Destination: d, URL: d})
				}
			}
			c := New(true)
			cpu0 := cpuTime()
			b.ResetTimer()
			for range b.N {
				got, err := c.Check(context.Background(), targets, "", nil)
				if err != nil || len(got) != len(targets) || got[len(got)-1].Outcome != redirects.CheckOK {
					b.Fatalf("Check: %v, %d results", err, len(got))
				}
			}
			b.ReportMetric(float64(len(targets))*float64(b.N)/b.Elapsed().Seconds(), "destinations/s")
			// CPU time (user+sys) of the process per check, the web
			// server's side included: on a loaded machine a steadier
			// figure than the wall clock.
			b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
