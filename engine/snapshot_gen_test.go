package engine_test

// The tests of this file draw their rules from internal/rulegen, which
// imports this package, so they are external tests; export_test.go lends
// them the internals they check.

import (
	"runtime"
	"testing"

	"redirects"
	"redirects/engine"
	"redirects/internal/rulegen"
)

// TestLookupMatchesModelGenerated holds the snapshot against the model on
// rulegen.Rules' realistic rule sets, whose sources are longer and share
// more structure than the property test's.
func TestLookupMatchesModelGenerated(t *testing.T) {
	rules := rulegen.Rules(2000, 0.5, 7)
	for _, cfg := range engine.BucketConfigs()[:2] {
		t.Run(cfg.Name, func(t *testing.T) {
			engine.WithBuckets(cfg.Keys, cfg.Bytes, func() {
				s := engine.Compile(rules)
				for _, r := range rules {
					engine.CheckLookup(t, s, rules, r.Source)
					engine.CheckLookup(t, s, rules, r.Source+"x")
					engine.CheckLookup(t, s, rules, r.Source+"/page/2?x=1")
					engine.CheckLookup(t, s, rules, r.Source[:len(r.Source)-1])
					engine.CheckLookup(t, s, rules, r.Source[:len(r.Source)/2])
				}
			})
		})
	}
}

func TestCompileDoesNotModifyRules(t *testing.T) {
	rules := rulegen.Rules(500, 0.5, 3)
	before := append([]redirects.Rule(nil), rules...)
	engine.Compile(rules)
	for i := range rules {
		if !rules[i].Equal(&before[i]) {
			t.Fatalf("Compile changed rule %d: %+v, was %+v", i, rules[i], before[i])
		}
	}
}

func TestCompileSizesArenaExactly(t *testing.T) {
	s := engine.Compile(rulegen.Rules(5000, 0.5, 11))
	for name, b := range engine.SnapshotBuffers(s) {
		if len(b) != cap(b) {
			t.Errorf("%s: length %d, capacity %d: the size computation and the writes disagree", name, len(b), cap(b))
		}
	}
}

func TestLookupDoesNotAllocate(t *testing.T) {
	rules := rulegen.Rules(10000, 0.5, 5)
	s := engine.Compile(rules)
	paths := []string{"/nothing/here", "/", "/blog/2019/05/x?y=1#z"}
	for _, r := range rules[:100] {
		paths = append(paths, r.Source, r.Source+"/more?q=1")
	}
	var sink int
	allocs := testing.AllocsPerRun(100, func() {
		for _, p := range paths {
			if m, ok := s.Lookup(p); ok {
				sink += len(m.JSON()) + len(m.Destination()) + m.StatusCode() + int(m.MatchType())
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("Lookup allocated %.1f times per run of %d lookups, want 0", allocs, len(paths))
	}
	_ = sink
}

// TestSnapshotMemory checks the memory goal of a snapshot (under 300 bytes
// per rule, strings and bodies included) on a realistic rule set. Heap
// growth is a byte count, not a time, so it can be asserted.
func TestSnapshotMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles 200k rules")
	}
	rules := rulegen.Rules(200_000, 0.5, 1)
	perRule := snapshotBytesPerRule(rules)
	t.Logf("snapshot of %d rules: %.1f bytes/rule", len(rules), perRule)
	if perRule >= 300 {
		t.Fatalf("snapshot takes %.1f bytes per rule, want under 300", perRule)
	}
}

// snapshotBytesPerRule returns the heap a compiled snapshot of rules holds,
// per rule: HeapAlloc after a collection with the snapshot alive, less
// HeapAlloc before Compile.
func snapshotBytesPerRule(rules []redirects.Rule) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := engine.Compile(rules)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(s)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(len(rules))
}
