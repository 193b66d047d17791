package engine_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"redirects"
	"redirects/engine"
	"redirects/internal/rulegen"
)

// patternRules returns n pattern and regex rules shaped like real sets
// (the shapes of engine/pattern's benchmarks): 40 % behind a language
// placeholder, 30 % versioned documentation with a constraint, 20 % blog
// archives with a splat, 8 % old domains moved with a host and a splat,
// 2 % regexes under 100 wiki prefixes; one in 50 of the patterns with a
// captured query condition. IDs start at first.
func patternRules(n int, first int64) []redirects.Rule {
	rules := make([]redirects.Rule, 0, n)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; len(rules) < n; i++ {
		r := redirects.Rule{MatchType: redirects.Pattern}
		switch i % 50 {
		case 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19:
			r.Source, r.Destination = fmt.Sprintf("/:lang/section%d/page%d", i%97, i), fmt.Sprintf("/:lang/docs/s%d/p%d", i%97, i)
		case 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34:
			r.Source, r.Destination = fmt.Sprintf("/docs/v:version(\\d+)/topic%d/:page", i), fmt.Sprintf("/docs/:version/t%d/:page", i)
		case 35, 36, 37, 38, 39, 40, 41, 42, 43, 44:
			r.Source, r.Destination = fmt.Sprintf("/blog/%d/post-%d/*", 2000+i%25, i), fmt.Sprintf("/posts/%d/:splat", i)
		case 45, 46, 47, 48:
			r.Host, r.Source, r.Destination = fmt.Sprintf("old%d.example.com", i), "/*", "https://example.com/:splat"
		default:
			r.MatchType = redirects.Regex
			r.Source, r.Destination = fmt.Sprintf(`/wiki%d/(?P<title>[A-Za-z_]+)/(\d+)`, i%100), fmt.Sprintf("/w/%d/${title}/$2", i)
		}
		if i%50 == 10 {
			r.Source += "?ref=:ref"
			r.Destination += "?from=:ref"
		}
		r.ID, r.StatusCode, r.Priority, r.CreatedAt = first+int64(i), 301, 100, t0.Add(time.Duration(i)*time.Second)
		rules = append(rules, r)
	}
	return rules
}

// mixedSet is 1,000,000 literal rules (rulegen's, half exact) and 10,000
// pattern and regex rules in one snapshot, built once per process, and the
// paths its literal benchmarks ask.
var mixedSet = sync.OnceValues(func() (*engine.Snapshot, map[string][]string) {
	snap, err := engine.CompileChecked(append(literalRules(), patternRules(10_000, 2_000_000)...), redirects.Settings{})
	if err != nil {
		panic(err)
	}
	return snap, literalPaths(snap, literalRules())
})

// literalRules are mixedSet's literal rules.
func literalRules() []redirects.Rule { return rulegen.Rules(1_000_000, 0.5, 42) }

// literalOnly is a snapshot of mixedSet's literal rules alone: the same
// paths asked of it, in the same run, are the figures to compare with.
var literalOnly = sync.OnceValue(func() *engine.Snapshot { return engine.Compile(literalRules()) })

// literalPaths returns exact and prefix hits of rules in snap: 65,536 of
// each, exact sources and starts_with sources followed by "page/2".
func literalPaths(snap *engine.Snapshot, rules []redirects.Rule) map[string][]string {
	paths := map[string][]string{}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, r := range rules {
		switch {
		case r.MatchType == redirects.Exact && len(paths["exact"]) < benchPathCount && rng.IntN(8) == 0:
			paths["exact"] = append(paths["exact"], r.Source)
		case r.MatchType == redirects.StartsWith && len(paths["prefix"]) < benchPathCount && rng.IntN(8) == 0:
			p := r.Source + "page/2"
			if m, ok := snap.LookupHost("", p); ok && m.MatchType() == redirects.StartsWith {
				paths["prefix"] = append(paths["prefix"], p)
			}
		}
	}
	for k, v := range paths {
		paths[k] = packPaths(v)
	}
	return paths
}

// BenchmarkMixedLiteralHit: exact and prefix hits among 1,000,000 literal
// rules beside 10,000 pattern rules, cycling through 65,536 paths: goal
// under 1 us, no allocation.
// The same paths asked of the literal rules alone are the "literal-only"
// runs, the figures of a project without patterns.
func BenchmarkMixedLiteralHit(b *testing.B) {
	mixed, paths := mixedSet()
	buf := make([]byte, 0, 4096)
	for _, run := range []struct {
		name string
		snap *engine.Snapshot
	}{{"exact", mixed}, {"prefix", mixed}, {"exact-literal-only", nil}, {"prefix-literal-only", nil}} {
		kind, _, _ := strings.Cut(run.name, "-")
		snap := run.snap
		if snap == nil {
			snap = literalOnly()
		}
		b.Run(run.name, func(b *testing.B) {
			ps := paths[kind]
			if len(ps) < 1000 {
				b.Fatalf("only %d %s paths", len(ps), kind)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				p := ps[i%len(ps)]
				m, ok := snap.LookupHost("", p)
				if !ok {
					b.Fatalf("%s: no answer", p)
				}
				if m.Computed(p) {
					buf = m.AppendJSON(buf[:0], p)
				}
				i++
			}
		})
	}
}

// BenchmarkMixedPatternHit: pattern and regex hits among the same rules,
// each answer rendered into a buffer as the edge renders it: goal under
// 2 us without allocation for patterns, under 5 us for regexes.
func BenchmarkMixedPatternHit(b *testing.B) {
	snap, _ := mixedSet()
	buf := make([]byte, 0, 4096)
	for _, c := range []struct{ name, host, wire, want string }{
		{"lang", "", "/fr/section95/page9601", `{"destination":"/fr/docs/s95/p9601","statusCode":301,"matchType":"pattern"}`},
		{"version", "", "/docs/v7/topic9971/intro?x=1", `{"destination":"/docs/7/t9971/intro","statusCode":301,"matchType":"pattern"}`},
		{"splat", "", "/blog/2011/post-9986/a/b/c", `{"destination":"/posts/9986/a/b/c","statusCode":301,"matchType":"pattern"}`},
		{"host", "old9998.example.com", "/some/old/page", `{"destination":"https://example.com/some/old/page","statusCode":301,"matchType":"pattern"}`},
		{"condition", "", "/fr/section66/page9960?ref=mail", `{"destination":"/fr/docs/s66/p9960?from=mail","statusCode":301,"matchType":"pattern"}`},
		{"regex", "", "/wiki49/Main_Page/7", `{"destination":"/w/49/Main_Page/7","statusCode":301,"matchType":"regex"}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			m, ok := snap.LookupHost(c.host, c.wire)
			if !ok || string(m.AppendJSON(nil, c.wire)) != c.want {
				b.Fatalf("%s%s: %v %s, want %s", c.host, c.wire, ok, m.AppendJSON(nil, c.wire), c.want)
			}
			b.ReportAllocs()
			for b.Loop() {
				m, _ := snap.LookupHost(c.host, c.wire)
				buf = m.AppendJSON(buf[:0], c.wire)
				m.Release()
			}
		})
	}
}

// BenchmarkCompile100kPatternRules: a node compiling a version of 100,000
// pattern and regex rules (CompileChecked): goal under 5 s.
func BenchmarkCompile100kPatternRules(b *testing.B) {
	rules := patternRules(100_000, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := engine.CompileChecked(rules, redirects.Settings{}); err != nil {
			b.Fatal(err)
		}
	}
}
