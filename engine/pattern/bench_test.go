package pattern

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// realisticPatterns returns n pattern rules shaped like real sets:
// language prefixes (a placeholder first, so no literal prefix), versioned
// documentation, blog archives with a splat, and old domains moved with a
// host and a splat; one rule in 50 has a query condition.
func realisticPatterns(n int) []Rule {
	rules := make([]Rule, 0, n)
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; len(rules) < n; i++ {
		var r Rule
		switch i % 10 {
		case 0, 1, 2, 3:
			r = Rule{Source: fmt.Sprintf("/:lang/section%d/page%d", i%97, i), Destination: fmt.Sprintf("/:lang/docs/s%d/p%d", i%97, i)}
		case 4, 5, 6:
			r = Rule{Source: fmt.Sprintf("/docs/v:version(\\d+)/topic%d/:page", i), Destination: fmt.Sprintf("/docs/:version/t%d/:page", i)}
		case 7, 8:
			r = Rule{Source: fmt.Sprintf("/blog/%d/post-%d/*", 2000+i%25, i), Destination: fmt.Sprintf("/posts/%d/:splat", i)}
		default:
			r = Rule{Host: fmt.Sprintf("old%d.example.com", i), Source: "/*", Destination: "https://example.com/:splat"}
		}
		if i%50 == 0 {
			r.Source += "?ref=:ref"
			r.Destination += "?from=:ref"
		}
		r.ID, r.Kind, r.Priority, r.CreatedAt = int64(i+1), Pattern, 100, t0.Add(time.Duration(i)*time.Second)
		rules = append(rules, r)
	}
	return rules
}

func mustCompile(b *testing.B, rules []Rule) *Set {
	b.Helper()
	s, err := Compile(rules, Settings{})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func benchLookup(b *testing.B, s *Set, host, wire, want string) {
	b.Helper()
	var m Match
	buf := make([]byte, 0, 256)
	if !s.Lookup(host, wire, &m) || string(m.AppendDestination(buf[:0])) != want {
		b.Fatalf("%s%s: answered %v %q, want %q", host, wire, s.Lookup(host, wire, &m), m.AppendDestination(nil), want)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s.Lookup(host, wire, &m)
		buf = m.AppendDestination(buf[:0])
	}
}

// BenchmarkPatternHit: hits among 10,000 realistic pattern rules, each with
// placeholders or a splat: goal under 2 us, no allocation.
func BenchmarkPatternHit(b *testing.B) {
	s := mustCompile(b, realisticPatterns(10000))
	for _, c := range []struct{ name, host, wire, want string }{
		{"lang", "", "/fr/section95/page9601", "/fr/docs/s95/p9601"},
		{"version", "", "/docs/v7/topic9994/intro?x=1", "/docs/7/t9994/intro"},
		{"splat", "", "/blog/2022/post-9997/a/b/c", "/posts/9997/a/b/c"},
		{"host", "old9999.example.com", "/some/old/page", "https://example.com/some/old/page"},
		{"condition", "", "/fr/section94/page9600?ref=mail", "/fr/docs/s94/p9600?from=mail"},
	} {
		b.Run(c.name, func(b *testing.B) { benchLookup(b, s, c.host, c.wire, c.want) })
	}
}

// BenchmarkRegexHit: a hit among 1,000 regex rules under 100 prefixes and
// the realistic patterns: goal under 5 us.
func BenchmarkRegexHit(b *testing.B) {
	rules := realisticPatterns(10000)
	for i := 0; i < 1000; i++ {
		rules = append(rules, Rule{ID: int64(20000 + i), Kind: Regex, Priority: 100,
			Source:      fmt.Sprintf(`/wiki%d/(?P<title>[A-Za-z_]+)/(\d+)`, i%100),
			Destination: fmt.Sprintf("/w/%d/${title}/$2", i)})
	}
	s := mustCompile(b, rules)
	benchLookup(b, s, "", "/wiki42/Main_Page/7", "/w/42/Main_Page/7")
}

// BenchmarkRegexWorstCase: 1,000 regex rules under one literal prefix, the
// path matched only by the last in the order, or by none: every rule is
// tried.
func BenchmarkRegexWorstCase(b *testing.B) {
	var rules []Rule
	for i := 0; i < 1000; i++ {
		rules = append(rules, Rule{ID: int64(i + 1), Kind: Regex, Priority: i,
			Source: fmt.Sprintf(`/docs/(.*)-%d`, i), Destination: fmt.Sprintf("/d%d/$1", i)})
	}
	s := mustCompile(b, rules)
	b.Run("last", func(b *testing.B) {
		benchLookup(b, s, "", "/docs/some/long/page/title-999", "/d999/some/long/page/title")
	})
	b.Run("none", func(b *testing.B) {
		var m Match
		b.ReportAllocs()
		for b.Loop() {
			if s.Lookup("", "/docs/some/long/page/title-x", &m) {
				b.Fatal("matched")
			}
		}
	})
}

// BenchmarkPatternWorstCase: 1,000 pattern rules under one literal prefix
// and no literal segment after it, the path matched only by the last in the
// order; and a segment of eight placeholders asked for a 2,000-byte segment
// that almost matches everywhere.
func BenchmarkPatternWorstCase(b *testing.B) {
	var rules []Rule
	for i := 0; i < 1000; i++ {
		rules = append(rules, Rule{ID: int64(i + 1), Kind: Pattern, Priority: i,
			Source: fmt.Sprintf("/docs/:slug-%d/*", i), Destination: "/d/:slug/:splat"})
	}
	s := mustCompile(b, rules)
	b.Run("last", func(b *testing.B) { benchLookup(b, s, "", "/docs/intro-999/a/b", "/d/intro/a/b") })
	p := mustCompile(b, []Rule{{ID: 1, Kind: Pattern, Source: "/:a-:b-:c-:d-:e-:f-:g-:h(x)/end", Destination: "/:h"}})
	b.Run("placeholders", func(b *testing.B) {
		var m Match
		path := "/" + strings.Repeat("-", 2000) + "/end"
		b.ReportAllocs()
		for b.Loop() {
			p.Lookup("", path, &m)
		}
	})
}

// BenchmarkCompile100kPatterns: a node compiling 100,000 realistic pattern
// rules when it loads a version: goal under 5 s.
func BenchmarkCompile100kPatterns(b *testing.B) {
	rules := realisticPatterns(100000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(rules, Settings{}); err != nil {
			b.Fatal(err)
		}
	}
}
