package redirects_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"redirects"
	"redirects/engine"
	"redirects/internal/rulemodel"
)

// rootLookup answers a lookup with the root package's definitions
// (Settings.Matches, Better, AppendTarget), scanning every rule.
func rootLookup(rules []redirects.Rule, s redirects.Settings, wire string) (int, string, bool) {
	p, err := redirects.DecodePath(wire)
	if err != nil {
		return -1, "", false
	}
	best, matched := -1, 0
	for i := range rules {
		if rules[i].MatchType != redirects.Exact {
			continue
		}
		if m, ok := s.Matches(&rules[i], p); ok {
			best, matched = i, m
			break
		}
	}
	if best < 0 {
		for i := range rules {
			if rules[i].MatchType != redirects.StartsWith {
				continue
			}
			if m, ok := s.Matches(&rules[i], p); ok && (best < 0 || engine.Better(&rules[i], &rules[best])) {
				best, matched = i, m
			}
		}
	}
	if best < 0 {
		return -1, "", false
	}
	return best, redirects.Target(&rules[best], wire, matched), true
}

// TestTargetMatchesModel holds the root package's definitions of matching
// under the settings and of the computed destination to the brute-force
// model, on random projects and paths.
func TestTargetMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 26))
	for round := 0; round < 300; round++ {
		s, rules := rulemodel.Project(rng, 1+rng.IntN(30))
		rulemodel.WithQueryAfterFragment(rng, rules)
		for _, wire := range rulemodel.Paths(rng, rules, 60) {
			want, wok := rulemodel.Lookup(rules, rulemodel.Of(s), wire)
			got, dest, ok := rootLookup(rules, s, wire)
			if ok != wok || (ok && (got != want.Rule || dest != want.Destination)) {
				t.Fatalf("settings %v, path %q: root answers rule %d %q (%v), the model rule %d %q (%v)\nrules: %+v",
					s, wire, got, dest, ok, want.Rule, want.Destination, wok, rules)
			}
		}
	}
}

// TestTargetMergeQueryMatchesModel holds the root package's mergeQuery
// answers to the brute-force model on random projects and requests.
func TestTargetMergeQueryMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 27))
	for round := 0; round < 300; round++ {
		s, rules := rulemodel.Project(rng, 1+rng.IntN(30))
		rulemodel.WithMergeQuery(rng, rules)
		for _, wire := range rulemodel.MergePaths(rng, rules, 60) {
			want, wok := rulemodel.Lookup(rules, rulemodel.Of(s), wire)
			got, dest, ok := rootLookup(rules, s, wire)
			if ok != wok || (ok && (got != want.Rule || dest != want.Destination)) {
				t.Fatalf("settings %v, path %q: root answers rule %d %q (%v), the model rule %d %q (%v)\nrules: %+v",
					s, wire, got, dest, ok, want.Rule, want.Destination, wok, rules)
			}
		}
	}
}

