//go:build linux

package main

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// load is one measured wrk run against one server.
type load struct {
	RPS        float64
	Requests   int64
	P50, P99   time.Duration
	CPUPerReq  time.Duration // server CPU (user+system) per request
	PeakRSS    int64         // VmHWM of the server at the end of the run
	Non2xx3xx  int64
	SockErrors string // wrk's "Socket errors" line, if any
	ExtraCPU   time.Duration
	// RedisCalls is the commands the server's Redis ran during the run
	// (INFO commandstats, the runner's own INFO left out); -1 without Redis.
	RedisCalls int64
}

var (
	reRPS      = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	reRequests = regexp.MustCompile(`(\d+) requests in `)
	reNon2xx   = regexp.MustCompile(`Non-2xx or 3xx responses:\s+(\d+)`)
	reSockErr  = regexp.MustCompile(`Socket errors:[^\n]*`)
	rePct      = regexp.MustCompile(`(?m)^\s+(50|99)(?:\.000)?%\s+([0-9.]+)(us|ms|s|m)\s*$`)
)

// wrkArgs is the load generator: one thread, 64 keep-alive connections,
// pinned to CPU 1 when the server is at oneCore, on any CPU otherwise.
func wrkArgs(at placement, d time.Duration, header, url string) []string {
	secs := max(1, int(d.Round(time.Second)/time.Second))
	a := []string{"wrk", "-t1", "-c64", "-d" + strconv.Itoa(secs) + "s", "--latency", "--timeout", "10s"}
	if at == oneCore {
		a = append([]string{"taskset", "-c", "1"}, a...)
	}
	if header != "" {
		a = append(a, "-H", header)
	}
	return append(a, url)
}

// measure runs wrk against url for d (after a 1 s warm-up that is not
// counted, if warm) and returns the figures, with the CPU time and peak
// memory of the server process pid and, if other > 0, the CPU time per
// request of another process (a Redis the server uses, listening on
// redisPort: its commands are counted too). The server runs at oneCore.
func (r *runner) measure(ctx context.Context, pid, other, redisPort int, url, header string, d time.Duration, warm bool) (*load, error) {
	return r.measureAt(ctx, oneCore, pid, other, redisPort, url, header, d, warm)
}

// measureAt is measure for a server placed as at says; the server's CPU time
// is that of pid and its child processes (nginx's workers).
func (r *runner) measureAt(ctx context.Context, at placement, pid, other, redisPort int, url, header string, d time.Duration, warm bool) (*load, error) {
	if warm {
		if _, _, _, err := command(ctx, 30*time.Second, nil, wrkArgs(at, time.Second, header, url)...); err != nil {
			return nil, err
		}
	}
	c0, err := treeTicks(pid)
	if err != nil {
		return nil, fmt.Errorf("server process gone: %w", err)
	}
	var o0 int64
	if other > 0 {
		o0, _ = cpuTicks(other)
	}
	calls0 := int64(-1)
	if redisPort > 0 {
		if calls0, err = redisCalls(redisPort); err != nil {
			return nil, err
		}
	}
	out, _, _, err := command(ctx, d+60*time.Second, nil, wrkArgs(at, d, header, url)...)
	if err != nil {
		return nil, err
	}
	c1, err := treeTicks(pid)
	if err != nil {
		return nil, fmt.Errorf("server process gone during the run: %w", err)
	}
	l, err := parseWrk(out)
	if err != nil {
		return nil, err
	}
	if l.Requests > 0 {
		l.CPUPerReq = time.Duration(float64(c1-c0) / r.clkTck * 1e9 / float64(l.Requests))
		if other > 0 {
			o1, _ := cpuTicks(other)
			l.ExtraCPU = time.Duration(float64(o1-o0) / r.clkTck * 1e9 / float64(l.Requests))
		}
	}
	l.PeakRSS, _ = peakRSS(pid)
	l.RedisCalls = -1
	if calls0 >= 0 {
		calls1, err := redisCalls(redisPort)
		if err != nil {
			return nil, err
		}
		l.RedisCalls = calls1 - calls0
	}
	return l, nil
}

// parseWrk reads wrk's report (with --latency).
func parseWrk(out string) (*load, error) {
	l := &load{}
	m := reRPS.FindStringSubmatch(out)
	n := reRequests.FindStringSubmatch(out)
	if m == nil || n == nil {
		return nil, fmt.Errorf("unreadable wrk output:\n%s", out)
	}
	l.RPS, _ = strconv.ParseFloat(m[1], 64)
	l.Requests, _ = strconv.ParseInt(n[1], 10, 64)
	if m := reNon2xx.FindStringSubmatch(out); m != nil {
		l.Non2xx3xx, _ = strconv.ParseInt(m[1], 10, 64)
	}
	l.SockErrors = reSockErr.FindString(out)
	for _, m := range rePct.FindAllStringSubmatch(out, -1) {
		v, _ := strconv.ParseFloat(m[2], 64)
		unit := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second, "m": time.Minute}[m[3]]
		d := time.Duration(v * float64(unit))
		if m[1] == "50" {
			l.P50 = d
		} else {
			l.P99 = d
		}
	}
	return l, nil
}

// errorsNote describes what went wrong in a run, or "".
func (l *load) errorsNote() string {
	var s []string
	if l.Non2xx3xx > 0 {
		s = append(s, fmt.Sprintf("%d non-2xx/3xx", l.Non2xx3xx))
	}
	if l.SockErrors != "" {
		s = append(s, strings.TrimPrefix(l.SockErrors, "Socket errors: "))
	}
	return strings.Join(s, "; ")
}
