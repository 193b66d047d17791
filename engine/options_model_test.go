package engine_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/engine"
	"redirects/internal/rulegen"
	"redirects/internal/rulemodel"
)

// apiJSON renders a lookup body with encoding/json, the reference for the
// engine's bodies: HTML escaping off, no trailing newline.
func apiJSON(dest string, status int, mt redirects.MatchType) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		Destination string `json:"destination"`
		StatusCode  int    `json:"statusCode"`
		MatchType   string `json:"matchType"`
	}{dest, status, mt.String()}); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// checkAgainstModel looks path up in snap and holds the answer (found or
// not, status, destination, match type, JSON body, the body rendered into a
// buffer, and the rule its hit counts for) to rulemodel.Lookup.
func checkAgainstModel(t *testing.T, snap *engine.Snapshot, rules []redirects.Rule, st redirects.Settings, path string) (rulemodel.Answer, bool) {
	t.Helper()
	want, wantOK := rulemodel.Lookup(rules, rulemodel.Of(st), path)
	m, ok := snap.Lookup(path)
	if ok != wantOK {
		t.Fatalf("settings %v, path %q: found=%v, the model found=%v (rule %+v)\nrules: %+v", st, path, ok, wantOK, want, rules)
	}
	if !ok {
		return want, false
	}
	r := &rules[want.Rule]
	wantBody := apiJSON(want.Destination, want.Status, r.MatchType)
	if got := string(m.AppendTarget(nil, path)); m.StatusCode() != want.Status || got != want.Destination || m.MatchType() != r.MatchType {
		t.Fatalf("settings %v, path %q: {%q %d %v}, the model answers rule %d %+v with {%q %d}\nrules: %+v",
			st, path, got, m.StatusCode(), m.MatchType(), r.ID, *r, want.Destination, want.Status, rules)
	}
	if got := string(m.AppendJSON([]byte("x"), path)); got != "x"+wantBody {
		t.Fatalf("settings %v, path %q: AppendJSON %s, want %s", st, path, got, wantBody)
	}
	if computed := want.Destination != r.Destination; m.Computed(path) != computed {
		t.Fatalf("settings %v, path %q: Computed %v, but the answer %q and the destination %q", st, path, m.Computed(path), want.Destination, r.Destination)
	} else if !computed && string(m.JSON()) != wantBody {
		t.Fatalf("settings %v, path %q: pre-rendered JSON %s, want %s", st, path, m.JSON(), wantBody)
	}
	if m.Destination() != r.Destination {
		t.Fatalf("settings %v, path %q: Destination %q, the rule's %q", st, path, m.Destination(), r.Destination)
	}
	// The hit counts for the rule the model picked.
	snap.CountHit(m)
	n := 0
	snap.Hits().Harvest(func(k redirects.HitKey, c int64) {
		mt, source := k.MatchType, k.Source
		n++
		if mt != r.MatchType || source != r.Source || c != 1 {
			t.Fatalf("settings %v, path %q: the hit counted %d for %v %q, want 1 for rule %d (%v %q)", st, path, c, mt, source, r.ID, r.MatchType, r.Source)
		}
	})
	if n != 1 {
		t.Fatalf("settings %v, path %q: %d rules harvested, want 1", st, path, n)
	}
	return want, true
}

