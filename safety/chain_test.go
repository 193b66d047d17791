package safety

import (
	"math/rand/v2"
	"testing"

	"redirects"
	"redirects/internal/rulemodel"
)

// TestLintChainKeepsTheRest is a chain whose second rule keeps the rest of
// the path: the advice names where the lookup sends the first rule's
// destination, not where the second rule sends its own sample path.
func TestLintChainKeepsTheRest(t *testing.T) {
	rules := ro("exact /feed /blog/rss.xml", "prefix /blog/ /news/ pp")
	f := Lint(rules, LintOptions{})
	want := "rule 1 (exact /feed) redirects to /blog/rss.xml, which rule 2 (starts_with /blog/) redirects again: 2 redirects in a row end at /news/rss.xml; point it at /news/rss.xml directly"
	if len(f) != 1 || f[0].FinalDestination != "/news/rss.xml" || f[0].Message != want || f[0].Hops != 2 {
		t.Fatalf("findings %+v\nwant one chain: %s", f, want)
	}
	if got := summary(f); got[0] != "chain 1,2 /feed -> /blog/rss.xml" {
		t.Fatalf("chain %s, want the paths requested on the way", got[0])
	}
	// The chain goes on where the rest leads, not where the sample path does.
	rules = ro("exact /feed /blog/rss.xml", "prefix /blog/ /news/ pp", "exact /news/rss.xml /rss.xml 302")
	f = Lint(rules, LintOptions{})
	if s := summary(f); len(f) != 1 || f[0].FinalDestination != "/rss.xml" || f[0].Hops != 3 || !f[0].MixedStatus ||
		s[0] != "chain 1,2,3 /feed -> /blog/rss.xml -> /news/rss.xml" {
		t.Fatalf("findings %v %+v, want a chain of 3 ending at /rss.xml", s, f)
	}
	// A request that comes again is a loop, though the rules' sample paths
	// end.
	rules = ro("exact /feed /blog/x", "prefix /blog/ /news/ pp", "exact /news/x /feed")
	f = Lint(rules, LintOptions{})
	if len(f) == 0 || f[0].Kind != KindChain || f[0].FinalDestination != "" {
		t.Fatalf("findings %v %+v, want a chain into a loop first", summary(f), f)
	}
}

// TestLintChainsAreTheLookup holds every chain finding on random projects
// (every setting, option and status) to the lookup: the lookup of the
// finding's witness path (its first path), its answer followed request by
// request through rulemodel.Lookup, ends at the finding's final
// destination, or loops when the finding says it runs into a loop.
func TestLintChainsAreTheLookup(t *testing.T) {
	checked, rest := 0, 0
	for seed := range uint64(3000) {
		rng := rand.New(rand.NewPCG(seed, 37))
		s, rules := optProject(rng, 1+rng.IntN(14))
		byID := map[int64]int{}
		for i, r := range rules {
			byID[r.ID] = i
		}
		for _, f := range Lint(rules, LintOptions{Hosts: optHosts, Settings: s}) {
			if f.Kind != KindChain {
				continue
			}
			first := rules[byID[f.Rules[0].ID]]
			witness := rulemodel.Escape(f.Path[0], false)
			// The witness is answered by the chain's first rule, unless that
			// rule is shadowed there; the chain is about its answer.
			a, ok := rulemodel.Lookup(rules, rulemodel.Of(s), witness)
			if !ok || a.Rule != byID[first.ID] {
				a, ok = rulemodel.Lookup([]redirects.Rule{first}, rulemodel.Of(s), witness)
			}
			if !ok {
				t.Fatalf("seed %d: the chain's first rule does not answer its witness %s: %+v", seed, witness, f)
			}
			end, loop := modelFinal(rules, s, optHosts, a.Destination)
			if loop != (f.FinalDestination == "") || end != f.FinalDestination {
				t.Fatalf("seed %d, settings %s: chain %s ends at %q; the lookup followed from %s ends at %q (loop %v)\nrules: %+v",
					seed, s, f.Message, f.FinalDestination, witness, end, loop, rules)
			}
			checked++
			if second := rules[byID[f.Rules[1].ID]]; second.PreservePath && second.MatchType == redirects.StartsWith && !loop {
				rest++
			}
		}
	}
	// The generator must reach chains through a rule that keeps the rest,
	// or the test proves little.
	if rest == 0 {
		t.Fatalf("%d chains, none through a rule that keeps the rest of the path", checked)
	}
	t.Logf("%d chains, %d through a rule that keeps the rest", checked, rest)
}
