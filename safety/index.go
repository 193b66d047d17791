// Package safety checks a project's rules before and after they go live:
// lint findings (loops, chains, shadowed and redundant rules), the diff of two
// versions and its impact, the explanation of one lookup, expected-outcome
// test cases, and the comparison of a live web server with the API. The CLI,
// the management API and the dashboard all call it, so the three never
// disagree.
//
// Every answer here is the lookup's answer of docs/contract.md (sections
// Matching and Rule options), under the project's settings: an exact rule
// whose source has the path's key wins; otherwise the best starts_with rule
// by engine.Better among those whose source matches the path; the answer
// is the rule's computed destination (redirects.Target). The package keeps
// an index of its own that answers with the rule itself (engine.Snapshot
// answers with a destination only), and its tests hold that index to
// engine.Compile and to the brute-force model internal/rulemodel.
package safety

import (
	"cmp"
	"slices"
	"strings"

	"redirects"
	"redirects/engine"
	"redirects/engine/pattern"
)

// index answers lookups over a rule set with the index of the answering rule
// in the set, so findings can name rules. The exact side is a map by the
// settings' key (redirects.Settings.Key); the prefix side a sorted array of
// the distinct starts_with sources as the settings compare them (case
// folded), each with its closure winner (the rule a lookup of that very path
// picks, as in engine.PrefixWinners) and its parent (the longest other
// source that prefixes it).
type index struct {
	rules []redirects.Rule
	set   redirects.Settings
	exact map[string]int32
	// psrc holds the distinct starts_with sources, case folded when the
	// settings ignore case, in byte order; pown the
	// best rule of each source itself, pwin the closure winner and pparent
	// the index in psrc of the parent source, or -1.
	psrc    []string
	pown    []int32
	pwin    []int32
	pparent []int32
	// ppos is, for every rule, the index in psrc of its source if it is a
	// starts_with rule, else -1.
	ppos []int32
	// ext holds the extended rules (patterns, regexes, hosts, query
	// conditions), which the fields above leave out; nil when there are
	// none.
	ext *extended
}