// TestLookupMatchesRuleModel is the property test of the rule options:
// random projects (every setting, every option and status) looked up on
// random paths (case and slash variants, rests, escapes, with and without a
// query and fragment) agree with the brute-force model of
// docs/contract.md, in every prefix index shape.
func TestLookupMatchesRuleModel(t *testing.T) {
	projects := 400
	if testing.Short() {
		projects = 60
	}
	for _, cfg := range engine.BucketConfigs() {
		t.Run(cfg.Name, func(t *testing.T) {
			engine.WithBuckets(cfg.Keys, cfg.Bytes, func() {
				// What the random sets exercised, so that a generator that
				// stopped producing something fails here.
				seen := map[string]int{}
				for seed := range projects {
					rng := rand.New(rand.NewPCG(uint64(seed), 20))
					st, rules := rulemodel.Project(rng, 1+rng.IntN(40))
					rulemodel.WithQueryAfterFragment(rng, rules)
					snap := engine.CompileWith(rules, st)
					if snap.Settings() != st {
						t.Fatalf("Settings() = %v, compiled with %v", snap.Settings(), st)
					}
					paths := rulemodel.Paths(rng, rules, 150)
					for _, r := range rules {
						paths = append(paths, r.Source, r.Source+"?q=1", strings.ToUpper(r.Source), strings.TrimSuffix(r.Source, "/"), r.Source+"/", r.Source+"x/y?z")
					}
					for _, p := range paths {
						want, ok := checkAgainstModel(t, snap, rules, st, p)
						if !ok {
							seen["miss"]++
							continue
						}
						r := rules[want.Rule]
						seen[fmt.Sprintf("status %d", want.Status)]++
						seen[fmt.Sprintf("settings %v", st)]++
						if want.Destination != r.Destination {
							seen["computed"]++
						}
						if r.QueryAfterFragment {
							seen["queryAfterFragment"]++
							if strings.Contains(p, "?") && want.Destination != r.Destination {
								seen["queryAfterFragment computed"]++
							}
						}
						switch {
						case r.PreservePath:
							seen["preservePath"]++
						case r.PreserveQuery:
							seen["preserveQuery"]++
						}
						if strings.Contains(r.Destination, "#") {
							seen["fragment"]++
						}
					}
				}
				for _, k := range []string{"miss", "computed", "preservePath", "preserveQuery", "fragment", "queryAfterFragment", "queryAfterFragment computed",
					"status 301", "status 302", "status 303", "status 307", "status 308", "status 410",
					"settings caseSensitive=true trailingSlash=exact", "settings caseSensitive=false trailingSlash=exact",
					"settings caseSensitive=true trailingSlash=ignore", "settings caseSensitive=false trailingSlash=ignore"} {
					if seen[k] == 0 {
						t.Errorf("the random projects never produced %q: %v", k, seen)
					}
				}
			})
		})
	}
}

// TestLookupMergeQueryMatchesModel holds mergeQuery rules to the model on
// random projects and on requests whose parameters the destinations name
// and do not, repeated, empty and without '='.
func TestLookupMergeQueryMatchesModel(t *testing.T) {
	projects := 300
	if testing.Short() {
		projects = 50
	}
	seen := map[string]int{}
	for seed := range projects {
		rng := rand.New(rand.NewPCG(uint64(seed), 27))
		st, rules := rulemodel.Project(rng, 1+rng.IntN(40))
		rulemodel.WithMergeQuery(rng, rules)
		snap := engine.CompileWith(rules, st)
		for _, p := range rulemodel.MergePaths(rng, rules, 150) {
			want, ok := checkAgainstModel(t, snap, rules, st, p)
			if !ok || !rules[want.Rule].MergeQuery {
				continue
			}
			r := rules[want.Rule]
			seen["mergeQuery"]++
			_, dq, _ := redirects.SplitDestination(r.Destination)
			rq := redirects.RequestQuery(p)
			switch {
			case want.Destination == r.Destination && rq != "":
				seen["every parameter dropped"]++
			case strings.Contains(want.Destination, "?"+dq+"&"):
				seen["merged"]++
			}
			for q := rq; q != ""; {
				var piece string
				piece, q, _ = strings.Cut(q, "&")
				if piece != "" && redirects.QueryHoldsName(dq, redirects.ParamName(piece)) {
					seen["a name the destination holds"]++
				}
			}
		}
	}
	for _, k := range []string{"mergeQuery", "every parameter dropped", "merged", "a name the destination holds"} {
		if seen[k] == 0 {
			t.Errorf("the random projects never produced %q: %v", k, seen)
		}
	}
}

