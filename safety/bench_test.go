package safety

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"redirects/internal/rulegen"

	"redirects"
)

// benchHosts are two of the generator's hosts, taken as the project's own
// so that absolute destinations are followed too.
var benchHosts = []string{"www.example.com", "shop.example.org"}

// BenchmarkLint1M lints a million generated rules (30% starts_with), the
// size a deploy must lint in under 10 s (BENCHMARKS.md has the figures):
//
//	go test -run '^$' -bench 'Lint1M|Diff1M' -benchtime 3x ./safety
func BenchmarkLint1M(b *testing.B) {
	rules := rulegen.Rules(1_000_000, 0.3, 1)
	var findings []Finding
	cpu := cpuTime()
	for b.Loop() {
		findings = Lint(rules, LintOptions{Hosts: benchHosts})
	}
	reportCPU(b, cpu)
	e, w := Count(findings)
	b.ReportMetric(float64(e), "errors")
	b.ReportMetric(float64(w), "warnings")
}

// BenchmarkLint1MOptions lints the same million rules with the options in
// use and both settings on (caseSensitive=false, trailingSlash=ignore):
// half the starts_with rules keep the path, a third of all rules the
// query, and a tenth of them answer 307, 308 or 410 (withOptions).
//
//	go test -run '^$' -bench 'Lint1MOptions' -benchtime 3x ./safety
func BenchmarkLint1MOptions(b *testing.B) {
	rules := withOptions(rulegen.Rules(1_000_000, 0.3, 1))
	s := redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}
	var findings []Finding
	cpu := cpuTime()
	for b.Loop() {
		findings = Lint(rules, LintOptions{Hosts: benchHosts, Settings: s})
	}
	reportCPU(b, cpu)
	e, w := Count(findings)
	b.ReportMetric(float64(e), "errors")
	b.ReportMetric(float64(w), "warnings")
}

// withOptions sets options on generated rules, deterministically by
// position: preservePath on every other starts_with rule, preserveQuery on
// every third rule, and statuses 307, 308 and 410 on every tenth.
func withOptions(rules []redirects.Rule) []redirects.Rule {
	for i := range rules {
		r := &rules[i]
		if r.MatchType == redirects.StartsWith && i%2 == 0 {
			r.PreservePath = true
		}
		if i%3 == 0 {
			r.PreserveQuery = true
		}
		switch i % 30 {
		case 7:
			r.StatusCode = 307
		case 17:
			r.StatusCode = 308
		case 27:
			r.StatusCode, r.Destination, r.PreservePath, r.PreserveQuery = redirects.StatusGone, "", false, false
		}
	}
	return rules
}

// BenchmarkDiff1M diffs a million generated rules against a version with
// 1% of the rules removed, 1% changed and 1% added.
func BenchmarkDiff1M(b *testing.B) {
	from := rulegen.Rules(1_000_000, 0.3, 1)
	extra := rulegen.Rules(10_000, 0.3, 2)
	to := make([]redirects.Rule, 0, len(from)+len(extra))
	for i, r := range from {
		switch i % 100 {
		case 0:
			continue // removed
		case 1:
			r.Destination += "-v2" // changed
		}
		to = append(to, r)
	}
	for _, r := range extra {
		r.Source = "/new" + r.Source
		r.ID += 2_000_000
		to = append(to, r)
	}
	var res DiffResult
	cpu := cpuTime()
	for b.Loop() {
		res = Diff(from, to, DiffOptions{})
	}
	reportCPU(b, cpu)
	b.ReportMetric(float64(res.PathsChecked), "paths")
	b.ReportMetric(float64(res.PathsChanged), "changed")
}

// cpuTime returns the CPU time the process has used, user and system. On a
// machine shared with other work, CPU seconds per operation tell more than
// wall time, which also counts the time spent waiting for a core.
func cpuTime() time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// reportCPU reports the CPU seconds per operation since start, garbage
// collection included.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric((cpuTime()-start).Seconds()/float64(b.N), "cpu-s/op")
}

