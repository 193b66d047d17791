// Package safety checks a project's rules before and after they go live:
// lint findings (loops, chains, shadowed and redundant rules), the diff of two
// versions and its impact, the explanation of one lookup, expected-outcome
// test cases, and the comparison of a live web server with the API. The CLI,
// the management API and the dashboard all call it, so the three never
// disagree.
//
// Every answer here is the lookup's answer of docs/contract.md (section
// Matching): an exact rule whose source equals the path wins; otherwise the
// best starts_with rule by redirects.Better among those whose source is a
// prefix of the path. The package keeps an index of its own that answers with
// the rule itself (engine.Snapshot answers with a destination only), and
// its tests hold that index to engine.Compile.
package safety

import (
	"cmp"
	"slices"
	"strings"

	"redirects"
)

// index answers lookups over a rule set with the index of the answering rule
// in the set, so findings can name rules. The exact side is a map; the
// prefix side a sorted array of the distinct starts_with sources, each with
// its closure winner (the rule a lookup of that very path picks, as in
// redirects.PrefixWinners) and its parent (the longest other source that
// prefixes it).
type index struct {
	rules []redirects.Rule
	exact map[string]int32
	// psrc holds the distinct starts_with sources in byte order; pown the
	// best rule of each source itself, pwin the closure winner and pparent
	// the index in psrc of the parent source, or -1.
	psrc    []string
	pown    []int32
	pwin    []int32
	pparent []int32
	// ppos is, for every rule, the index in psrc of its source if it is a
	// starts_with rule, else -1.
	ppos []int32
}

// newIndex builds the index of rules. rules is retained, not modified.
func newIndex(rules []redirects.Rule) *index {
	x := &index{rules: rules}
	var prefix []int32
	nExact := 0
	for i := range rules {
		if rules[i].MatchType == redirects.StartsWith {
			prefix = append(prefix, int32(i))
		} else {
			nExact++
		}
	}
	x.exact = make(map[string]int32, nExact)
	for i := range rules {
		if rules[i].MatchType != redirects.StartsWith {
			// The first exact rule of a source answers, as in Compile.
			if _, dup := x.exact[rules[i].Source]; !dup {
				x.exact[rules[i].Source] = int32(i)
			}
		}
	}
	slices.SortFunc(prefix, func(a, b int32) int {
		ra, rb := &rules[a], &rules[b]
		if c := strings.Compare(ra.Source, rb.Source); c != 0 {
			return c
		}
		if redirects.Better(ra, rb) {
			return -1
		}
		if redirects.Better(rb, ra) {
			return 1
		}
		return cmp.Compare(a, b)
	})
	x.psrc = make([]string, 0, len(prefix))
	x.pown = make([]int32, 0, len(prefix))
	x.ppos = make([]int32, len(rules))
	for i := range x.ppos {
		x.ppos[i] = -1
	}
	for _, i := range prefix {
		if n := len(x.psrc); n > 0 && x.psrc[n-1] == rules[i].Source {
			x.ppos[i] = int32(n - 1) // a duplicate source: the better rule came first
			continue
		}
		x.ppos[i] = int32(len(x.psrc))
		x.psrc = append(x.psrc, rules[i].Source)
		x.pown = append(x.pown, i)
	}
	x.pwin = make([]int32, len(x.psrc))
	x.pparent = make([]int32, len(x.psrc))
	// stack holds the sources that prefix the current one, shortest first:
	// in byte order every source's ancestors precede it.
	stack := make([]int32, 0, 16)
	for j, s := range x.psrc {
		for len(stack) > 0 && !strings.HasPrefix(s, x.psrc[stack[len(stack)-1]]) {
			stack = stack[:len(stack)-1]
		}
		best := x.pown[j]
		x.pparent[j] = -1
		if len(stack) > 0 {
			p := stack[len(stack)-1]
			x.pparent[j] = p
			if w := x.pwin[p]; redirects.Better(&rules[w], &rules[best]) {
				best = w
			}
		}
		x.pwin[j] = best
		stack = append(stack, int32(j))
	}
	return x
}

// matchPath returns path cut at its first '?' or '#', the part a lookup
// matches.
func matchPath(path string) string {
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		return path[:i]
	}
	return path
}

// lookup returns the index of the rule that answers path, or -1.
func (x *index) lookup(path string) int32 {
	path = matchPath(path)
	if i, ok := x.exact[path]; ok {
		return i
	}
	return x.lookupPrefix(path)
}

// lookupPrefix returns the index of the starts_with rule that answers path
// when exact rules are left out, or -1.
func (x *index) lookupPrefix(path string) int32 {
	if j := x.longestPrefix(path); j >= 0 {
		return x.pwin[j]
	}
	return -1
}

// longestPrefix returns the index in psrc of the longest source that
// prefixes path, or -1. Every source that prefixes path sorts at or before
// it, and so does every string between such a source and path, which
// therefore starts with that source: so the longest one is the last source
// not after path or one of its ancestors.
func (x *index) longestPrefix(path string) int32 {
	j := int32(sortSearch(len(x.psrc), func(i int) bool { return x.psrc[i] > path })) - 1
	for j >= 0 && !strings.HasPrefix(path, x.psrc[j]) {
		j = x.pparent[j]
	}
	return j
}

// sortSearch is sort.Search without the closure's interface overhead
// mattering; it returns the smallest i in [0, n) with f(i), or n.
func sortSearch(n int, f func(int) bool) int {
	lo, hi := 0, n
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if !f(h) {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}

// ownHosts is the set of hosts whose absolute destinations lead back into
// the project, lower-cased.
type ownHosts map[string]bool

func newOwnHosts(hosts []string) ownHosts {
	h := make(ownHosts, len(hosts))
	for _, s := range hosts {
		h[strings.ToLower(strings.TrimSpace(s))] = true
	}
	return h
}

// follow returns the path a client requests next when answered with dest,
// in the form matching compares (redirects.DecodePath: the query and
// fragment cut off, then percent-decoded once, as the edge does with the
// request's path): a relative destination's path, or an absolute one's
// when its host is one of the project's own (compared without case, with
// or without the port). ok is false for a destination that leaves the
// project, or whose path no rule can match (a malformed escape).
func (h ownHosts) follow(dest string) (path string, ok bool) {
	if strings.HasPrefix(dest, "/") {
		return requested(dest)
	}
	rest, found := cutSchemeFold(dest)
	if !found || len(h) == 0 {
		return "", false
	}
	end := strings.IndexAny(rest, "/?#")
	host, path := rest, "/"
	if end >= 0 {
		host = rest[:end]
		if rest[end] == '/' {
			path = rest[end:]
		}
	}
	host = strings.ToLower(host)
	if !h[host] {
		name, _, hasPort := strings.Cut(host, ":")
		if !hasPort || !h[name] {
			return "", false
		}
	}
	return requested(path)
}

// requested returns a requested path in the form matching compares, and
// false when no rule can match it.
func requested(path string) (string, bool) {
	p, err := redirects.DecodePath(path)
	return p, err == nil
}

// cutSchemeFold returns dest without its http:// or https:// scheme, matched
// without case.
func cutSchemeFold(dest string) (string, bool) {
	for _, scheme := range []string{"http://", "https://"} {
		if len(dest) >= len(scheme) && strings.EqualFold(dest[:len(scheme)], scheme) {
			return dest[len(scheme):], true
		}
	}
	return "", false
}
