package engine_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"redirects"
	"redirects/engine"
)

// TestSortRulesOneSourceManyRules: rules of one source that differ in match
// type or host (an exact /moved for two hosts and for none, a pattern of
// the same text) come out in one order whatever order they come in, the
// order of CompareRules, so that a draft read from the store and one read
// page by page through the API print alike.
func TestSortRulesOneSourceManyRules(t *testing.T) {
	rules := []redirects.Rule{
		{ID: 4, Source: "/moved", MatchType: redirects.Exact, Host: "*.example.org"},
		{ID: 5, Source: "/moved", MatchType: redirects.Exact},
		{ID: 6, Source: "/moved", MatchType: redirects.Exact, Host: "old.example.com"},
		{ID: 7, Source: "/moved", MatchType: redirects.Pattern},
		{ID: 8, Source: "/a", MatchType: redirects.Regex},
		{ID: 9, Source: "/moved", MatchType: redirects.StartsWith, Host: "old.example.com"},
		{ID: 10, Source: "/moved", MatchType: redirects.StartsWith},
		{ID: 1, Source: "/z", MatchType: redirects.Exact},
	}
	want := []int64{8, 5, 4, 6, 7, 1, 9, 10}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		in := slices.Clone(rules)
		rng.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
		engine.SortRules(in)
		var got []int64
		for _, r := range in {
			got = append(got, r.ID)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("SortRules = %v, want %v", got, want)
		}
		if !slices.IsSortedFunc(in, func(a, b redirects.Rule) int { return engine.CompareRules(&a, &b) }) {
			t.Fatalf("SortRules's order %v is not CompareRules's", got)
		}
	}
}
