package safety

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"redirects"
	"redirects/engine/pattern"
)

// Pattern rules (docs/contract.md#pattern-rules) in the safety checks. A
// project whose rules are all literal (exact and starts_with, no host, no
// query condition) is checked by the literal index alone, as before; the
// rules that use any of it ("extended", redirects.Rule.Extended) are
// compiled into a pattern.Set beside it, and a lookup asks both and keeps
// the answer the contract's precedence picks.

// extended is the index's part for extended rules.
type extended struct {
	// of maps the rules given to set to their index in index.rules.
	of  []int32
	set *pattern.Set
	// info is, per rule of index.rules, what pattern.Inspect says of it
	// (for every rule, literal ones too: lint compares them), and ok
	// whether the engine accepts it.
	info []pattern.Info
	ok   []bool
	// invalid are the findings of the rules the engine refuses.
	invalid []Finding
	// host is, per rule, its host key ("" for none).
	host    []string
	matches sync.Pool
}

// newExtended builds the extended part of x, or returns nil when no rule
// is extended.
func newExtended(x *index) *extended {
	rules := x.rules
	some := false
	for i := range rules {
		if rules[i].Extended() {
			some = true
			break
		}
	}
	if !some {
		return nil
	}
	e := &extended{info: make([]pattern.Info, len(rules)), ok: make([]bool, len(rules)), host: make([]string, len(rules))}
	e.matches.New = func() any { return new(pattern.Match) }
	st := x.set.PatternSettings()
	var prs []pattern.Rule
	for i := range rules {
		r := &rules[i]
		if !r.Extended() {
			src := r.Source
			e.info[i] = pattern.Info{Prefix: x.set.FoldCase(src)}
			if r.MatchType == redirects.StartsWith {
				e.info[i].Covers = src
			}
			e.ok[i] = true
			continue
		}
		info, err := pattern.Inspect(r.PatternRule(), st)
		if err != nil {
			msg := err.Error()
			var pe *pattern.Error
			if errors.As(err, &pe) {
				msg = fmt.Sprintf("%s: position %d: %s", pe.Field, pe.Pos+1, pe.Msg)
			}
			e.invalid = append(e.invalid, Finding{
				Severity: SeverityError, Kind: KindInvalid,
				Message: fmt.Sprintf("%s is refused by the rule engine and can never answer: %s", Ref(r), msg),
				Rules:   []RuleRef{Ref(r)},
				Path:    []string{},
			})
			continue
		}
		info.Prefix = x.set.FoldCase(info.Prefix)
		e.info[i], e.ok[i] = info, true
		if r.Host != "" {
			e.host[i], _ = pattern.HostKey(r.Host)
		}
		e.of = append(e.of, int32(i))
		prs = append(prs, r.PatternRule())
	}
	set, err := pattern.Compile(prs, st)
	if err != nil {
		// Each rule compiled on its own; together they can only fail on
		// the number of regex rules.
		var re *pattern.RuleError
		if errors.As(err, &re) {
			r := &rules[e.of[re.Index]]
			e.invalid = append(e.invalid, Finding{
				Severity: SeverityError, Kind: KindInvalid,
				Message: fmt.Sprintf("%s is refused by the rule engine: %v", Ref(r), re.Err),
				Rules:   []RuleRef{Ref(r)},
				Path:    []string{},
			})
		}
		set, _ = pattern.Compile(nil, st)
		e.of = nil
	}
	e.set = set
	return e
}

// rank is a rule's place in the contract's order among the non-exact
// rules (docs/contract.md#precedence): by priority, host-scoped before
// host-less, the longer literal prefix, with conditions before without,
// the older, the lower ID. It returns a negative number when a precedes b.
func (x *index) rank(a, b int32) int {
	ra, rb := &x.rules[a], &x.rules[b]
	if c := cmp.Compare(ra.Priority, rb.Priority); c != 0 {
		return c
	}
	e := x.ext
	if c := cmp.Compare(hostRank(e.host[a]), hostRank(e.host[b])); c != 0 {
		return c
	}
	if c := cmp.Compare(len(e.info[b].Prefix), len(e.info[a].Prefix)); c != 0 {
		return c
	}
	if e.info[a].Conditions != e.info[b].Conditions {
		if e.info[a].Conditions {
			return -1
		}
		return 1
	}
	if c := ra.CreatedAt.Compare(rb.CreatedAt); c != 0 {
		return c
	}
	return cmp.Compare(ra.ID, rb.ID)
}