// patternRules returns n pattern and regex rules shaped like real sets:
// language and version prefixes, blog splats, a domain move per host
// (every tenth rule), query captures on every fiftieth, a regex on every
// twentieth; numbered from firstID.
func patternRules(n int, firstID int64) []redirects.Rule {
	t0 := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	rules := make([]redirects.Rule, 0, n)
	for i := 0; len(rules) < n; i++ {
		r := redirects.Rule{MatchType: redirects.Pattern, StatusCode: 301, Priority: 100}
		switch i % 20 {
		case 0, 1, 2, 3, 4, 5, 6, 7:
			r.Source, r.Destination = fmt.Sprintf("/:lang/section%d/page%d", i%97, i), fmt.Sprintf("/:lang/docs/s%d/p%d", i%97, i)
		case 8, 9, 10, 11, 12:
			r.Source, r.Destination = fmt.Sprintf("/docs/v:version(\\d+)/topic%d/:page", i), fmt.Sprintf("/docs/:version/t%d/:page", i)
		case 13, 14, 15, 16:
			r.Source, r.Destination = fmt.Sprintf("/blog/%d/post-%d/*", 2000+i%25, i), fmt.Sprintf("/posts/%d/:splat", i)
		case 17, 18:
			r.Host, r.Source, r.Destination = fmt.Sprintf("old%d.example.com", i), "/*", "https://www.example.com/:splat"
		default:
			r.MatchType = redirects.Regex
			r.Source, r.Destination = fmt.Sprintf(`/archive/%d/(\d+)/(?P<slug>[a-z-]+)`, i), fmt.Sprintf("/a/%d/$1/${slug}", i)
		}
		if i%50 == 0 && r.MatchType == redirects.Pattern {
			r.Source += "?ref=:ref"
			r.Destination += "?from=:ref"
		}
		r.ID, r.CreatedAt = firstID+int64(i), t0.Add(time.Duration(i)*time.Second)
		rules = append(rules, r)
	}
	return rules
}

// BenchmarkLint1MPatterns lints 990,000 generated literal rules and
// 10,000 pattern and regex rules (patternRules), the size a deploy must
// lint in under 10 s (BENCHMARKS.md#lint-with-pattern-rules):
//
//	go test -run '^$' -bench 'Lint1MPatterns' -benchtime 3x -benchmem ./safety
func BenchmarkLint1MPatterns(b *testing.B) {
	rules := append(rulegen.Rules(990_000, 0.3, 1), patternRules(10_000, 2_000_000)...)
	var findings []Finding
	cpu := cpuTime()
	for b.Loop() {
		findings = Lint(rules, LintOptions{Hosts: benchHosts})
	}
	reportCPU(b, cpu)
	e, w := Count(findings)
	b.ReportMetric(float64(e), "errors")
	b.ReportMetric(float64(w), "warnings")
}

// BenchmarkFlatten1M computes the rewrites of flattening chains on a
// million generated rules (30% starts_with), a tenth of whose destinations
// point at another rule's source so that chains are many (withChains): the
// size flattening must handle in under 10 s (BENCHMARKS.md has the
// figures).
//
//	go test -run '^$' -bench 'Flatten1M' -benchtime 3x ./safety
func BenchmarkFlatten1M(b *testing.B) {
	rules := withChains(rulegen.Rules(1_000_000, 0.3, 1))
	var fixes []redirects.ChainFix
	var left []redirects.ChainLeft
	cpu := cpuTime()
	for b.Loop() {
		fixes, left = FlattenChains(rules, LintOptions{Hosts: benchHosts})
	}
	reportCPU(b, cpu)
	b.ReportMetric(float64(len(fixes)), "fixes")
	b.ReportMetric(float64(len(left)), "left")
}

// withChains points every tenth rule that is not a 410 at another rule's
// source, deterministically by position, and gives every thirtieth a 302:
// chains of every length, some of them mixed, some loops.
func withChains(rules []redirects.Rule) []redirects.Rule {
	n := len(rules)
	for i := range rules {
		r := &rules[i]
		if r.StatusCode == redirects.StatusGone {
			continue
		}
		if i%10 == 0 {
			r.Destination = rules[(i*7+13)%n].Source
		}
		if i%30 == 0 {
			r.StatusCode = 302
		}
	}
	return rules
}
