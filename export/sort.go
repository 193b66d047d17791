package export

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"redirects"
	"redirects/engine"
)

// rec is one line's worth of a rule: its source, destination and status,
// in file order. At a million rules the renderers make some ten passes
// over the rules; reading records laid out in the order they are written,
// instead of chasing each rule every time, keeps rendering fast. The
// strings are the rules' own: a copy laid out in file order (an arena, as
// the records were once made) rendered no faster at a million rules and
// held a second copy of every source and destination during a deploy
// (BENCHMARKS.md, "Deploy memory").
type rec struct {
	src, dst string
	code     int32
	mt       redirects.MatchType
	// rule is the rule the record was made from, for the rare analyses that
	// need its precedence (report.go).
	rule *redirects.Rule
}

// sorted holds the orders the formats need, computed once per deployment.
type sorted struct {
	// all is every rule in the canonical order of engine.SortRules:
	// exact rules by source bytes, then starts_with rules by precedence.
	all []rec
	// exact is all's exact rules less repeated sources: the server formats
	// cannot hold a source twice (nginx refuses the file), so the first rule
	// in the input keeps it, as in engine.Compile.
	exact []rec
	// prefix is all's starts_with rules, in precedence order, less repeated
	// sources (the better rule keeps it, as in engine.Compile).
	prefix []rec
	// winners has one record per distinct starts_with source, sorted by
	// source bytes, with the answer of its closure winner (see
	// engine.PrefixWinners): the source's own string with the winner's
	// destination and status.
	winners []rec
	// dupExact and dupPrefix are the sources dropped as repeats.
	dupExact, dupPrefix []string

	caseOnce sync.Once
	caseInfo *caseInfo

	// set are the project's settings (docs/contract.md#rule-options).
	set redirects.Settings
	// ext is set when the project uses a rule option or a setting other
	// than the default: only then do the files take the shapes and carry
	// the declarations of docs/exports.md's "Rule options and settings",
	// so a project that uses none renders byte for byte as before.
	ext bool

	mapOnce          sync.Once
	mapAll, mapNginx []mapEntry
	mapLeft          []caseDup

	// extd holds the extended rules (redirects.Rule.Extended: a pattern or
	// regex match type, a host, or query conditions), which the literal
	// orders above leave out: exact ones by source bytes, then the others
	// in priority order (extendedOrder). A format either answers them as
	// the lookup API does or declares them (declare.go); a project that
	// has some is ext, so its files carry the declarations.
	extd []rec
	// chain is every rule in the lookup API's order, for the formats that
	// answer extended rules (nginxchain.go); nil without extended rules,
	// or when the pattern engine refuses the rules.
	chain []chainRule
}

// sortRules computes the orders of sorted. The order of all is the one of
// engine.SortOrder, with ties (which only identical rules have) broken by
// input position, so the output depends neither on accidents of the input
// order nor on the sort algorithm. Input in that order already, as a deploy
// hands it over, is not sorted again.
func sortRules(rules []redirects.Rule, set redirects.Settings) *sorted {
	orig := rules
	rules, extd := splitExtended(rules)
	var exact, prefix []int32
	var winners []engine.PrefixWinner
	var wg sync.WaitGroup
	wg.Go(func() { exact, prefix = engine.SortOrder(rules) })
	wg.Go(func() { winners = dedupWinners(engine.PrefixWinners(rules)) })
	wg.Wait()

	s := &sorted{all: make([]rec, 0, len(rules)), winners: make([]rec, len(winners)), set: set, ext: !set.IsDefault()}
	for i := 0; i < len(rules) && !s.ext; i++ {
		s.ext = rules[i].UsesOptions()
	}
	if len(extd) > 0 {
		s.ext = true
		s.extd = make([]rec, len(extd))
		for i, r := range extd {
			s.extd[i] = newRec(r)
		}
		s.chain = makeChain(orig, set)
	}
	for _, i := range exact {
		s.all = append(s.all, newRec(&rules[i]))
	}
	for _, i := range prefix {
		s.all = append(s.all, newRec(&rules[i]))
	}
	for i, w := range winners {
		s.winners[i] = rec{src: w.Source, dst: w.Rule.Destination, code: int32(w.Rule.StatusCode), mt: redirects.StartsWith, rule: w.Rule}
	}

	s.exact = s.all[:len(exact)]
	for k := 1; k < len(s.exact); k++ {
		if s.exact[k].src == s.exact[k-1].src {
			s.exact = dedup(s.exact, &s.dupExact)
			break
		}
	}
	s.prefix = s.all[len(exact):]
	if len(winners) != len(prefix) {
		s.prefix = dedup(slices.Clone(s.prefix), &s.dupPrefix)
	}
	return s
}