var t1 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// TestLookupOptionsTable pins the contract's examples of computed answers
// and of matching under the settings.
func TestLookupOptionsTable(t *testing.T) {
	type rule = redirects.Rule
	ex, sw := redirects.Exact, redirects.StartsWith
	ci := redirects.Settings{CaseInsensitive: true}
	ig := redirects.Settings{IgnoreTrailingSlash: true}
	both := redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}
	long := "/" + strings.Repeat("l", 300)
	longer := "/" + strings.Repeat("m", 2100)
	tests := []struct {
		name     string
		st       redirects.Settings
		rules    []rule
		path     string
		wantBody string // "" = no match
	}{
		{"the join adds nothing", redirects.Settings{}, []rule{{ID: 1, Source: "/x", Destination: "/y/", StatusCode: 301, MatchType: sw, PreservePath: true}},
			"/x/a", `{"destination":"/y//a","statusCode":301,"matchType":"starts_with"}`},
		{"an absolute destination without a path gets /", redirects.Settings{}, []rule{{ID: 1, Source: "/x", Destination: "https://ex.com", StatusCode: 308, MatchType: sw, PreservePath: true}},
			"/xa", `{"destination":"https://ex.com/a","statusCode":308,"matchType":"starts_with"}`},
		{"queries joined, fragment last", redirects.Settings{}, []rule{{ID: 1, Source: "/x", Destination: "/y?d=1#f", StatusCode: 307, MatchType: sw, PreservePath: true, PreserveQuery: true}},
			"/x/a%20b?q=2#g", `{"destination":"/y/a%20b?d=1&q=2#f","statusCode":307,"matchType":"starts_with"}`},
		{"queryAfterFragment: the request's query after the fragment", redirects.Settings{}, []rule{{ID: 1, Source: "/design.html", Destination: "/documentation#design", StatusCode: 301, MatchType: ex, PreserveQuery: true, QueryAfterFragment: true}},
			"/design.html?k=v", `{"destination":"/documentation#design?k=v","statusCode":301,"matchType":"exact"}`},
		{"queryAfterFragment: the rest before the fragment, the query after", redirects.Settings{}, []rule{{ID: 1, Source: "/x", Destination: "/y?d=1#f", StatusCode: 307, MatchType: sw, PreservePath: true, PreserveQuery: true, QueryAfterFragment: true}},
			"/x/a%20b?q=2#g", `{"destination":"/y/a%20b?d=1#f&q=2","statusCode":307,"matchType":"starts_with"}`},
		{"queryAfterFragment: '&' after a fragment holding '?'", redirects.Settings{}, []rule{{ID: 1, Source: "/x", Destination: "/y#f?a=1", StatusCode: 302, MatchType: ex, PreserveQuery: true, QueryAfterFragment: true}},
			"/x?q", `{"destination":"/y#f?a=1&q","statusCode":302,"matchType":"exact"}`},
		{"queryAfterFragment: no request query, as configured", redirects.Settings{}, []rule{{ID: 1, Source: "/x", Destination: "/y#f", StatusCode: 308, MatchType: ex, PreserveQuery: true, QueryAfterFragment: true}},
			"/x?", `{"destination":"/y#f","statusCode":308,"matchType":"exact"}`},
		{"mergeQuery: the destination's value stands", redirects.Settings{}, []rule{{ID: 1, Source: "/x", Destination: "https://m.example/items?itemName=p.e", StatusCode: 308, MatchType: ex, PreserveQuery: true, MergeQuery: true}},
			"/x?itemName=x&a=1", `{"destination":"https://m.example/items?itemName=p.e&a=1","statusCode":308,"matchType":"exact"}`},
		{"mergeQuery: the request's order, repeated names, empty pieces dropped, names as written", redirects.Settings{}, []rule{{ID: 1, Source: "/x", Destination: "/y?a=1&b#f", StatusCode: 301, MatchType: sw, PreservePath: true, PreserveQuery: true, MergeQuery: true}},
			"/x/r?z=1&&a=2&c&c=3&b=4&%61=5&A=6&#g", `{"destination":"/y/r?a=1&b&z=1&c&c=3&%61=5&A=6#f","statusCode":301,"matchType":"starts_with"}`},
		{"mergeQuery: no parameter left, as configured", redirects.Settings{}, []rule{{ID: 1, Source: "/x", Destination: "/y?a=1#f", StatusCode: 302, MatchType: ex, PreserveQuery: true, MergeQuery: true}},
			"/x?a=2&&a", `{"destination":"/y?a=1#f","statusCode":302,"matchType":"exact"}`},
		{"mergeQuery: JSON escapes the request's parameters", redirects.Settings{}, []rule{{ID: 1, Source: "/x", Destination: "/y?a=1", StatusCode: 307, MatchType: ex, PreserveQuery: true, MergeQuery: true}},
			"/x?q=\"&a=\\", `{"destination":"/y?a=1&q=\"","statusCode":307,"matchType":"exact"}`},
		{"an empty destination query counts as none", redirects.Settings{}, []rule{{ID: 1, Source: "/x", Destination: "/y?", StatusCode: 301, MatchType: ex, PreserveQuery: true}},
			"/x?q", `{"destination":"/y?q","statusCode":301,"matchType":"exact"}`},
		{"nothing to append: as configured", redirects.Settings{}, []rule{{ID: 1, Source: "/x", Destination: "/y?", StatusCode: 303, MatchType: sw, PreservePath: true, PreserveQuery: true}},
			"/x#h", `{"destination":"/y?","statusCode":303,"matchType":"starts_with"}`},
		{"410", redirects.Settings{}, []rule{{ID: 1, Source: "/gone", StatusCode: 410, MatchType: sw}},
			"/gone/x?q", `{"destination":"","statusCode":410,"matchType":"starts_with"}`},
		{"a query before the first # only", redirects.Settings{}, []rule{{ID: 1, Source: "/x", Destination: "/y", StatusCode: 301, MatchType: ex, PreserveQuery: true}},
			"/x#a?b", `{"destination":"/y","statusCode":301,"matchType":"exact"}`},
		{"a rest with characters JSON escapes", redirects.Settings{}, []rule{{ID: 1, Source: "/x", Destination: "/y", StatusCode: 301, MatchType: sw, PreservePath: true, PreserveQuery: true}},
			"/x/\"\\\n?a=\"", `{"destination":"/y/\"\\\n?a=\"","statusCode":301,"matchType":"starts_with"}`},
		{"the rest starts on an escape's boundary", redirects.Settings{}, []rule{{ID: 1, Source: "/café", Destination: "/c", StatusCode: 301, MatchType: sw, PreservePath: true}},
			"/caf%C3%A9/%C3%A9t%C3%A9", `{"destination":"/c/%C3%A9t%C3%A9","statusCode":301,"matchType":"starts_with"}`},
		{"case-insensitive exact", ci, []rule{{ID: 1, Source: "/En-US/Docs", Destination: "/d", StatusCode: 301, MatchType: ex}},
			"/en-us/DOCS?x", `{"destination":"/d","statusCode":301,"matchType":"exact"}`},
		{"case-insensitive is ASCII only", ci, []rule{{ID: 1, Source: "/café", Destination: "/d", StatusCode: 301, MatchType: ex}},
			"/CAFÉ", ""},
		{"case-insensitive escaped letters", ci, []rule{{ID: 1, Source: "/ab", Destination: "/d", StatusCode: 301, MatchType: ex}},
			"/%41B", `{"destination":"/d","statusCode":301,"matchType":"exact"}`},
		{"case-insensitive prefix keeps the request's spelling in the rest", ci, []rule{{ID: 1, Source: "/Docs", Destination: "/d", StatusCode: 301, MatchType: sw, PreservePath: true}},
			"/DOCS/Page", `{"destination":"/d/Page","statusCode":301,"matchType":"starts_with"}`},
		{"case-sensitive by default", redirects.Settings{}, []rule{{ID: 1, Source: "/Docs", Destination: "/d", StatusCode: 301, MatchType: sw}},
			"/docs", ""},
		{"ignore: exact with a slash matches without", ig, []rule{{ID: 1, Source: "/a/", Destination: "/d", StatusCode: 301, MatchType: ex}},
			"/a", `{"destination":"/d","statusCode":301,"matchType":"exact"}`},
		{"ignore: exact without a slash matches with", ig, []rule{{ID: 1, Source: "/a", Destination: "/d", StatusCode: 301, MatchType: ex}},
			"/a/?q", `{"destination":"/d","statusCode":301,"matchType":"exact"}`},
		{"ignore: one slash only", ig, []rule{{ID: 1, Source: "/a", Destination: "/d", StatusCode: 301, MatchType: ex}},
			"/a//", ""},
		{"ignore: the root keeps its slash", ig, []rule{{ID: 1, Source: "/", Destination: "/d", StatusCode: 301, MatchType: ex}},
			"/", `{"destination":"/d","statusCode":301,"matchType":"exact"}`},
		{"exact by default: the slash counts", redirects.Settings{}, []rule{{ID: 1, Source: "/a/", Destination: "/d", StatusCode: 301, MatchType: ex}},
			"/a", ""},
		{"ignore: a prefix source's slash-less twin, empty rest", ig, []rule{{ID: 1, Source: "/a/", Destination: "/d", StatusCode: 301, MatchType: sw, PreservePath: true, PreserveQuery: true}},
			"/a?q=1", `{"destination":"/d?q=1","statusCode":301,"matchType":"starts_with"}`},
		{"ignore: the twin is not a prefix", ig, []rule{{ID: 1, Source: "/a/", Destination: "/d", StatusCode: 301, MatchType: sw}},
			"/ab", ""},
		{"ignore: the twin's winner beats a shorter source", ig, []rule{
			{ID: 1, Source: "/a", Destination: "/short", StatusCode: 301, MatchType: sw, Priority: 100},
			{ID: 2, Source: "/a/", Destination: "/long", StatusCode: 302, MatchType: sw, Priority: 0},
		}, "/a", `{"destination":"/long","statusCode":302,"matchType":"starts_with"}`},
		{"ignore: the twin of a lower-priority source loses", ig, []rule{
			{ID: 1, Source: "/a", Destination: "/short", StatusCode: 301, MatchType: sw, Priority: 0},
			{ID: 2, Source: "/a/", Destination: "/long", StatusCode: 302, MatchType: sw, Priority: 100},
		}, "/a", `{"destination":"/short","statusCode":301,"matchType":"starts_with"}`},
		{"both: folded twin", both, []rule{{ID: 1, Source: "/A/B/", Destination: "/d", StatusCode: 301, MatchType: sw, PreservePath: true}},
			"/a/b", `{"destination":"/d","statusCode":301,"matchType":"starts_with"}`},
		{"both: folded closure winner", both, []rule{
			{ID: 1, Source: "/A", Destination: "/upper", StatusCode: 301, MatchType: sw, Priority: 0},
			{ID: 2, Source: "/a/b", Destination: "/lower", StatusCode: 301, MatchType: sw, Priority: 10},
		}, "/a/B/c", `{"destination":"/upper","statusCode":301,"matchType":"starts_with"}`},
		{"a path longer than the small buffer", both, []rule{{ID: 1, Source: long, Destination: "/d", StatusCode: 301, MatchType: sw, PreservePath: true}},
			strings.ToUpper(long) + "/x", `{"destination":"/d/x","statusCode":301,"matchType":"starts_with"}`},
		{"a path longer than the edge accepts", both, []rule{{ID: 1, Source: "/m", Destination: "/d", StatusCode: 301, MatchType: sw, PreservePath: true}},
			longer, `{"destination":"/d` + longer[2:] + `","statusCode":301,"matchType":"starts_with"}`},
		{"a malformed escape matches nothing", both, []rule{{ID: 1, Source: "/", Destination: "/d", StatusCode: 301, MatchType: sw}},
			"/a%2", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range tt.rules {
				tt.rules[i].CreatedAt = t1
			}
			snap := engine.CompileWith(tt.rules, tt.st)
			m, ok := snap.Lookup(tt.path)
			var got string
			if ok {
				got = string(m.AppendJSON(nil, tt.path))
			}
			if ok != (tt.wantBody != "") || got != tt.wantBody {
				t.Fatalf("Lookup(%q) = %s (found %v), want %s", tt.path, got, ok, tt.wantBody)
			}
			checkAgainstModel(t, snap, tt.rules, tt.st, tt.path)
		})
	}
}

