package safety

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
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
			if !exceptCovers(&x.rules[w], r) {
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

// exceptCovers reports whether rule w, for its exceptHosts, still answers
// every host rule r answers (docs/contract.md#hosts): w has none; or r's
// host is a name w does not except; or r has no host and excepts every
// host w excepts. A wildcard r under a w with exceptHosts is not covered
// (an entry may name one of its subdomains): a warning must hold for sure.
func exceptCovers(w, r *redirects.Rule) bool {
	if len(w.ExceptHosts) == 0 {
		return true
	}
	switch h := r.Host; {
	case h == "":
		for _, e := range w.ExceptHosts {
			if !slices.Contains(r.ExceptHosts, e) {
				return false
			}
		}
		return true
	case h[0] == '*':
		return false
	default:
		for _, e := range w.ExceptHosts {
			if e == h || e[0] == '*' && strings.HasSuffix(h, e[1:]) {
				return false
			}
		}
		return true
	}
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

// lintDuplicates finds the rules that can never answer because another
// rule of the same match type and host key matches exactly the same
// requests and comes first in the contract's order: their sources are the
// same up to placeholder and capture names, the case folding of the
// settings, escapes in literal text, and the order, escapes and repeats
// of their query conditions (sameKey). Rules already reported by skip
// are left out. Exact and starts_with rules without a host or conditions
// are the literal index's (lintPrefixes).
func lintDuplicates(x *index, skip map[int64]bool) []Finding {
	if x.ext == nil {
		return nil
	}
	e := x.ext
	groups := map[string][]int32{}
	for i := range x.rules {
		r := &x.rules[i]
		if !e.ok[i] || !r.Extended() || skip[r.ID] {
			continue
		}
		k, ok := sameKey(x.set, r)
		if !ok {
			continue
		}
		k = r.MatchType.String() + "\x00" + e.host[i] + "\x00" + k
		groups[k] = append(groups[k], int32(i))
	}
	var out []Finding
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		first := g[0]
		for _, c := range g[1:] {
			if x.before(c, first) {
				first = c
			}
		}
		wr := Ref(&x.rules[first])
		for _, c := range g {
			if c == first || !exceptCovers(&x.rules[first], &x.rules[c]) {
				continue
			}
			r := &x.rules[c]
			path := e.info[c].SamplePath
			if path == "" {
				path = r.Source
			}
			out = append(out, Finding{
				Severity: SeverityWarning, Kind: KindShadowed,
				Message: fmt.Sprintf("%s never answers: %s matches the same requests and takes precedence (%s)",
					Ref(r), wr, x.whyDuplicate(first, c)),
				Rules: []RuleRef{Ref(r), wr},
				Path:  []string{path},
			})
		}
	}
	return out
}

// before reports whether rule a comes before rule b in the contract's
// order, both of the same match type.
func (x *index) before(a, b int32) bool {
	if x.rules[a].MatchType != redirects.Exact {
		return x.rank(a, b) < 0
	}
	ra, rb := &x.rules[a], &x.rules[b]
	if c := ra.CreatedAt.Compare(rb.CreatedAt); c != 0 {
		return c < 0
	}
	return ra.ID < rb.ID
}

// whyDuplicate says why rule w comes before rule l, which matches the
// same requests.
func (x *index) whyDuplicate(w, l int32) string {
	rw, rl := &x.rules[w], &x.rules[l]
	if rw.MatchType != redirects.Exact && rw.Priority != rl.Priority {
		return fmt.Sprintf("priority %d beats %d", rw.Priority, rl.Priority)
	}
	if !rw.CreatedAt.Equal(rl.CreatedAt) {
		return "older rule"
	}
	return "lower ID"
}

// sameKey returns a text that two rules' sources (of one match type) share
// only when they match the same paths and queries under settings st: the
// path's literal text decoded and case folded as st says, placeholders
// numbered in order (a constraint kept as written, "*" read as ":splat*"),
// and the query conditions decoded, a capture read as a presence test,
// sorted and without repeats. ok is false for a source it does not read
// (a regex, whose expression it leaves to lintCovered, or a malformed
// one).
func sameKey(st redirects.Settings, r *redirects.Rule) (string, bool) {
	var b strings.Builder
	var q string
	switch r.MatchType {
	case redirects.Exact, redirects.StartsWith:
		path, cond, _ := strings.Cut(r.Source, "?")
		if r.MatchType == redirects.Exact {
			path = st.Key(path)
		} else {
			path = st.FoldCase(path)
		}
		b.WriteString(strconv.Quote(path))
		q = cond
	case redirects.Pattern:
		var ok bool
		if q, ok = patternKey(&b, st, r.Source); !ok {
			return "", false
		}
	default:
		return "", false
	}
	conds, ok := condKey(q)
	if !ok {
		return "", false
	}
	b.WriteString("?")
	b.WriteString(conds)
	return b.String(), true
}

// patternKey writes the key of a pattern source's path part to b and
// returns its query conditions.
func patternKey(b *strings.Builder, st redirects.Settings, src string) (string, bool) {
	var lit []byte
	flush := func() {
		if len(lit) > 0 {
			b.WriteString("L" + strconv.Quote(st.FoldCase(string(lit))))
			lit = lit[:0]
		}
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '?':
			flush()
			return src[i+1:], true
		case c == '%':
			if i+2 >= len(src) {
				return "", false
			}
			hi, ok1 := unhexByte(src[i+1])
			lo, ok2 := unhexByte(src[i+2])
			if !ok1 || !ok2 {
				return "", false
			}
			lit = append(lit, hi<<4|lo)
			i += 3
		case c == '*':
			flush()
			b.WriteString("P*;")
			i++
		case c == ':':
			flush()
			j := i + 1
			for j < len(src) && (isNameByte(src[j])) {
				j++
			}
			if j == i+1 {
				return "", false
			}
			i = j
			b.WriteString("P")
			if i < len(src) && src[i] == '(' {
				end, ok := pattern.ConstraintClose(src, i)
				if !ok {
					return "", false
				}
				b.WriteString(strconv.Quote(src[i : end+1]))
				i = end + 1
			}
			if i < len(src) {
				switch src[i] {
				case '*', '+':
					b.WriteByte(src[i])
					i++
				case '?':
					if i+1 == len(src) || src[i+1] == '/' || src[i+1] == '?' {
						b.WriteByte('?')
						i++
					}
				}
			}
			b.WriteByte(';')
		default:
			lit = append(lit, c)
			i++
		}
	}
	flush()
	return "", true
}