func TestTargetExamples(t *testing.T) {
	for _, c := range []struct {
		rule    redirects.Rule
		wire    string
		matched int
		want    string
	}{
		{redirects.Rule{Destination: "/y", MatchType: redirects.StartsWith, PreservePath: true, StatusCode: 301}, "/x/a/b", 2, "/y/a/b"},
		{redirects.Rule{Destination: "https://ex.com", MatchType: redirects.StartsWith, PreservePath: true, StatusCode: 301}, "/x/a", 3, "https://ex.com/a"},
		{redirects.Rule{Destination: "https://ex.com", MatchType: redirects.StartsWith, PreservePath: true, StatusCode: 301}, "/x/", 3, "https://ex.com"},
		{redirects.Rule{Destination: "/b?", PreserveQuery: true, StatusCode: 301}, "/a", 2, "/b?"},
		{redirects.Rule{Destination: "/b?", PreserveQuery: true, StatusCode: 301}, "/a?q=1", 2, "/b?q=1"},
		{redirects.Rule{Destination: "/b?x=1#f", PreserveQuery: true, StatusCode: 301}, "/a?q=1#g", 2, "/b?x=1&q=1#f"},
		{redirects.Rule{Destination: "/b", PreserveQuery: true, StatusCode: 301}, "/a#g?q=1", 2, "/b"},
		{redirects.Rule{Destination: "/d/", MatchType: redirects.StartsWith, PreservePath: true, StatusCode: 308}, "/caf%C3%A9/x%20y?z", 4, "/d/%C3%A9/x%20y"},
		{redirects.Rule{StatusCode: 410}, "/gone?q", 5, ""},
		{redirects.Rule{Destination: "/documentation#design", PreserveQuery: true, QueryAfterFragment: true, StatusCode: 301}, "/design.html?k=v", 12, "/documentation#design?k=v"},
		{redirects.Rule{Destination: "/b?x=1#f", PreserveQuery: true, QueryAfterFragment: true, StatusCode: 301}, "/a?q=1#g", 2, "/b?x=1#f&q=1"},
		{redirects.Rule{Destination: "/b#f?x", PreserveQuery: true, QueryAfterFragment: true, StatusCode: 301}, "/a?q=1", 2, "/b#f?x&q=1"},
		{redirects.Rule{Destination: "/b#f", PreserveQuery: true, QueryAfterFragment: true, StatusCode: 301}, "/a", 2, "/b#f"},
		{redirects.Rule{Destination: "https://ex.com#f", MatchType: redirects.StartsWith, PreservePath: true, PreserveQuery: true, QueryAfterFragment: true, StatusCode: 301}, "/x/a?q", 3, "https://ex.com/a#f?q"},
		{redirects.Rule{Destination: "/d#f", MatchType: redirects.StartsWith, PreservePath: true, PreserveQuery: true, QueryAfterFragment: true, StatusCode: 301}, "/x/a", 2, "/d/a#f"},
		{redirects.Rule{Destination: "https://m.example/items?itemName=p.e", PreserveQuery: true, MergeQuery: true, StatusCode: 308}, "/a?itemName=x&a=1", 2, "https://m.example/items?itemName=p.e&a=1"},
		{redirects.Rule{Destination: "/b?x=1&y#f", PreserveQuery: true, MergeQuery: true, StatusCode: 301}, "/a?y=2&&z&x&x=3&w=", 2, "/b?x=1&y&z&w=#f"},
		{redirects.Rule{Destination: "/b?x=1", PreserveQuery: true, MergeQuery: true, StatusCode: 301}, "/a?x=2&", 2, "/b?x=1"},
		{redirects.Rule{Destination: "/b?x=1", PreserveQuery: true, MergeQuery: true, StatusCode: 301}, "/a?%78=2&X=3", 2, "/b?x=1&%78=2&X=3"},
		{redirects.Rule{Destination: "https://ex.com?x=1", MatchType: redirects.StartsWith, PreservePath: true, PreserveQuery: true, MergeQuery: true, StatusCode: 301}, "/x/a?x=5", 3, "https://ex.com/a?x=1"},
	} {
		if got := redirects.Target(&c.rule, c.wire, c.matched); got != c.want {
			t.Errorf("Target(%+v, %q, %d) = %q, want %q", c.rule, c.wire, c.matched, got, c.want)
		}
	}
}

