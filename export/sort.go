package export

import (
	"slices"
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
}

// sortRules computes the orders of sorted. The order of all is the one of
// engine.SortOrder, with ties (which only identical rules have) broken by
// input position, so the output depends neither on accidents of the input
// order nor on the sort algorithm. Input in that order already, as a deploy
// hands it over, is not sorted again.
func sortRules(rules []redirects.Rule, set redirects.Settings) *sorted {
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