// hostRank orders host keys as the contract does: an exact host, then
// wildcards (the longer first), then none.
func hostRank(h string) int {
	switch {
	case h == "":
		return 1 << 20
	case h[0] == '*':
		return 1<<10 - len(h)
	}
	return 0
}

// resolveExt looks wire up on host among the extended rules: the rule
// answering (-1 for none), whether it is an exact rule, and its computed
// destination.
func (x *index) resolveExt(host, wire, p string) (int32, bool, string) {
	e := x.ext
	m := e.matches.Get().(*pattern.Match)
	defer e.matches.Put(m)
	if !e.set.Lookup(host, wire, m) {
		return -1, false, ""
	}
	i := e.of[m.Rule()]
	return i, m.Kind() == pattern.Exact, x.extTarget(i, wire, p, string(m.AppendDestination(nil)))
}

// extTarget applies rule i's options to its expanded destination dest
// (docs/contract.md#captures-in-destinations: the options apply to it as
// to any destination).
func (x *index) extTarget(i int32, wire, p, dest string) string {
	r := x.rules[i]
	r.Destination = dest
	matched := len(p)
	if r.MatchType == redirects.StartsWith {
		r.Source, _, _ = strings.Cut(r.Source, "?")
		matched, _ = x.set.Matches(&r, p)
	}
	return redirects.Target(&r, wire, matched)
}

// resolve returns the rule answering a request for wire (as a client sends
// it, query included) on host ("" for none: host-less rules only), or -1,
// and its computed destination.
func (x *index) resolve(host, wire string) (int32, string) {
	p, err := redirects.DecodePath(wire)
	if err != nil {
		return -1, ""
	}
	if x.ext == nil {
		i, m := x.lookup(p)
		if i < 0 {
			return -1, ""
		}
		return i, redirects.Target(&x.rules[i], wire, m)
	}
	ei, exact, edest := x.resolveExt(host, wire, p)
	if ei >= 0 && exact {
		// An exact rule with a host or conditions comes before one without.
		return ei, edest
	}
	if i, ok := x.exact[x.set.Key(p)]; ok {
		return i, redirects.Target(&x.rules[i], wire, len(p))
	}
	w, m := x.lookupPrefix(p)
	if ei >= 0 && (w < 0 || x.rank(ei, w) < 0) {
		return ei, edest
	}
	if w < 0 {
		return -1, ""
	}
	return w, redirects.Target(&x.rules[w], wire, m)
}

// sample returns the request lint follows extended rule i from: a request
// its source matches, on its host (a wildcard's "www" subdomain). ok is
// false when no sample was found.
func (x *index) sample(i int32) (host, wire string, ok bool) {
	e := x.ext
	info := &e.info[i]
	if info.SamplePath == "" {
		return "", "", false
	}
	r := &x.rules[i]
	path := info.SamplePath
	if r.PreservePath && r.MatchType == redirects.StartsWith {
		path = SamplePath(path)
	}
	wire = pattern.EscapePath(path)
	if info.SampleQuery != "" {
		wire += "?" + info.SampleQuery
	}
	switch h := e.host[i]; {
	case h == "":
	case h[0] == '*':
		host = "www" + h[1:]
	default:
		host = h
	}
	return host, wire, true
}

// ownAnswer returns what extended rule i answers the request (host, wire),
// which its source matches: its own expansion, whichever rule the lookup
// would pick.
func (x *index) ownAnswer(i int32, host, wire string) (string, bool) {
	r := &x.rules[i]
	if r.StatusCode == redirects.StatusGone {
		return "", true
	}
	set, err := pattern.Compile([]pattern.Rule{r.PatternRule()}, x.set.PatternSettings())
	if err != nil {
		return "", false
	}
	var m pattern.Match
	if !set.Lookup(host, wire, &m) {
		return "", false
	}
	p, _ := redirects.DecodePath(wire)
	return x.extTarget(i, wire, p, string(m.AppendDestination(nil))), true
}

// coverIndex holds the extended rules that match every path below a text
// (pattern.Info.Covers, case folded as the settings compare): the distinct
// texts in byte order, the rules of each, and each text's parent (the
// longest other text that prefixes it), as the literal index holds the
// starts_with sources.
type coverIndex struct {
	text []string
	// anyHost holds each text's host-less rules, byHost its host-scoped
	// ones by host key (nil when it has none): a rule is only compared
	// with those that can answer its host.
	anyHost [][]int32
	byHost  []map[string][]int32
	parent  []int32
}

