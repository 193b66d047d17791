package engine

import (
	"cmp"
	"slices"
	"strings"

	"redirects"
)

// Rule precedence lives here, in one place: the order of a deployment's
// rules (CompareRules, which SortOrder and SortRules apply), which of two
// starts_with rules wins a path (Better), and the winner of each prefix
// source (PrefixWinners), which the snapshot's prefix index and the
// longest-prefix export formats carry. The lookup, the exports and the
// safety checks all answer by it (docs/contract.md#matching).

// CompareRules orders rules in the canonical order of a deployment: exact
// rules (and pattern and regex rules) by source bytes, then starts_with
// rules in precedence order (see Better). Rules of one source (of another
// match type or host) go by match type, host and ID, so that the order
// does not depend on the order the rules came in. Only identical rules
// compare equal.
func CompareRules(a, b *redirects.Rule) int {
	if sa, sb := a.MatchType == redirects.StartsWith, b.MatchType == redirects.StartsWith; sa != sb {
		if sb {
			return -1
		}
		return 1
	}
	if a.MatchType != redirects.StartsWith {
		return cmp.Or(strings.Compare(a.Source, b.Source), sameSource(a, b))
	}
	switch {
	case Better(a, b):
		return -1
	case Better(b, a):
		return 1
	}
	return 0
}

// sameSource orders two rules of one source of the exact group: by match
// type, host and ID.
func sameSource(a, b *redirects.Rule) int {
	return cmp.Or(cmp.Compare(a.MatchType, b.MatchType), strings.Compare(a.Host, b.Host), cmp.Compare(a.ID, b.ID))
}

// Better reports whether starts_with rule a takes precedence over b when
// both match a path: the lower priority number wins, ties go to the longer
// source, then to the older rule.
func Better(a, b *redirects.Rule) bool {
	if a.Priority != b.Priority {
		return a.Priority < b.Priority
	}
	if len(a.Source) != len(b.Source) {
		return len(a.Source) > len(b.Source)
	}
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt)
	}
	if a.ID != b.ID {
		return a.ID < b.ID
	}
	return a.Source < b.Source
}

// PrefixWinner pairs a starts_with source with the rule that a lookup of a
// path equal to that source picks.
type PrefixWinner struct {
	Source string
	Rule   *redirects.Rule
}

// PrefixWinners returns, for every starts_with rule in rules, sorted by
// source bytes, the rule the lookup picks for a path equal to its source:
// the best (see Better) among the starts_with rules whose source is a prefix
// of it. A longest-prefix matcher (nginx "location ^~", HAProxy map_beg, the
// engine's prefix index) that answers a path with the winner of the longest
// source that prefixes it gives exactly the lookup's answer, because the
// sources that prefix a path are all prefixes of the longest one.
func PrefixWinners(rules []redirects.Rule) []PrefixWinner {
	var prefix []*redirects.Rule
	for i := range rules {
		if rules[i].MatchType == redirects.StartsWith {
			prefix = append(prefix, &rules[i])
		}
	}
	// A pdqsort on pointers, which swaps 8 bytes instead of a Rule.
	slices.SortFunc(prefix, func(a, b *redirects.Rule) int { return strings.Compare(a.Source, b.Source) })
	out := make([]PrefixWinner, len(prefix))
	// stack holds indexes into out of the sources that prefix the current one,
	// shortest first. In sorted order, every source's ancestors precede it.
	stack := make([]int, 0, 16)
	for i, r := range prefix {
		for len(stack) > 0 && !strings.HasPrefix(r.Source, out[stack[len(stack)-1]].Source) {
			stack = stack[:len(stack)-1]
		}
		best := r
		if len(stack) > 0 {
			if w := out[stack[len(stack)-1]].Rule; Better(w, best) {
				best = w
			}
		}
		out[i] = PrefixWinner{Source: r.Source, Rule: best}
		stack = append(stack, i)
	}
	return out
}
