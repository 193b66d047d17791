//go:build linux

package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

type report struct {
	cfg     config
	machine machine
	build   time.Duration
	scale   []*scaleResult
	sbs     *sbsResult
	pairs   []*pairResult
	export  *exportResult
	elapsed time.Duration
}

const million = 1_000_000

func (rep *report) markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	c := rep.cfg
	m := rep.machine

	p("# bench/run report\n\n")
	p("Finished %s, elapsed %s.\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), rep.elapsed.Round(time.Second))

	p("## Machine\n\n| | |\n|---|---|\n")
	p("| CPUs (nproc) | %s |\n| CPU | %s |\n| kernel | %s |\n| Go | %s |\n", m.nproc, m.cpu, m.kernel, m.goVersion)
	p("| nginx | %s |\n| HAProxy | %s |\n| wrk | %s |\n| Redis | %s |\n", m.nginx, m.haproxy, m.wrk, m.redis)
	p("| load average (1, 5, 15 min) at start; at end | %s; %s |\n\n", m.loadStart, m.loadEnd)
	p("Absolute figures drift with a shared host by 10-20%%: compare within one report.\n\n")

	p("## Command\n\n```sh\n%s\n```\n\n", commandLine(c.args))
	warm := "after a 1 s warm-up run that is not counted"
	if !c.warmup {
		warm = "without warm-up"
	}
	p("- Rules: `rulegen.RulesDeeper(n, %v, %d, %d)` (`-prefix-share`, `-seed`, `-extra-depth`: 0..N more path segments), so paths and their lengths follow the generator's distribution", c.prefixShare, c.seed, c.extraDepth)
	if rep.sbs != nil {
		l := rep.sbs.srcLen
		p(" (source bytes in the side-by-side set: min %d, median %d, p99 %d, max %d)", l.min, l.p50, l.p99, l.max)
	}
	p(".\n")
	p("- Load: `wrk -t1 -c64 --latency`, keep-alive, on 127.0.0.1; each server pinned to CPU 0 (`taskset -c 0`), wrk to CPU 1, except in the all-cores comparison, where nothing is pinned; runs of %s side by side and %s in the scale series, %s.\n", c.duration, c.scaleDuration, warm)
	p("- CPU/request: the server's user+system time (`/proc/PID/stat`) over the measured run divided by the requests wrk completed; peak RSS: `VmHWM` at the end of the run.\n")
	p("- Engine: `testing.Benchmark` (benchtime %s) of `Snapshot.Lookup` over up to %d sample paths per kind: exact sources, starts_with sources + `/more`, random paths no rule matches. Snapshot size: heap after GC, after minus before `engine.Compile`.\n", c.benchtime, maxSamples)
	p("- Build of the redirects binary: %s.\n\n", dur(rep.build))

	rep.scaleSection(&b)
	rep.sbsSection(&b)
	rep.pairSection(p)
	rep.exportSection(&b)
	rep.goalsSection(&b)
	p("Elapsed: %s.\n", rep.elapsed.Round(time.Second))
	return b.String()
}

func (rep *report) scaleSection(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("## Scale series\n\n")
	p("Import and deploy through the real CLI (`redirects rule import`, `redirects deploy`, which renders all seven exports) on a fresh SQLite file; engine in process.\n\n")
	p("| rules | CSV | import | deploy | import + deploy | database | compile | snapshot bytes/rule | exact hit ns | prefix hit ns | miss ns | allocs/lookup |\n")
	p("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, s := range rep.scale {
		p("| %s | %s | %s | %s | %s | %s | %s | %.0f | %.0f | %.0f | %.0f | %d |\n", num(s.d.n), mib(s.d.csvBytes), dur(s.d.importTime), dur(s.d.deployTime),
			dur(s.d.importTime+s.d.deployTime), mib(s.d.dbBytes), dur(s.compile), s.bytesPerRule, s.ns[0], s.ns[1], s.ns[2], max(s.allocs[0], s.allocs[1], s.allocs[2]))
	}
	p("\n`redirects serve` on each database (evhttp engine), exact hits:\n\n")
	p("| rules | ready after | req/s | p50 | p99 | CPU/request | peak RSS | errors |\n|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, s := range rep.scale {
		l := s.serve
		p("| %s | %s | %s | %s | %s | %s | %s | %s |\n", num(s.d.n), dur(s.ready), num(int(l.RPS)), dur(l.P50), dur(l.P99), us(l.CPUPerReq), mib(l.PeakRSS), dash(l.errorsNote()))
	}
	if len(rep.scale) > 0 {
		last := rep.scale[0]
		for _, s := range rep.scale {
			if s.d.n >= last.d.n {
				last = s
			}
		}
		if r := strings.TrimSpace(last.d.deployReport); r != "" {
			p("\nThe deploy of %s rules said (stderr):\n\n```\n%s\n```\n", num(last.d.n), clip(r, 12))
		}
	}
	p("\n")
}

