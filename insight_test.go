package redirects

import (
	"fmt"
	"testing"
	"time"
)

func TestStaleRules(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rules := []Rule{{Source: "/never"}, {Source: "/old"}, {Source: "/new"}, {Source: "/old", MatchType: StartsWith}}
	hits := []RuleHits{
		{MatchType: Exact, Source: "/old", Hits: 3, LastHit: t0},
		{MatchType: Exact, Source: "/new", Hits: 1, LastHit: t0.Add(48 * time.Hour)},
	}
	got := StaleRules(rules, hits, t0.Add(24*time.Hour))
	if fmt.Sprint(got) != fmt.Sprint([]Rule{rules[0], rules[1], rules[3]}) {
		t.Errorf("StaleRules = %v", got)
	}
	if got := StaleRules(rules, hits, t0); len(got) != 2 {
		t.Errorf("StaleRules(since the old hit) = %v, want /never and the prefix /old", got)
	}
}
