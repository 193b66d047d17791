package engine_test

import (
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"redirects"
	"redirects/engine"
	"redirects/internal/rulegen"
)

// benchSet is a generated rule set, its snapshot and paths of each kind to
// look up. Building the million-rule one takes seconds, so each size is
// built once per process and shared by every benchmark.
type benchSet struct {
	rules []redirects.Rule
	snap  *engine.Snapshot
	paths map[string][]string // kind -> paths
}

var benchSizes = []struct {
	name string
	n    int
}{{"1k", 1_000}, {"100k", 100_000}, {"1M", 1_000_000}}

var benchKinds = []string{"exact-hit", "prefix-hit", "miss"}

var (
	benchMu   sync.Mutex
	benchSets = map[int]*benchSet{}
)

// benchPathCount is how many distinct paths of each kind a benchmark cycles
// through: enough that the big snapshots cannot sit in the CPU caches.
const benchPathCount = 1 << 16

func getBenchSet(tb testing.TB, n int) *benchSet {
	tb.Helper()
	benchMu.Lock()
	defer benchMu.Unlock()
	if s := benchSets[n]; s != nil {
		return s
	}
	rules := rulegen.Rules(n, 0.5, 42)
	bs := &benchSet{rules: rules, snap: engine.Compile(rules), paths: map[string][]string{}}
	rng := rand.New(rand.NewPCG(uint64(n), 99))
	var exact, prefix []string
	for _, r := range rules {
		if r.MatchType == redirects.Exact {
			exact = append(exact, r.Source)
		} else {
			prefix = append(prefix, r.Source)
		}
	}
	// Exact hits: exact sources, some with a query string.
	for len(bs.paths["exact-hit"]) < benchPathCount {
		p := exact[rng.IntN(len(exact))]
		if rng.IntN(4) == 0 {
			p += "?utm_source=newsletter"
		}
		bs.paths["exact-hit"] = append(bs.paths["exact-hit"], p)
	}
	// Prefix hits: below a starts_with source, not equal to an exact one.
	suffixes := []string{"", "/", "page/2", "/comments", "-old", "/feed?x=1", "/a/b/c/d"}
	for len(bs.paths["prefix-hit"]) < benchPathCount {
		p := prefix[rng.IntN(len(prefix))] + suffixes[rng.IntN(len(suffixes))]
		if m, ok := bs.snap.Lookup(p); ok && m.MatchType() == redirects.StartsWith {
			bs.paths["prefix-hit"] = append(bs.paths["prefix-hit"], p)
		}
	}
	// Misses: realistic paths of the same sections (so a walk goes deep
	// into shared leading segments) that no rule matches.
	for tries := 0; len(bs.paths["miss"]) < benchPathCount; tries++ {
		if tries > 100*benchPathCount {
			tb.Fatalf("found only %d missing paths for %d rules", len(bs.paths["miss"]), n)
		}
		p := rulegen.Path(rng)
		if _, ok := bs.snap.Lookup(p); !ok {
			bs.paths["miss"] = append(bs.paths["miss"], p)
		}
	}
	for kind, paths := range bs.paths {
		bs.paths[kind] = packPaths(paths)
	}
	benchSets[n] = bs
	return bs
}

// packPaths copies paths into one contiguous string, in order. A benchmark
// reads them in order, so the hardware prefetcher has each path in cache
// before its lookup, as a server has the path it just parsed: the cache
// misses measured are the snapshot's own.
func packPaths(paths []string) []string {
	all := strings.Join(paths, "")
	out := make([]string, len(paths))
	off := 0
	for i, p := range paths {
		out[i] = all[off : off+len(p)]
		off += len(p)
	}
	return out
}

func BenchmarkLookup(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(size.name, func(b *testing.B) {
			bs := getBenchSet(b, size.n)
			for _, kind := range benchKinds {
				b.Run(kind, func(b *testing.B) {
					paths := bs.paths[kind]
					want := kind != "miss"
					var sink int
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; b.Loop(); i++ {
						m, ok := bs.snap.Lookup(paths[i&(benchPathCount-1)])
						if ok != want {
							b.Fatalf("Lookup(%q) found=%v, want %v", paths[i&(benchPathCount-1)], ok, want)
						}
						sink += len(m.JSON())
					}
					_ = sink
				})
			}
		})
	}
}

func BenchmarkCompile(b *testing.B) {
	for _, size := range benchSizes[1:] {
		b.Run(size.name, func(b *testing.B) {
			rules := getBenchSet(b, size.n).rules
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				engine.Compile(rules)
			}
			b.StopTimer()
			b.ReportMetric(snapshotBytesPerRule(rules), "bytes/rule")
		})
	}
}

// TestBenchPaths checks that the benchmark's paths are what their kind says,
// against the brute-force model, on the smallest set.
func TestBenchPaths(t *testing.T) {
	bs := getBenchSet(t, 1_000)
	for _, kind := range benchKinds {
		for _, p := range bs.paths[kind][:2000] {
			r, ok := engine.ModelLookup(bs.rules, p)
			switch {
			case kind == "miss" && ok:
				t.Fatalf("miss path %q matches rule %d", p, r.ID)
			case kind == "exact-hit" && (!ok || r.MatchType != redirects.Exact):
				t.Fatalf("exact-hit path %q: model gives %v", p, r)
			case kind == "prefix-hit" && (!ok || r.MatchType != redirects.StartsWith):
				t.Fatalf("prefix-hit path %q: model gives %v", p, r)
			}
		}
	}
}

// BenchmarkHarvestHits measures a flush's read of a 1,000,000-rule
// snapshot's hit counters when 1,000 rules were hit since the last one.
func BenchmarkHarvestHits(b *testing.B) {
	bs := getBenchSet(b, 1_000_000)
	paths := bs.paths["exact-hit"][:1000]
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		for _, p := range paths {
			if m, ok := bs.snap.Lookup(p); ok {
				bs.snap.CountHit(m)
			}
		}
		b.StartTimer()
		n := 0
		bs.snap.Hits().Harvest(func(redirects.HitKey, int64) { n++ })
		if n == 0 {
			b.Fatal("nothing harvested")
		}
	}
}
