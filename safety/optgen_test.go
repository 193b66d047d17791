package safety

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"redirects"
	"redirects/internal/rulegen"
	"redirects/internal/rulemodel"
)

// TestLintGeneratedOptions holds lint on the benchmark's generated rules
// with options (withOptions) to the model, under every combination of
// settings.
func TestLintGeneratedOptions(t *testing.T) {
	rules := withOptions(rulegen.Rules(2000, 0.3, 3))
	for _, s := range []redirects.Settings{{}, {CaseInsensitive: true}, {IgnoreTrailingSlash: true}, {CaseInsensitive: true, IgnoreTrailingSlash: true}} {
		if clashes := redirects.Clashes(rules, s, 1); len(clashes) > 0 {
			t.Logf("settings %s: the generated rules clash (%s, %s); the first answers", s, clashes[0].A.Source, clashes[0].B.Source)
		}
		kinds := checkOptionModel(t, s, rules, benchHosts)
		if kinds[KindChain] == 0 {
			t.Errorf("settings %s: no chain among the generated rules: %v", s, kinds)
		}
		t.Logf("settings %s: %v", s, kinds)
	}
}

// TestDiffIsTheOptionModel diffs random projects against themselves and
// against a copy with other options, under random settings on each side,
// and holds every sample path's two answers to rulemodel.Lookup: a path in
// Impact answers differently in the model, every other sample the same.
func TestDiffIsTheOptionModel(t *testing.T) {
	qaf, mq := 0, 0
	defer func() {
		if qaf == 0 {
			t.Errorf("no rule was given queryAfterFragment")
		}
		if mq == 0 {
			t.Errorf("no rule was given mergeQuery")
		}
	}()
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 13))
		sa, from := optProject(rng, 1+rng.IntN(12))
		sb := redirects.Settings{CaseInsensitive: rng.IntN(2) == 0, IgnoreTrailingSlash: rng.IntN(2) == 0}
		to := append([]redirects.Rule(nil), from...)
		for i := range to {
			if to[i].StatusCode != redirects.StatusGone && rng.IntN(3) == 0 {
				to[i].PreserveQuery = !to[i].PreserveQuery
			}
			if to[i].PreserveQuery && strings.Contains(to[i].Destination, "#") && rng.IntN(2) == 0 {
				to[i].QueryAfterFragment = true
				qaf++
			}
			if _, q, _ := redirects.SplitDestination(to[i].Destination); to[i].PreserveQuery && !to[i].QueryAfterFragment && q != "" && rng.IntN(2) == 0 {
				to[i].MergeQuery = true
				mq++
			}
		}
		d := Diff(from, to, DiffOptions{MaxPaths: -1, From: sa, To: sb})
		for _, c := range d.Changed {
			if c.To.QueryAfterFragment && !slices.Contains(c.Fields, "queryAfterFragment") {
				t.Fatalf("a change that sets queryAfterFragment names %v", c.Fields)
			}
			if c.To.MergeQuery && !slices.Contains(c.Fields, "mergeQuery") {
				t.Fatalf("a change that sets mergeQuery names %v", c.Fields)
			}
		}
		if (d.Settings != nil) != (sa != sb) {
			t.Fatalf("settings %s -> %s: the change %+v", sa, sb, d.Settings)
		}
		changed := map[string]bool{}
		for _, p := range d.Impact {
			changed[p.Path] = true
		}
		a, b := sortedByIdentity(from), sortedByIdentity(to)
		samples := samplePaths(a, b, sa, sb, nil)
		if len(samples) != d.PathsChecked || len(d.Impact) != d.PathsChanged {
			t.Fatalf("%d samples, %d checked; %d listed, %d changed", len(samples), d.PathsChecked, len(d.Impact), d.PathsChanged)
		}
		for _, p := range samples {
			w := rulemodel.Escape(p[:len(matchPath(p))], false) + p[len(matchPath(p)):]
			ma, oka := rulemodel.Lookup(from, rulemodel.Of(sa), w)
			mb, okb := rulemodel.Lookup(to, rulemodel.Of(sb), w)
			same := oka == okb && (!oka || ma.Status == mb.Status && ma.Destination == mb.Destination)
			if same == changed[p] {
				t.Fatalf("settings %s -> %s: %s in the impact: %v; the model: %v %+v -> %v %+v", sa, sb, p, changed[p], oka, ma, okb, mb)
			}
		}
	}
}