// newIndex builds the index of rules under settings s. rules is retained,
// not modified.
func newIndex(rules []redirects.Rule, s redirects.Settings) *index {
	x := &index{rules: rules, set: s}
	// folded holds the starts_with sources as compared; it is rules' own
	// sources, without a copy, unless the settings fold case.
	folded := func(i int32) string { return rules[i].Source }
	var fold []string
	if s.CaseInsensitive {
		fold = make([]string, len(rules))
		for i := range rules {
			if rules[i].MatchType == redirects.StartsWith {
				fold[i] = s.FoldCase(rules[i].Source)
			}
		}
		folded = func(i int32) string { return fold[i] }
	}
	x.ext = newExtended(x)
	literal := func(i int) bool { return x.ext == nil || !rules[i].Extended() }
	var prefix []int32
	nExact := 0
	for i := range rules {
		if !literal(i) {
			continue
		}
		if rules[i].MatchType == redirects.StartsWith {
			prefix = append(prefix, int32(i))
		} else {
			nExact++
		}
	}
	x.exact = make(map[string]int32, nExact)
	for i := range rules {
		if literal(i) && rules[i].MatchType != redirects.StartsWith {
			// The first exact rule of a key answers, as in Compile.
			k := s.Key(rules[i].Source)
			if _, dup := x.exact[k]; !dup {
				x.exact[k] = int32(i)
			}
		}
	}
	slices.SortFunc(prefix, func(a, b int32) int {
		ra, rb := &rules[a], &rules[b]
		if c := strings.Compare(folded(a), folded(b)); c != 0 {
			return c
		}
		if engine.Better(ra, rb) {
			return -1
		}
		if engine.Better(rb, ra) {
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
		if n := len(x.psrc); n > 0 && x.psrc[n-1] == folded(i) {
			x.ppos[i] = int32(n - 1) // a duplicate source: the better rule came first
			continue
		}
		x.ppos[i] = int32(len(x.psrc))
		x.psrc = append(x.psrc, folded(i))
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
			if w := x.pwin[p]; engine.Better(&rules[w], &rules[best]) {
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

// lookup returns the index of the rule that answers the decoded path p, or
// -1, and how many bytes of p its source covers (what preservePath keeps
// after; see redirects.Settings.Matches).
func (x *index) lookup(p string) (int32, int) {
	if i, ok := x.exact[x.set.Key(p)]; ok {
		return i, len(p)
	}
	return x.lookupPrefix(p)
}

// lookupPrefix is lookup with the exact rules left out.
func (x *index) lookupPrefix(p string) (int32, int) {
	fp := x.set.FoldCase(p)
	j := x.longestPrefix(fp)
	if x.set.IgnoreTrailingSlash {
		// A source that is the path and a '/' matches it too; every source
		// that prefixes the path prefixes that one, so its closure winner
		// is the answer.
		if k := x.find(fp + "/"); k >= 0 {
			j = k
		}
	}
	if j < 0 {
		return -1, 0
	}
	w := x.pwin[j]
	return w, min(len(x.rules[w].Source), len(p))
}

// find returns the index in psrc of source s, or -1.
func (x *index) find(s string) int32 {
	j := sortSearch(len(x.psrc), func(i int) bool { return x.psrc[i] >= s })
	if j < len(x.psrc) && x.psrc[j] == s {
		return int32(j)
	}
	return -1
}

// answer returns the lookup API's answer to wire, a requested path as a
// client sends it (query and fragment included), on host ("" for none):
// the rule's computed destination (redirects.Target, with the captures
// inserted).
func (x *index) answer(host, wire string) Answer {
	i, dest := x.resolve(host, wire)
	if i < 0 {
		return Answer{}
	}
	r := &x.rules[i]
	return Answer{StatusCode: r.StatusCode, Destination: dest, RuleID: r.ID}
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
// the project, lower-cased: the hosts lint is given and the rules' own
// hosts ("*.example.com" for any subdomain of example.com).
type ownHosts map[string]bool

func newOwnHosts(hosts []string) ownHosts {
	h := make(ownHosts, len(hosts))
	for _, s := range hosts {
		h[strings.ToLower(strings.TrimSpace(s))] = true
	}
	return h
}

// ruleHostMark starts the entries of ownHosts that are rules' host keys,
// which a destination's host is compared with in its host key form (so
// that either IDN form, a port or a trailing dot matches).
const ruleHostMark = "\x00"

// withRules adds the host keys of x's rules: declared hosts and rule
// hosts alike are the project's own (docs/contract.md#hosts).
func (h ownHosts) withRules(x *index) ownHosts {
	if x.ext == nil {
		return h
	}
	for _, k := range x.ext.host {
		if k != "" {
			h[ruleHostMark] = true
			h[ruleHostMark+k] = true
		}
	}
	return h
}

// own reports whether host (lower-cased, maybe with a port) is one of h.
func (h ownHosts) own(host string) bool {
	if h[host] {
		return true
	}
	name, _, hasPort := strings.Cut(host, ":")
	if hasPort && h[name] {
		return true
	}
	for i := 1; i < len(name); i++ {
		if name[i] == '.' && h["*"+name[i:]] {
			return true
		}
	}
	if !h[ruleHostMark] {
		return false
	}
	k, ok := pattern.HostKey(host)
	if !ok {
		return false
	}
	if h[ruleHostMark+k] {
		return true
	}
	for i := 1; i < len(k); i++ {
		if k[i] == '.' && h[ruleHostMark+"*"+k[i:]] {
			return true
		}
	}
	return false
}

// follow returns the path a client requests next when answered with dest,
// in the form matching compares (redirects.DecodePath: the query and
// fragment cut off, then percent-decoded once, as the edge does with the
// request's path): a relative destination's path, or an absolute one's
// when its host is one of the project's own (compared without case, with
// or without the port). ok is false for a destination that leaves the
// project, or whose path no rule can match (a malformed escape).
func (h ownHosts) follow(dest string) (path string, ok bool) {
	wire, ok := h.followWire(dest)
	if !ok {
		return "", false
	}
	return requested(wire)
}

// followWire returns the request a client sends next when answered with
// dest, as it sends it (its path and query, without the fragment), or false
// as follow does.
func (h ownHosts) followWire(dest string) (wire string, ok bool) {
	_, wire, ok = h.followReq("", dest)
	return wire, ok
}

// followReq is followWire for a request on host: the next request's host
// is host for a relative destination, else the destination's (lower-cased,
// as written).
func (h ownHosts) followReq(host, dest string) (next, wire string, ok bool) {
	if f := strings.IndexByte(dest, '#'); f >= 0 {
		dest = dest[:f]
	}
	if strings.HasPrefix(dest, "/") {
		_, err := redirects.DecodePath(dest)
		return host, dest, err == nil
	}
	rest, found := cutSchemeFold(dest)
	if !found || len(h) == 0 {
		return "", "", false
	}
	end := strings.IndexAny(rest, "/?")
	next, path := rest, "/"
	if end >= 0 {
		next = rest[:end]
		path = rest[end:]
		if rest[end] == '?' {
			path = "/" + path
		}
	}
	next = strings.ToLower(next)
	if !h.own(next) {
		return "", "", false
	}
	_, err := redirects.DecodePath(path)
	return next, path, err == nil
}

// requested returns a requested path in the form matching compares, and
// false when no rule can match it.
func requested(path string) (string, bool) {
	p, err := redirects.DecodePath(path)
	return p, err == nil
}

// wireOf returns the decoded path p as browsers request it
// (redirects.RequestPath), without a copy when nothing needs escaping.
func wireOf(p string) string {
	for i := 0; i < len(p); i++ {
		if c := p[i]; c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}%", c) >= 0 {
			return redirects.RequestPath(p)
		}
	}
	return p
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
