package export

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
	"sync"

	"redirects"
)

// rec is one line's worth of a rule: its source, destination and status,
// with the strings copied, in file order, into one arena. At a million
// rules the renderers make some ten passes over the rules; reading records
// and text laid out in the order they are written, instead of chasing each
// rule's scattered strings every time, is most of what keeps rendering fast.
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
	// all is every rule in the canonical order of redirects.SortRules:
	// exact rules by source bytes, then starts_with rules by precedence.
	all []rec
	// exact is all's exact rules less repeated sources: the server formats
	// cannot hold a source twice (nginx refuses the file), so the first rule
	// in the input keeps it, as in redirects.Compile.
	exact []rec
	// prefix is all's starts_with rules, in precedence order, less repeated
	// sources (the better rule keeps it, as in redirects.Compile).
	prefix []rec
	// winners has one record per distinct starts_with source, sorted by
	// source bytes, with the answer of its closure winner (see
	// redirects.PrefixWinners): the source's own string with the winner's
	// destination and status.
	winners []rec
	// dupExact and dupPrefix are the sources dropped as repeats.
	dupExact, dupPrefix []string

	caseOnce sync.Once
	caseInfo *caseInfo
}

// sortRules computes the orders of sorted. The order of all is the one of
// redirects.SortRules, with ties (which only identical rules have) broken by
// input position, so the output depends neither on accidents of the input
// order nor on the sort algorithm. Input in that order already is not
// sorted again.
func sortRules(rules []redirects.Rule) *sorted {
	var exact, prefix []int32
	for i := range rules {
		if rules[i].MatchType == redirects.StartsWith {
			prefix = append(prefix, int32(i))
		} else {
			exact = append(exact, int32(i))
		}
	}
	// A deploy hands over rules in the order of redirects.SortRules, which
	// the two index lists then have already: checking costs one pass, a
	// second sort several.
	inOrder := slices.IsSortedFunc(rules, func(a, b redirects.Rule) int { return redirects.CompareRules(&a, &b) })
	var winners []redirects.PrefixWinner
	var wg sync.WaitGroup
	if !inOrder {
		wg.Go(func() { sortBySource(exact, rules) })
	}
	wg.Go(func() {
		if !inOrder {
			sortByPrecedence(prefix, rules)
		}
		winners = dedupWinners(redirects.PrefixWinners(rules))
	})
	wg.Wait()

	size := 0
	for i := range rules {
		size += len(rules[i].Source) + len(rules[i].Destination)
	}
	for _, w := range winners {
		size += len(w.Source) + len(w.Rule.Destination)
	}
	var a arena
	a.b.Grow(size)
	s := &sorted{all: make([]rec, 0, len(rules)), winners: make([]rec, len(winners))}
	for _, i := range exact {
		s.all = append(s.all, a.rec(&rules[i]))
	}
	for _, i := range prefix {
		s.all = append(s.all, a.rec(&rules[i]))
	}
	for i, w := range winners {
		s.winners[i] = rec{src: a.add(w.Source), dst: a.add(w.Rule.Destination), code: int32(w.Rule.StatusCode), mt: redirects.StartsWith, rule: w.Rule}
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
func dedupWinners(w []redirects.PrefixWinner) []redirects.PrefixWinner {
	out := w[:0]
	for i := range w {
		if i+1 < len(w) && w[i+1].Source == w[i].Source {
			continue
		}
		out = append(out, w[i])
	}
	return out
}

// arena copies strings into one buffer, in the order the files use them.
// A strings.Builder only ever appends, so every string it has returned stays
// valid and unchanged; the arena hands out substrings of them.
type arena struct{ b strings.Builder }

func (a *arena) add(s string) string {
	start := a.b.Len()
	a.b.WriteString(s)
	return a.b.String()[start:]
}

func (a *arena) rec(r *redirects.Rule) rec {
	return rec{src: a.add(r.Source), dst: a.add(r.Destination), code: int32(r.StatusCode), mt: r.MatchType, rule: r}
}

// sortBySource sorts the indexes idx of rules by source bytes, then by index.
// It is a most-significant-digit radix sort on 8-byte digits: each pass
// sorts machine words and reads each source once, where a comparison sort
// reads two sources per compare, some twenty compares per rule at a million
// rules, and sources sharing long leading parts (/shop/catalog/product/...)
// make every compare long.
func sortBySource(idx []int32, rules []redirects.Rule) {
	keys := make([]digitKey, len(idx))
	for j, i := range idx {
		keys[j].i = i
	}
	sortDigits(keys, rules, 0)
	for j := range keys {
		idx[j] = keys[j].i
	}
}

type digitKey struct {
	d0, d1 uint64
	i      int32
}

// sortDigits sorts keys by the source bytes from off on, 16 at a time.
// Sources hold no NUL byte (validation forbids control characters), so
// padding a short digit with zeros sorts a source before its extensions, as
// bytes order does.
func sortDigits(keys []digitKey, rules []redirects.Rule, off int) {
	longer := false
	for j := range keys {
		src := rules[keys[j].i].Source
		keys[j].d0, keys[j].d1 = digit(src, off), digit(src, off+8)
		longer = longer || len(src) > off+16
	}
	slices.SortFunc(keys, func(a, b digitKey) int {
		if a.d0 != b.d0 {
			return cmp.Compare(a.d0, b.d0)
		}
		if a.d1 != b.d1 {
			return cmp.Compare(a.d1, b.d1)
		}
		return cmp.Compare(a.i, b.i)
	})
	if !longer {
		return // equal digits mean equal sources, already in index order
	}
	for lo := 0; lo < len(keys); {
		hi := lo + 1
		for hi < len(keys) && keys[hi].d0 == keys[lo].d0 && keys[hi].d1 == keys[lo].d1 {
			hi++
		}
		if hi-lo > 1 {
			sortDigits(keys[lo:hi], rules, off+16)
		}
		lo = hi
	}
}

func digit(s string, off int) uint64 {
	if off+8 <= len(s) {
		return binary.BigEndian.Uint64([]byte(s[off : off+8]))
	}
	var b [8]byte
	if off < len(s) {
		copy(b[:], s[off:])
	}
	return binary.BigEndian.Uint64(b[:])
}

// precedenceKey holds what redirects.Better compares, as integers.
type precedenceKey struct {
	priority, negLen int
	sec              int64
	nsec             int
	id               int64
	i                int32
}

// sortByPrecedence sorts the indexes idx of starts_with rules by
// redirects.Better, then by index. Better's fields are copied into keys
// first, so the sort compares integers next to each other in memory rather
// than rules scattered across it; only rules equal in all of them (which
// have equal IDs, so never in a deployment) are compared with Better itself.
func sortByPrecedence(idx []int32, rules []redirects.Rule) {
	keys := make([]precedenceKey, len(idx))
	for j, i := range idx {
		r := &rules[i]
		keys[j] = precedenceKey{r.Priority, -len(r.Source), r.CreatedAt.Unix(), r.CreatedAt.Nanosecond(), r.ID, i}
	}
	slices.SortFunc(keys, func(a, b precedenceKey) int {
		if c := cmp.Or(cmp.Compare(a.priority, b.priority), cmp.Compare(a.negLen, b.negLen),
			cmp.Compare(a.sec, b.sec), cmp.Compare(a.nsec, b.nsec), cmp.Compare(a.id, b.id)); c != 0 {
			return c
		}
		ra, rb := &rules[a.i], &rules[b.i]
		switch {
		case redirects.Better(ra, rb):
			return -1
		case redirects.Better(rb, ra):
			return 1
		}
		return cmp.Compare(a.i, b.i)
	})
	for j := range keys {
		idx[j] = keys[j].i
	}
}