// condKey returns the query conditions q (as written in a source, without
// the '?') as a sorted set: each decoded once ('+' a space), a capture
// read as a presence test.
func condKey(q string) (string, bool) {
	if q == "" {
		return "", true
	}
	var set []string
	for _, part := range strings.Split(q, "&") {
		k, v, hasV := strings.Cut(part, "=")
		key, ok := decodeQueryText(k)
		if !ok {
			return "", false
		}
		switch {
		case !hasV || strings.HasPrefix(v, ":"):
			set = append(set, strconv.Quote(key))
		case v == "":
			set = append(set, strconv.Quote(key)+"=")
		default:
			val, ok := decodeQueryText(v)
			if !ok {
				return "", false
			}
			set = append(set, strconv.Quote(key)+"="+strconv.Quote(val))
		}
	}
	slices.Sort(set)
	return strings.Join(slices.Compact(set), "&"), true
}

// decodeQueryText decodes a query key or value once, '+' read as a space,
// as the engine reads a condition; ok is false for a malformed escape.
func decodeQueryText(s string) (string, bool) {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '+':
			b = append(b, ' ')
		case '%':
			if i+2 >= len(s) {
				return "", false
			}
			hi, ok1 := unhexByte(s[i+1])
			lo, ok2 := unhexByte(s[i+2])
			if !ok1 || !ok2 {
				return "", false
			}
			b = append(b, hi<<4|lo)
			i += 2
		default:
			b = append(b, s[i])
		}
	}
	return string(b), true
}

func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

func unhexByte(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