func (rep *report) sbsSection(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	s := rep.sbs
	if s == nil {
		return
	}
	p("## Side by side: %s rules (%s exact, %s starts_with)\n\n", num(s.n), num(s.exactN), num(s.prefixN))
	p("One fixed path per run; `redirects serve` gets `/v1/lookup?project=..&path=..` with `X-API-Key`, nginx and HAProxy the path itself. Every server answered each path correctly once (status and destination) before it was measured.\n\n")
	for _, t := range s.targets {
		switch {
		case !t.match:
			p("- %s: `%s`: 204\n", t.kind, t.path)
		case t.exact:
			p("- %s: `%s`: %d to `%s` (nginx and HAProxy maps: 301, they have no status column)\n", t.kind, t.path, t.status, t.dest)
		default:
			p("- %s: `%s`: %d to `%s`; the answering rule is number %s of %s starts_with rules in priority order (nginx-map-prefix tries that many regular expressions; a miss tries all of them)\n",
				t.kind, t.path, t.status, t.dest, num(t.rank), num(s.prefixN))
		}
	}
	p("\n| server | path | req/s | p50 | p99 | CPU/request | peak RSS | req/s vs nginx (maps) | CPU/request vs nginx (maps) | errors |\n")
	p("|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, r := range s.runs {
		l := r.l
		rr, rc := "-", "-"
		if base := s.baseline(r.kind); base != nil && r.srv.name != "nginx (maps)" {
			rr, rc = ratio(l.RPS, base.RPS), ratio(float64(l.CPUPerReq), float64(base.CPUPerReq))
		}
		cpu := us(l.CPUPerReq)
		if r.srv.redis != nil {
			cpu += fmt.Sprintf(" (+ Redis %s)", us(l.ExtraCPU))
		}
		if l.RedisCalls >= 0 && l.Requests > 0 {
			cpu += fmt.Sprintf("; Redis round trips/request %.5f", float64(l.RedisCalls)/float64(l.Requests))
		}
		p("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.srv.name, s.targets[r.kind].kind, num(int(l.RPS)), dur(l.P50), dur(l.P99), cpu, mib(l.PeakRSS), rr, rc, dash(l.errorsNote()))
	}
	p("\nServers:\n\n")
	for _, srv := range s.servers {
		p("- %s: %s; answering %s after start.\n", srv.name, srv.config, dur(srv.ready))
	}
	for _, n := range s.notes {
		p("- %s.\n", n)
	}
	p("- nginx runs one process (`master_process off; worker_processes 1;`, access log off, otherwise its defaults, so `pcre_jit` is off and `keepalive_requests` is 1000); HAProxy runs in the foreground (`-db`).\n\n")
}

// baseline returns nginx (maps)'s run on the same path.
func (s *sbsResult) baseline(kind int) *load {
	for _, r := range s.runs {
		if r.srv.name == "nginx (maps)" && r.kind == kind {
			return r.l
		}
	}
	return nil
}

// run returns the named server's run on a path.
func (s *sbsResult) run(name string, kind int) *load {
	for _, r := range s.runs {
		if r.srv.name == name && r.kind == kind {
			return r.l
		}
	}
	return nil
}

func (rep *report) exportSection(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	e := rep.export
	if e == nil {
		return
	}
	p("## Export download\n\n")
	p("The `nginx` export of the %s-rule scale deployment, `GET /v1/export?project=..&format=nginx` through `redirects serve` on 127.0.0.1, three downloads each, timed to the last byte.\n\n", num(e.n))
	p("| Accept-Encoding | status | Content-Encoding | bytes received | time (median of 3) | all three |\n|---|---:|---|---:|---:|---|\n")
	compressed := false
	for _, r := range e.rows {
		var all []string
		for _, t := range r.times {
			all = append(all, dur(t))
		}
		if r.accept != "" && r.encoding != "" {
			compressed = true
		}
		p("| %s | %d | %s | %s | %s | %s |\n", dash(r.accept), r.status, dash(r.encoding), num(int(r.bytes)), dur(r.median()), strings.Join(all, ", "))
	}
	if !compressed {
		p("\nThe server does not compress: with `Accept-Encoding: gzip` it sends the same uncompressed bytes.")
	} else {
		p("\nThe server sends the encodings the deploy compressed and stored (zstd at its fastest level, gzip at level 1), never compressing per request; each decodes to the uncompressed body (checked).")
		for _, r := range e.rows {
			if r.encoding != "" && e.bodySize > 0 {
				p(" %s: %.1f%% of the bytes.", r.encoding, 100*float64(r.bytes)/float64(e.bodySize))
			}
		}
	}
	if e.gzBytes > 0 {
		p(" For scale, `compress/gzip` at the default level makes %s bytes of the %s-byte body (%.1f%%) in %s in process.", num(int(e.gzBytes)), num(int(e.bodySize)), 100*float64(e.gzBytes)/float64(e.bodySize), dur(e.gzTime))
	}
	p("\n\n")
}

func (rep *report) goalsSection(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("## Goals\n\n| goal | target | measured | |\n|---|---|---|---|\n")
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "**not met**"
	}
	for _, pr := range rep.pairs {
		where := map[placement]string{oneCore: "one core each", allCores: "all cores, defaults"}[pr.at]
		er, nr := median(pr.edge, rps), median(pr.nginx, rps)
		ec, nc := median(pr.edge, cpu), median(pr.nginx, cpu)
		p("| lookup exact hits, req/s vs nginx (maps), %s rules, %s (median of %d) | >= 0.80x (goal 1.0x) | %.2fx (%s vs %s req/s) | %s |\n",
			num(rep.sbs.n), where, len(pr.edge), er/nr, num(int(er)), num(int(nr)), verdict(er/nr >= 0.8))
		p("| lookup exact hits, CPU/request vs nginx (maps), %s rules, %s (median of %d) | <= 1.25x (goal 1.0x) | %.2fx (%s vs %s) | %s |\n",
			num(rep.sbs.n), where, len(pr.edge), ec/nc, us(time.Duration(ec)), us(time.Duration(nc)), verdict(ec/nc <= 1.25))
	}
	if s := rep.sbs; s != nil {
		kinds := []int{0, 2}
		if len(rep.pairs) > 0 {
			kinds = []int{2} // exact hits: the rows above
		}
		for _, k := range kinds {
			kind := s.targets[k].kind
			red, base := s.run("redirects serve", k), s.baseline(k)
			if red == nil || base == nil {
				continue
			}
			rr := red.RPS / base.RPS
			rc := float64(red.CPUPerReq) / float64(base.CPUPerReq)
			p("| lookup %ss, req/s vs nginx (maps), %s rules | >= 0.80x | %.2fx (%s vs %s req/s) | %s |\n", kind, num(s.n), rr, num(int(red.RPS)), num(int(base.RPS)), verdict(rr >= 0.8))
			p("| lookup %ss, CPU/request vs nginx (maps), %s rules | <= 1.25x | %.2fx (%s vs %s) | %s |\n", kind, num(s.n), rc, us(red.CPUPerReq), us(base.CPUPerReq), verdict(rc <= 1.25))
		}
		// Shared limits against limits counted in the process, exact hits
		// (issue 13): the goal is 0.95x, the floor 0.80x; and Redis round
		// trips per request far from the limits, goal under 0.01.
		for _, name := range []string{"redirects serve --redis", "redirects serve --redis, limited"} {
			shared, local := s.run(name, 0), s.run("redirects serve", 0)
			if shared == nil || local == nil {
				continue
			}
			rr := shared.RPS / local.RPS
			p("| lookup exact hits, `%s` req/s vs in-process, %s rules | >= 0.80x (goal 0.95x) | %.2fx (%s vs %s req/s) | %s |\n",
				strings.TrimPrefix(name, "redirects "), num(s.n), rr, num(int(shared.RPS)), num(int(local.RPS)), verdict(rr >= 0.8))
			if shared.RedisCalls >= 0 && shared.Requests > 0 {
				trips := float64(shared.RedisCalls) / float64(shared.Requests)
				p("| Redis round trips per request, `%s`, far from the limits | < 0.01 | %.5f (%s for %s requests) | %s |\n",
					strings.TrimPrefix(name, "redirects "), trips, num(int(shared.RedisCalls)), num(int(shared.Requests)), verdict(trips < 0.01))
			}
		}
	}
	var at1M, largest *scaleResult
	for _, s := range rep.scale {
		if s.d.n == million {
			at1M = s
		}
		if largest == nil || s.d.n > largest.d.n {
			largest = s
		}
	}
	notAt := func(what string) string {
		if largest == nil {
			return "not measured | -"
		}
		return fmt.Sprintf("not measured at 1M (%s at %s rules) | not measured", what, num(largest.d.n))
	}
	worst := func(s *scaleResult) float64 { return max(s.ns[0], s.ns[1], s.ns[2]) }
	if at1M != nil {
		w := worst(at1M)
		p("| engine lookup at 1M rules (slowest of exact hit, prefix hit, miss) | < 1 us | %.0f ns | %s |\n", w, verdict(w < 1000))
	} else if largest != nil {
		p("| engine lookup at 1M rules (slowest of exact hit, prefix hit, miss) | < 1 us | %s |\n", notAt(fmt.Sprintf("%.0f ns", worst(largest))))
	}
	if largest != nil {
		p("| snapshot size (at %s rules) | < 300 bytes/rule | %.0f bytes/rule | %s |\n", num(largest.d.n), largest.bytesPerRule, verdict(largest.bytesPerRule < 300))
	}
	if at1M != nil {
		t := at1M.d.importTime + at1M.d.deployTime
		p("| import + deploy of 1M rules | < 30 s | %s (import %s, deploy %s) | %s |\n", dur(t), dur(at1M.d.importTime), dur(at1M.d.deployTime), verdict(t < 30*time.Second))
		p("| serving-node memory, one 1M-rule project (peak RSS of serve) | < 1 GiB | %s | %s |\n", mib(at1M.serve.PeakRSS), verdict(at1M.serve.PeakRSS < 1<<30))
	} else if largest != nil {
		p("| import + deploy of 1M rules | < 30 s | %s |\n", notAt(dur(largest.d.importTime+largest.d.deployTime)))
		p("| serving-node memory, one 1M-rule project (peak RSS of serve) | < 1 GiB | %s |\n", notAt(mib(largest.serve.PeakRSS)))
	}
	if rep.sbs != nil {
		p("\nnginx (maps) answers a prefix hit or a miss by trying nginx-map-prefix's regular expressions one by one (docs/exports.md), so the prefix-hit ratios compare with that; nginx (locations) and HAProxy (maps), where measured, are in the side-by-side table.\n")
	}
	p("\n")
}

// commandLine is the command as typed, shell-quoted.
func commandLine(args []string) string {
	out := []string{"bench/run"}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out = append(out, a)
	}
	return strings.Join(out, " ")
}

func num(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func dur(d time.Duration) string {
	switch {
	case d <= 0:
		return "0"
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f us", float64(d)/1e3)
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/1e6)
	case d < time.Second:
		return fmt.Sprintf("%.0f ms", float64(d)/1e6)
	case d < time.Minute:
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return d.Round(time.Second).String()
}

// us formats a CPU time per request.
func us(d time.Duration) string {
	if d >= time.Millisecond {
		return fmt.Sprintf("%.2f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.1f us", float64(d)/1e3)
}

func mib(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

func ratio(a, b float64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func clip(s string, lines int) string {
	l := strings.Split(s, "\n")
	if len(l) > lines {
		l = append(l[:lines], fmt.Sprintf("... (%d more lines)", len(l)-lines))
	}
	return strings.Join(l, "\n")
}