// TestLookupWithOptionsDoesNotAllocate checks that no lookup allocates,
// for every rule kind, option and setting: the match, the computed body
// rendered into a buffer, the computed destination appended to one, and the
// hit's count.
func TestLookupWithOptionsDoesNotAllocate(t *testing.T) {
	for _, st := range []redirects.Settings{{}, {CaseInsensitive: true}, {IgnoreTrailingSlash: true}, {CaseInsensitive: true, IgnoreTrailingSlash: true}} {
		t.Run(st.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(3, 4))
			rules := withOptions(rulegen.Rules(5000, 0.5, 5), rng)
			rules = unclash(rules, st)
			snap := engine.CompileWith(rules, st)
			var paths []string
			for _, r := range rules[:300] {
				paths = append(paths, r.Source, strings.ToUpper(r.Source)+"/more?q=1#f", r.Source+"/a%20b?x=%22", strings.TrimSuffix(r.Source, "/"))
			}
			paths = append(paths, "/nothing/here", "/", "/"+strings.Repeat("a", 600), "/a%2")
			kinds := map[string]bool{}
			for _, p := range paths {
				if m, ok := snap.Lookup(p); ok {
					kinds[fmt.Sprintf("%d %v computed=%v", m.StatusCode(), m.MatchType(), m.Computed(p))] = true
				}
			}
			if len(kinds) < 12 {
				t.Fatalf("the paths reach only %d kinds of answer: %v", len(kinds), kinds)
			}
			buf := make([]byte, 0, 8192)
			var sink int
			allocs := testing.AllocsPerRun(20, func() {
				for _, p := range paths {
					if m, ok := snap.Lookup(p); ok {
						sink += len(m.AppendJSON(buf, p)) + len(m.AppendTarget(buf, p)) + m.StatusCode() + int(m.MatchType())
						snap.CountHit(m)
					}
				}
			})
			if allocs != 0 {
				t.Fatalf("%.1f allocations per run of %d lookups, want 0", allocs, len(paths))
			}
			_ = sink
		})
	}
}

// withOptions gives rules every status and option at random.
func withOptions(rules []redirects.Rule, rng *rand.Rand) []redirects.Rule {
	for i := range rules {
		r := &rules[i]
		r.StatusCode = redirects.StatusCodes[rng.IntN(len(redirects.StatusCodes))]
		r.PreservePath, r.PreserveQuery, r.QueryAfterFragment, r.MergeQuery = false, false, false, false
		if r.StatusCode == redirects.StatusGone {
			r.Destination = ""
			continue
		}
		if rng.IntN(4) == 0 {
			r.Destination += "#frag"
		}
		r.PreserveQuery = rng.IntN(2) == 0
		r.PreservePath = r.MatchType == redirects.StartsWith && rng.IntN(2) == 0
		r.QueryAfterFragment = r.PreserveQuery && strings.Contains(r.Destination, "#") && rng.IntN(2) == 0
	}
	return rules
}

// unclash drops the rules that clash with an earlier one under st.
func unclash(rules []redirects.Rule, st redirects.Settings) []redirects.Rule {
	seen := map[string]bool{}
	out := rules[:0]
	for _, r := range rules {
		k := r.MatchType.String() + " " + st.Key(r.Source)
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}