// dedup removes the records whose source an earlier record has, appending
// their sources to dropped. It may reuse recs.
func dedup(recs []rec, dropped *[]string) []rec {
	seen := make(map[string]bool, len(recs))
	out := make([]rec, 0, len(recs))
	for _, r := range recs {
		if seen[r.src] {
			*dropped = append(*dropped, r.src)
			continue
		}
		seen[r.src] = true
		out = append(out, r)
	}
	return out
}

// dedupWinners keeps one winner per source. Within a run of equal sources,
// PrefixWinners gives each the better of its own rule and the winner before
// it, so the last of the run holds the best of all of them.
func dedupWinners(w []engine.PrefixWinner) []engine.PrefixWinner {
	out := w[:0]
	for i := range w {
		if i+1 < len(w) && w[i+1].Source == w[i].Source {
			continue
		}
		out = append(out, w[i])
	}
	return out
}

// newRec returns the record of r.
func newRec(r *redirects.Rule) rec {
	return rec{src: r.Source, dst: r.Destination, code: int32(r.StatusCode), mt: r.MatchType, rule: r}
}

// splitExtended returns the rules that are not extended
// (redirects.Rule.Extended), and the extended ones in the order of
// extendedOrder. Without extended rules, as in every project that uses no
// pattern, host or condition, it returns rules itself and copies nothing.
func splitExtended(rules []redirects.Rule) ([]redirects.Rule, []*redirects.Rule) {
	n := 0
	for i := range rules {
		if rules[i].Extended() {
			n++
		}
	}
	if n == 0 {
		return rules, nil
	}
	lit := make([]redirects.Rule, 0, len(rules)-n)
	extd := make([]*redirects.Rule, 0, n)
	for i := range rules {
		if rules[i].Extended() {
			extd = append(extd, &rules[i])
		} else {
			lit = append(lit, rules[i])
		}
	}
	slices.SortStableFunc(extd, extendedOrder)
	return lit, extd
}

// extendedOrder orders extended rules as the files list them: exact rules
// first, by host and source bytes; then the others by priority, the
// host-scoped before the host-less, the longer source, the older rule, the
// lower ID (engine.Better), the source. It is a file order, stable from
// deploy to deploy; which rule answers a path is the lookup API's
// precedence (docs/contract.md#precedence), which a format that answers
// extended rules computes itself.
func extendedOrder(a, b *redirects.Rule) int {
	if (a.MatchType == redirects.Exact) != (b.MatchType == redirects.Exact) {
		if a.MatchType == redirects.Exact {
			return -1
		}
		return 1
	}
	if a.MatchType == redirects.Exact {
		if c := strings.Compare(a.Host, b.Host); c != 0 {
			return c
		}
		return strings.Compare(a.Source, b.Source)
	}
	if a.Priority != b.Priority {
		return cmp.Compare(a.Priority, b.Priority)
	}
	if (a.Host == "") != (b.Host == "") {
		if a.Host != "" {
			return -1
		}
		return 1
	}
	switch {
	case engine.Better(a, b):
		return -1
	case engine.Better(b, a):
		return 1
	}
	return strings.Compare(a.Host, b.Host)
}
