package engine_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"redirects"
	"redirects/engine"
	"redirects/internal/rulemodel"
)

// TestLookupOptionsMatchModel holds the engine to the brute-force model of
// docs/contract.md#rule-options on random projects (every setting, option
// and status) and random paths (case and slash variants, rests, escapes,
// queries, fragments): the same rule's status, the same computed
// destination, and a body that says both.
func TestLookupOptionsMatchModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 2026))
	matched := 0
	for round := 0; round < 400; round++ {
		s, rules := rulemodel.Project(rng, 1+rng.IntN(40))
		snap := engine.CompileWith(rules, s)
		for _, wire := range rulemodel.Paths(rng, rules, 80) {
			want, wok := rulemodel.Lookup(rules, rulemodel.Of(s), wire)
			m, ok := snap.Lookup(wire)
			if ok != wok {
				t.Fatalf("settings %v, path %q: engine matched %v, model %v (rule %+v)\nrules %+v", s, wire, ok, wok, want, rules)
			}
			if !ok {
				continue
			}
			matched++
			if got := string(m.AppendTarget(nil, wire)); got != want.Destination || m.StatusCode() != want.Status {
				t.Fatalf("settings %v, path %q: engine %d %q, model %d %q (rule %+v)", s, wire, m.StatusCode(), got, want.Status, want.Destination, rules[want.Rule])
			}
			var body struct {
				Destination string `json:"destination"`
				StatusCode  int    `json:"statusCode"`
				MatchType   string `json:"matchType"`
			}
			if err := json.Unmarshal(m.AppendJSON(nil, wire), &body); err != nil {
				t.Fatalf("path %q: body %q: %v", wire, m.AppendJSON(nil, wire), err)
			}
			if body.Destination != want.Destination || body.StatusCode != want.Status || body.MatchType != rules[want.Rule].MatchType.String() {
				t.Fatalf("path %q: body %+v, want %q %d %s", wire, body, want.Destination, want.Status, rules[want.Rule].MatchType)
			}
			if !m.Computed(wire) && string(m.AppendJSON(nil, wire)) != string(m.JSON()) {
				t.Fatalf("path %q: an answer that is not computed differs from the pre-rendered body", wire)
			}
		}
	}
	if matched < 10000 {
		t.Fatalf("only %d lookups matched: the generator does not exercise the engine", matched)
	}
}

// TestLookupOptionsDoNotAllocate: a lookup under every setting, answered by
// a rule with every option and rendered into a buffer with room, allocates
// nothing.
func TestLookupOptionsDoNotAllocate(t *testing.T) {
	rules := []redirects.Rule{
		{ID: 1, Source: "/Docs/", Destination: "https://ex.com/d?x=1#top", StatusCode: 308, MatchType: redirects.StartsWith, PreservePath: true, PreserveQuery: true},
		{ID: 2, Source: "/old/", Destination: "/new", StatusCode: 307, PreserveQuery: true},
		{ID: 3, Source: "/gone", StatusCode: 410},
		{ID: 4, Source: "/design", Destination: "/doc?d=1#design", StatusCode: 301, MatchType: redirects.StartsWith, PreservePath: true, PreserveQuery: true, QueryAfterFragment: true},
		{ID: 5, Source: "/vscode", Destination: "https://m.example/items?itemName=p.e#x", StatusCode: 308, MatchType: redirects.StartsWith, PreservePath: true, PreserveQuery: true, MergeQuery: true},
	}
	buf := make([]byte, 0, 4096)
	for _, s := range []redirects.Settings{{}, {CaseInsensitive: true}, {IgnoreTrailingSlash: true}, {CaseInsensitive: true, IgnoreTrailingSlash: true}} {
		snap := engine.CompileWith(rules, s)
		for _, wire := range []string{"/Docs/a/b?q=1", "/old/?utm=x", "/gone", "/design/x%20y?k=v#z", "/vscode/a?itemName=x&&a=1#z", "/vscode?itemName=x"} {
			if _, ok := snap.Lookup(wire); !ok {
				t.Fatalf("settings %v: %q matched nothing", s, wire)
			}
			allocs := testing.AllocsPerRun(200, func() {
				m, _ := snap.Lookup(wire)
				buf = m.AppendJSON(buf[:0], wire)
			})
			if allocs != 0 {
				t.Errorf("settings %v, %q: %v allocations per lookup", s, wire, allocs)
			}
		}
	}
}

// TestHitsKeepSourcesUnderSettings: under settings other than the default
// the records hold keys, and a hit is still counted under the rule's
// source as stored (docs/contract.md, "Hits and misses").
func TestHitsKeepSourcesUnderSettings(t *testing.T) {
	rules := []redirects.Rule{
		{ID: 1, Source: "/Docs/", Destination: "/d", StatusCode: 301},
		{ID: 2, Source: "/lower", Destination: "/l", StatusCode: 301},
		{ID: 3, Source: "/API/", Destination: "/a", StatusCode: 301, MatchType: redirects.StartsWith},
	}
	snap := engine.CompileWith(rules, redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true})
	for _, p := range []string{"/docs", "/DOCS/", "/LOWER/", "/api", "/Api/x"} {
		m, ok := snap.Lookup(p)
		if !ok {
			t.Fatalf("%q matched nothing", p)
		}
		snap.CountHit(m)
	}
	got := map[string]int64{}
	snap.Hits().Harvest(func(k redirects.HitKey, n int64) { got[k.MatchType.String()+" "+k.Source] += n })
	want := map[string]int64{"exact /Docs/": 2, "exact /lower": 1, "starts_with /API/": 2}
	if len(got) != len(want) {
		t.Fatalf("harvested %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Fatalf("harvested %v, want %v", got, want)
		}
	}
}