func newCoverIndex(x *index) *coverIndex {
	c := &coverIndex{}
	byText := map[string][]int32{}
	for _, i := range x.ext.of {
		info := &x.ext.info[i]
		if info.Covers == "" || x.rules[i].MatchType == redirects.Exact {
			continue
		}
		k := x.set.FoldCase(info.Covers)
		byText[k] = append(byText[k], i)
	}
	for k := range byText {
		c.text = append(c.text, k)
	}
	slices.Sort(c.text)
	stack := make([]int32, 0, 16)
	for j, s := range c.text {
		var any []int32
		var hosted map[string][]int32
		for _, w := range byText[s] {
			if h := x.ext.host[w]; h == "" {
				any = append(any, w)
			} else {
				if hosted == nil {
					hosted = map[string][]int32{}
				}
				hosted[h] = append(hosted[h], w)
			}
		}
		c.anyHost = append(c.anyHost, any)
		c.byHost = append(c.byHost, hosted)
		for len(stack) > 0 && !strings.HasPrefix(s, c.text[stack[len(stack)-1]]) {
			stack = stack[:len(stack)-1]
		}
		p := int32(-1)
		if len(stack) > 0 {
			p = stack[len(stack)-1]
		}
		c.parent = append(c.parent, p)
		stack = append(stack, int32(j))
	}
	return c
}

// covering calls fn with each rule whose text prefixes p and that has no
// host or host key host.
func (c *coverIndex) covering(p, host string, fn func(int32)) {
	j := int32(sortSearch(len(c.text), func(i int) bool { return c.text[i] > p })) - 1
	for j >= 0 && !strings.HasPrefix(p, c.text[j]) {
		j = c.parent[j]
	}
	for ; j >= 0; j = c.parent[j] {
		for _, w := range c.anyHost[j] {
			fn(w)
		}
		if host != "" && c.byHost[j] != nil {
			for _, w := range c.byHost[j][host] {
				fn(w)
			}
		}
	}
}

// lintCovered finds the non-exact rules that can never answer because an
// earlier rule (in the contract's order) matches every path they match:
// a rule W whose paths are all those below a text T (a starts_with rule
// without conditions, a pattern "T*") covers a rule R when R's literal
// prefix starts with T, W answers every host R does (W has no host, or
// R's), and W comes first. Every path R matches starts with its literal
// prefix (or is it less a final '/', which W matches too under
// trailingSlash ignore), so W answers it: the warning holds for sure.
// Pairs of literal rules are lintPrefixes' to report.
func lintCovered(x *index) []Finding {
	if x.ext == nil {
		return nil
	}
	e := x.ext
	cov := newCoverIndex(x)
	var out []Finding
	for i := range x.rules {
		r := &x.rules[i]
		if r.MatchType == redirects.Exact || !e.ok[i] {
			continue
		}
		p := e.info[i].Prefix
		best := int32(-1)
		consider := func(w int32) {
			if w == int32(i) || !e.ok[w] || e.info[w].Conditions {
				return
			}
			if hw := e.host[w]; hw != "" && hw != e.host[i] {
				return
			}
			if x.rank(w, int32(i)) < 0 && (best < 0 || x.rank(w, best) < 0) {
				best = w
			}
		}
		if len(cov.text) > 0 {
			cov.covering(p, e.host[i], consider)
		}
		if r.Extended() {
			if j := x.longestPrefix(p); j >= 0 {
				consider(x.pwin[j])
			}
		}
		if best < 0 {
			continue
		}
		wr := Ref(&x.rules[best])
		path := e.info[i].SamplePath
		if path == "" {
			path = r.Source
		}
		out = append(out, Finding{
			Severity: SeverityWarning, Kind: KindShadowed,
			Message: fmt.Sprintf("%s never answers: %s matches every path it matches and takes precedence (%s)",
				Ref(r), wr, x.why(best, int32(i))),
			Rules: []RuleRef{Ref(r), wr},
			Path:  []string{path},
		})
	}
	return out
}

// why says why rule w comes before rule l in the contract's order.
func (x *index) why(w, l int32) string {
	rw, rl := &x.rules[w], &x.rules[l]
	e := x.ext
	switch {
	case rw.Priority != rl.Priority:
		return fmt.Sprintf("priority %d beats %d", rw.Priority, rl.Priority)
	case hostRank(e.host[w]) != hostRank(e.host[l]):
		return fmt.Sprintf("same priority %d, a host-scoped rule first", rw.Priority)
	case len(e.info[w].Prefix) != len(e.info[l].Prefix):
		return fmt.Sprintf("same priority %d, longer literal prefix", rw.Priority)
	}
	return fmt.Sprintf("same priority %d and literal prefix length, older rule", rw.Priority)
}
