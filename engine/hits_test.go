package engine

import (
	"redirects"

	"fmt"
	"maps"
	"math/rand/v2"
	"testing"
)

// TestCountHit checks that every lookup a snapshot answers is counted
// under the rule that answered it, by a model that finds that rule by
// brute force, and that a harvest empties the counters.
func TestCountHit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var rules []redirects.Rule
	for i := range 300 {
		src := fmt.Sprintf("/s/%d", rng.IntN(60))
		if rng.IntN(3) == 0 {
			src = src[:2+rng.IntN(len(src)-1)]
		}
		mt := redirects.Exact
		if rng.IntN(2) == 0 {
			mt = redirects.StartsWith
		}
		rules = append(rules, redirects.Rule{ID: int64(i + 1), Source: src, Destination: fmt.Sprintf("/d/%d", i), StatusCode: 301, MatchType: mt, Priority: rng.IntN(3)})
	}
	rules = uniqueRules(rules)
	s := Compile(rules)
	want := map[redirects.HitKey]int64{}
	for range 5000 {
		path := fmt.Sprintf("/s/%d", rng.IntN(80))
		if rng.IntN(4) == 0 {
			path += "/x"
		}
		m, ok := s.Lookup(path)
		r := modelMatch(rules, path)
		if ok != (r != nil) {
			t.Fatalf("Lookup(%q) ok = %v, model %v", path, ok, r)
		}
		if !ok {
			continue
		}
		s.CountHit(m)
		want[redirects.HitKey{MatchType: r.MatchType, Source: r.Source}]++
	}
	got := map[redirects.HitKey]int64{}
	s.Hits().Harvest(func(k redirects.HitKey, n int64) {
		if _, dup := got[k]; dup {
			t.Errorf("rule %v harvested twice", k)
		}
		got[k] = n
	})
	if !maps.Equal(got, want) {
		t.Errorf("harvest = %v\nwant %v", got, want)
	}
	s.Hits().Harvest(func(k redirects.HitKey, n int64) {
		t.Errorf("second harvest found %d hits of %s %q, want none", n, k.MatchType, k.Source)
	})
}

// uniqueRules drops rules whose source and match type an earlier one has,
// as a project's draft cannot hold two.
func uniqueRules(rules []redirects.Rule) []redirects.Rule {
	seen := map[redirects.HitKey]bool{}
	var out []redirects.Rule
	for _, r := range rules {
		k := redirects.HitKey{MatchType: r.MatchType, Source: r.Source}
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

// modelMatch finds the answering rule the slow way: an exact rule equal to
// path, or the best starts_with rule by Better.
func modelMatch(rules []redirects.Rule, path string) *redirects.Rule {
	var best *redirects.Rule
	for i := range rules {
		r := &rules[i]
		if r.MatchType == redirects.Exact && r.Source == path {
			return r
		}
	}
	for i := range rules {
		r := &rules[i]
		if r.MatchType == redirects.StartsWith && len(path) >= len(r.Source) && path[:len(r.Source)] == r.Source {
			if best == nil || Better(r, best) {
				best = r
			}
		}
	}
	return best
}

func TestCountHitAllocs(t *testing.T) {
	s := Compile([]redirects.Rule{{ID: 1, Source: "/a", Destination: "/b", StatusCode: 301}})
	m, _ := s.Lookup("/a")
	if n := testing.AllocsPerRun(100, func() { s.CountHit(m) }); n != 0 {
		t.Errorf("CountHit allocates %v times", n)
	}
}
