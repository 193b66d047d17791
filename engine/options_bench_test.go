package engine_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"redirects"
	"redirects/engine"
	"redirects/internal/rulegen"
)

// BenchmarkLookupOptions1M measures lookups at a million rules with every
// option in use (docs/contract.md#rule-options): both non-default
// settings, preserveQuery on every rule, preservePath on every starts_with
// rule, statuses 303/307/308/410 among them; each answer rendered into a
// buffer (AppendJSON), the computed ones included. Paths: exact sources in
// upper case with a query, below starts_with sources with a query, and
// misses, packed as BenchmarkLookup's are.
func BenchmarkLookupOptions1M(b *testing.B) {
	rules := rulegen.Rules(1_000_000, 0.5, 42)
	statuses := []int{301, 302, 303, 307, 308, redirects.StatusGone}
	for i := range rules {
		r := &rules[i]
		r.StatusCode = statuses[i%len(statuses)]
		if r.StatusCode == redirects.StatusGone {
			r.Destination = ""
			continue
		}
		r.PreserveQuery = true
		r.PreservePath = r.MatchType == redirects.StartsWith
	}
	settings := redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}
	snap := engine.CompileWith(rules, settings)
	rng := rand.New(rand.NewPCG(1, 2))
	paths := map[string][]string{}
	for len(paths["exact-hit"]) < benchPathCount || len(paths["prefix-hit"]) < benchPathCount {
		r := &rules[rng.IntN(len(rules))]
		if r.MatchType == redirects.Exact {
			paths["exact-hit"] = append(paths["exact-hit"], strings.ToUpper(r.Source)+"?utm_source=x")
		} else {
			paths["prefix-hit"] = append(paths["prefix-hit"], r.Source+"page/2?x=1")
		}
	}
	for len(paths["miss"]) < benchPathCount {
		if p := rulegen.Path(rng); !hit(snap, p) {
			paths["miss"] = append(paths["miss"], p)
		}
	}
	for _, kind := range benchKinds {
		// Packed in order, as BenchmarkLookup's: the path a server just
		// parsed is in cache, so the misses measured are the snapshot's.
		ps := packPaths(paths[kind])
		b.Run(kind, func(b *testing.B) {
			buf := make([]byte, 0, 8192)
			computed := 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p := ps[i&(benchPathCount-1)]
				if m, ok := snap.Lookup(p); ok {
					if m.Computed(p) {
						computed++
					}
					buf = m.AppendJSON(buf[:0], p)
				}
			}
			b.ReportMetric(float64(computed)/float64(b.N), "computed/op")
		})
	}
}

func hit(s *engine.Snapshot, p string) bool {
	_, ok := s.Lookup(p)
	return ok
}