func TestRuleOptionsValidation(t *testing.T) {
	for _, c := range []struct {
		rule redirects.Rule
		want string // a part of the error, "" for none
	}{
		{redirects.Rule{Source: "/a", Destination: "/b#frag", StatusCode: 308}, ""},
		{redirects.Rule{Source: "/a", StatusCode: 410}, ""},
		{redirects.Rule{Source: "/a", Destination: "/b", StatusCode: 410}, "destination must be empty"},
		{redirects.Rule{Source: "/a", StatusCode: 410, PreserveQuery: true}, "preserveQuery"},
		{redirects.Rule{Source: "/a", StatusCode: 301}, "destination is empty"},
		{redirects.Rule{Source: "/a", Destination: "/b", StatusCode: 301, PreservePath: true}, "preservePath applies to starts_with"},
		{redirects.Rule{Source: "/a", Destination: "/b#x#y", StatusCode: 301}, "second '#'"},
		{redirects.Rule{Source: "/a", Destination: "/b", StatusCode: 304}, "statusCode 304"},
		{redirects.Rule{Source: "/a", Destination: "/b", StatusCode: 303, MatchType: redirects.StartsWith, PreservePath: true, PreserveQuery: true}, ""},
		{redirects.Rule{Source: "/a", Destination: "/b#f", StatusCode: 301, PreserveQuery: true, QueryAfterFragment: true}, ""},
		{redirects.Rule{Source: "/a", Destination: "/b#f", StatusCode: 301, QueryAfterFragment: true}, "queryAfterFragment applies with preserveQuery only"},
		{redirects.Rule{Source: "/a", Destination: "/b?x=1", StatusCode: 301, PreserveQuery: true, QueryAfterFragment: true}, "queryAfterFragment applies to a destination with a fragment only"},
		{redirects.Rule{Source: "/a", StatusCode: 410, QueryAfterFragment: true}, "queryAfterFragment does not apply to statusCode 410"},
		{redirects.Rule{Source: "/(a)", Destination: "/b#$1", StatusCode: 301, MatchType: redirects.Regex, PreserveQuery: true, QueryAfterFragment: true}, ""},
		{redirects.Rule{Source: "/:a", Destination: "/b/:a", StatusCode: 301, MatchType: redirects.Pattern, PreserveQuery: true, QueryAfterFragment: true}, "queryAfterFragment applies to a destination with a fragment only"},
		// An empty query before the fragment: Apache and nginx keep its '?'.
		{redirects.Rule{Source: "/a", Destination: "/b?#f", StatusCode: 301, PreserveQuery: true, QueryAfterFragment: true}, "queryAfterFragment does not apply to a destination whose query before its fragment is empty"},
		{redirects.Rule{Source: "/a", Destination: "/b?#f", StatusCode: 301, PreserveQuery: true}, ""},
		{redirects.Rule{Source: "/a", Destination: "/b?x#f", StatusCode: 301, PreserveQuery: true, QueryAfterFragment: true}, ""},
		{redirects.Rule{Source: "/a", Destination: "/b#f?", StatusCode: 301, PreserveQuery: true, QueryAfterFragment: true}, ""},
		{redirects.Rule{Source: "/a", Destination: "/b??#f", StatusCode: 301, PreserveQuery: true, QueryAfterFragment: true}, ""},
		{redirects.Rule{Source: "/a", Destination: "/b?x=1", StatusCode: 301, PreserveQuery: true, MergeQuery: true}, ""},
		{redirects.Rule{Source: "/a", Destination: "/b?x=1", StatusCode: 301, MergeQuery: true}, "mergeQuery applies with preserveQuery only"},
		{redirects.Rule{Source: "/a", Destination: "/b", StatusCode: 301, PreserveQuery: true, MergeQuery: true}, "mergeQuery applies to a destination with a query parameter only"},
		{redirects.Rule{Source: "/a", Destination: "/b?", StatusCode: 301, PreserveQuery: true, MergeQuery: true}, "mergeQuery applies to a destination with a query parameter only"},
		{redirects.Rule{Source: "/a", Destination: "/b?#x=1", StatusCode: 301, PreserveQuery: true, MergeQuery: true}, "mergeQuery applies to a destination with a query parameter only"},
		{redirects.Rule{Source: "/a", Destination: "/b?&&#x=1", StatusCode: 301, PreserveQuery: true, MergeQuery: true}, "mergeQuery applies to a destination with a query parameter only"},
		{redirects.Rule{Source: "/a", Destination: "/b?&x&", StatusCode: 301, PreserveQuery: true, MergeQuery: true}, ""},
		{redirects.Rule{Source: "/a", StatusCode: 410, MergeQuery: true}, "mergeQuery does not apply to statusCode 410"},
		{redirects.Rule{Source: "/a", Destination: "/b?x=1#f", StatusCode: 301, PreserveQuery: true, QueryAfterFragment: true, MergeQuery: true}, "mergeQuery and queryAfterFragment do not go together"},
		{redirects.Rule{Source: "/:a", Destination: "/b?:a=1", StatusCode: 301, MatchType: redirects.Pattern, PreserveQuery: true, MergeQuery: true}, ""},
		{redirects.Rule{Source: "/(a)", Destination: "/b?$1", StatusCode: 301, MatchType: redirects.Regex, PreserveQuery: true, MergeQuery: true}, ""},
		{redirects.Rule{Source: "/:a", Destination: "/b/:a", StatusCode: 301, MatchType: redirects.Pattern, PreserveQuery: true, MergeQuery: true}, "mergeQuery applies to a destination with a query parameter only"},
	} {
		err := c.rule.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.rule, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: error %v, want one with %q", c.rule, err, c.want)
		}
	}
}
