package engine

import (
	"redirects"

	"cmp"
	"encoding/binary"
	"slices"
	"sync"
)

// SortOrder returns the positions of rules in the order of CompareRules,
// the exact rules' and the starts_with rules', with ties (which only
// identical rules have) broken by position. Input in that order already
// costs one pass. It is the one sort of a deployment: SortRules applies it
// and the export renderers read through it.
func SortOrder(rules []redirects.Rule) (exact, prefix []int32) {
	inOrder := true
	for i := range rules {
		if rules[i].MatchType == redirects.StartsWith {
			prefix = append(prefix, int32(i))
		} else {
			exact = append(exact, int32(i))
		}
		if i > 0 && inOrder {
			inOrder = CompareRules(&rules[i-1], &rules[i]) <= 0
		}
	}
	if inOrder {
		return exact, prefix
	}
	var wg sync.WaitGroup
	wg.Go(func() { sortBySource(exact, rules); sortSameSource(exact, rules) })
	sortByPrecedence(prefix, rules)
	wg.Wait()
	return exact, prefix
}

// SortRules puts rules in the order of SortOrder, moving each rule once.
func SortRules(rules []redirects.Rule) {
	exact, prefix := SortOrder(rules)
	pos := append(exact, prefix...) // pos[i] is the rule that goes to i
	// Follow each cycle of the permutation, marking visited places with -1.
	for i := range pos {
		if pos[i] < 0 || pos[i] == int32(i) {
			continue
		}
		first, j := rules[i], i
		for {
			k := int(pos[j])
			pos[j] = -1
			if k == i {
				rules[j] = first
				break
			}
			rules[j], j = rules[k], k
		}
	}
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

// sortSameSource orders each run of idx (sorted by source) whose rules
// share a source as CompareRules does: by match type, host and ID. Only a
// project with pattern, regex or host-scoped rules has such runs.
func sortSameSource(idx []int32, rules []redirects.Rule) {
	for lo := 0; lo < len(idx); {
		hi := lo + 1
		for hi < len(idx) && rules[idx[hi]].Source == rules[idx[lo]].Source {
			hi++
		}
		if hi-lo > 1 {
			slices.SortStableFunc(idx[lo:hi], func(a, b int32) int { return sameSource(&rules[a], &rules[b]) })
		}
		lo = hi
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

// precedenceKey holds what Better compares, as integers.
type precedenceKey struct {
	priority, negLen int
	sec              int64
	nsec             int
	id               int64
	i                int32
}

// sortByPrecedence sorts the indexes idx of starts_with rules by
// Better, then by index. Better's fields are copied into keys
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
		case Better(ra, rb):
			return -1
		case Better(rb, ra):
			return 1
		}
		return cmp.Compare(a.i, b.i)
	})
	for j := range keys {
		idx[j] = keys[j].i
	}
}
