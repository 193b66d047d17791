package rulegen_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"redirects"
	"redirects/internal/rulegen"
)

// TestRules checks Rules' promises: valid rules,
// deterministic for a seed, unique sources per match type, IDs 1..n,
// CreatedAt increasing, the asked share of starts_with rules.
func TestRules(t *testing.T) {
	const n = 20_000
	rules := rulegen.Rules(n, 0.3, 9)
	if len(rules) != n {
		t.Fatalf("got %d rules, want %d", len(rules), n)
	}
	again := rulegen.Rules(n, 0.3, 9)
	seen := map[string]bool{}
	prefix := 0
	for i := range rules {
		r := &rules[i]
		if err := r.Validate(); err != nil {
			t.Fatalf("rule %d is invalid: %v", r.ID, err)
		}
		if !r.Equal(&again[i]) {
			t.Fatalf("rule %d differs between two runs with the same seed: %+v, %+v", i, *r, again[i])
		}
		if r.ID != int64(i+1) {
			t.Fatalf("rule %d has ID %d", i, r.ID)
		}
		if i > 0 && !r.CreatedAt.After(rules[i-1].CreatedAt) {
			t.Fatalf("rule %d is not younger than rule %d", i, i-1)
		}
		key := fmt.Sprint(r.MatchType, " ", r.Source)
		if seen[key] {
			t.Fatalf("duplicate %v source %q", r.MatchType, r.Source)
		}
		seen[key] = true
		if r.MatchType == redirects.StartsWith {
			prefix++
		}
		if r.Priority < 0 || r.Priority > 1000 {
			t.Fatalf("rule %d has priority %d, want 0..1000", r.ID, r.Priority)
		}
	}
	if prefix != 6000 {
		t.Fatalf("%d starts_with rules, want 30%% of %d", prefix, n)
	}
	if other := rulegen.Rules(100, 0.3, 10); other[0].Source == rules[0].Source && other[1].Source == rules[1].Source {
		t.Fatal("another seed gave the same rules")
	}
	if strings.Count(fmt.Sprint(rules[:200]), "https://") == 0 {
		t.Fatal("no absolute destinations among the first 200 rules")
	}
}

func TestRulesDeeper(t *testing.T) {
	same := rulegen.RulesDeeper(2000, 0.5, 7, 0)
	if !reflect.DeepEqual(same, rulegen.Rules(2000, 0.5, 7)) {
		t.Fatal("RulesDeeper with extraDepth 0 differs from Rules")
	}
	mean := func(rules []redirects.Rule) float64 {
		total := 0
		for _, r := range rules {
			total += len(r.Source)
		}
		return float64(total) / float64(len(rules))
	}
	deep := rulegen.RulesDeeper(2000, 0.5, 7, 4)
	for _, r := range deep {
		if err := r.Validate(); err != nil {
			t.Fatalf("generated rule %+v: %v", r, err)
		}
	}
	if m0, m4 := mean(same), mean(deep); m4 < m0+20 {
		t.Fatalf("mean source length %.1f with 4 extra segments, %.1f without: want at least 20 bytes more", m4, m0)
	}
}
