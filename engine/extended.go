package engine

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"redirects"
	"redirects/engine/pattern"
)

// extended is what a snapshot adds when some of its rules are
// redirects.Rule.Extended (docs/contract.md#pattern-rules): those rules
// compiled into a pattern.Set, and what a lookup needs to merge the set's
// answer with the literal rules'. The literal rules (exact or starts_with,
// no host, no query conditions) stay in the snapshot's hash table and prefix
// index, so a million of them cost beside ten thousand patterns what they
// cost alone.
//
// The merge follows the contract's one order. Among exact rules of one key,
// every extended one (host-scoped, or with conditions) comes before the
// literal one, so the set is asked first when it holds exact rules; a
// literal exact hit then beats every other kind. Otherwise the set's best
// non-exact rule and the prefix index's winner are compared as the order
// compares them (extended.before).
type extended struct {
	set   *pattern.Set
	rules []extRule // per rule given to the set
	// exact and other say whether the set holds exact rules, and rules of
	// the other kinds: a lookup asks it only for what it can answer.
	exact, other bool
	// order is, per literal starts_with record of the snapshot (record
	// number less firstPrefix), what the contract's order compares of it
	// against an extended rule: 24 bytes a record, only in a snapshot with
	// extended rules.
	order       []literalOrder
	firstPrefix uint32
}

// literalOrder is what the contract's order compares of a literal
// starts_with rule besides its host and conditions, which it has none of
// (docs/contract.md#precedence).
type literalOrder struct {
	created  int64 // nanos(CreatedAt)
	id       int64
	priority int32 // validation keeps priorities within 0 to 1,000,000
	prefix   uint16
}

// nanos is t in Unix nanoseconds, the zero time first.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return math.MinInt64
	}
	return t.UnixNano()
}

// extRule is an extended rule as a lookup answers it.
type extRule struct {
	priority int
	created  int64 // nanos(CreatedAt)
	id       int64
	dest     string
	status   uint16
	mt       redirects.MatchType
	flags    byte
	host     bool
	pathLen  int    // a starts_with source's path part, in decoded bytes: what preservePath keeps after
	hit      uint32 // its hit counter
}

// matchPool holds the pattern engine's scratch space (a Match is some
// kilobytes of buffers), so that a lookup through the set allocates nothing
// once the pool has warmed: Match.Release gives it back.
var matchPool = sync.Pool{New: func() any { return new(pattern.Match) }}

// CompileChecked is CompileWith for rules that may include Extended ones,
// which it compiles into a pattern.Set beside the literal rules; it refuses
// a rule the pattern engine refuses (validation refuses it first), naming
// the rule. A snapshot of literal rules only is CompileWith's, built and
// answering as it always was.
func CompileChecked(rules []redirects.Rule, settings redirects.Settings) (*Snapshot, error) {
	n := 0
	for i := range rules {
		if rules[i].Extended() {
			n++
		}
	}
	if n == 0 {
		return CompileWith(rules, settings), nil
	}
	literal := make([]redirects.Rule, 0, len(rules)-n)
	ext := make([]*redirects.Rule, 0, n)
	prs := make([]pattern.Rule, 0, n)
	for i := range rules {
		r := &rules[i]
		if !r.Extended() {
			literal = append(literal, *r)
			continue
		}
		ext = append(ext, r)
		prs = append(prs, r.PatternRule())
	}
	set, err := pattern.Compile(prs, settings.PatternSettings())
	if err != nil {
		if re, ok := err.(*pattern.RuleError); ok && re.Index < len(ext) {
			r := ext[re.Index]
			return nil, fmt.Errorf("rule %d (%s %s): %w", r.ID, r.MatchType, r.Source, re.Err)
		}
		return nil, err
	}
	s := CompileWith(literal, settings)
	x := &extended{set: set, rules: make([]extRule, len(ext)), firstPrefix: uint32(s.exactLen)}
	x.order = make([]literalOrder, len(s.hits.recs)-s.exactLen)
	fillLiteralOrder(s, literal, x.order)
	keys := make([]redirects.HitKey, len(ext))
	base := uint32(len(s.hits.recs))
	for i, r := range ext {
		e := &x.rules[i]
		e.priority, e.created, e.id = r.Priority, nanos(r.CreatedAt), r.ID
		e.dest, e.status, e.mt, e.host = r.Destination, uint16(r.StatusCode), r.MatchType, r.Host != ""
		if r.PreservePath && r.MatchType == redirects.StartsWith {
			e.flags |= flagPreservePath
		}
		if r.PreserveQuery {
			e.flags |= flagPreserveQuery
			if r.QueryAfterFragment {
				e.flags |= flagQueryAfterFragment
			}
			if r.MergeQuery {
				e.flags |= flagMergeQuery
			}
		}
		if r.MatchType == redirects.StartsWith {
			e.pathLen = len(redirects.WirePath(r.Source))
		}
		e.hit = base + uint32(i)
		if r.MatchType == redirects.Exact {
			x.exact = true
		} else {
			x.other = true
		}
		keys[i] = redirects.HitKey{MatchType: r.MatchType, Host: r.Host, Source: r.Source}
	}
	s.hits.n = make([]atomic.Uint32, len(s.hits.recs)+len(ext))
	s.hits.ext = keys
	s.ext = x
	return s, nil
}

// fillLiteralOrder sets the priority, age, ID and source length of every
// literal starts_with record: Compile numbered its answers, exact ones
// first, and a record holds its rule's source (or its case-folded form), by
// which the rule is found again.
func fillLiteralOrder(s *Snapshot, literal []redirects.Rule, order []literalOrder) {
	bySource := make(map[string]*redirects.Rule)
	for i := range literal {
		r := &literal[i]
		if r.MatchType != redirects.StartsWith {
			continue
		}
		k := r.Source
		if s.settings.CaseInsensitive {
			k = s.settings.FoldCase(k)
		}
		if o, ok := bySource[k]; !ok || Better(r, o) {
			bySource[k] = r
		}
	}
	for a, rec := range s.hits.recs[s.exactLen:] {
		src := s.recordSource(rec)
		order[a].prefix = uint16(len(src))
		if r := bySource[src]; r != nil {
			order[a].priority, order[a].created, order[a].id = int32(r.Priority), nanos(r.CreatedAt), r.ID
		}
	}
}

// before reports whether the set's answer pm comes before the literal
// starts_with rule of record number a in the contract's order: priority;
// host-scoped before host-less; the longer literal prefix; with conditions
// before without; the older rule; the lower ID.
func (x *extended) before(pm *pattern.Match, a uint32) bool {
	e, l := &x.rules[pm.Rule()], &x.order[a-x.firstPrefix]
	if e.priority != int(l.priority) {
		return e.priority < int(l.priority)
	}
	if e.host {
		return true
	}
	if p := len(pm.LiteralPrefix()); p != int(l.prefix) {
		return p > int(l.prefix)
	}
	if pm.Conditional() {
		return true
	}
	if e.created != l.created {
		return e.created < l.created
	}
	return e.id < l.id
}

// LookupHost finds the rule answering a request for wire (the lookup API's
// path parameter: the request path as sent, with its query) on host, the
// request's host ("" for none: only rules without a host answer;
// docs/contract.md#hosts). On a snapshot of literal rules it is Lookup. A
// Match answered by a pattern, regex, host-scoped or conditional rule holds
// scratch space until Release; its JSON is rendered by AppendJSON, which
// allocates nothing when given room.
func (s *Snapshot) LookupHost(host, wire string) (Match, bool) {
	if s == nil || s.ext == nil {
		return s.Lookup(wire)
	}
	return s.lookupExtended(host, wire)
}

// lookupExtended is LookupHost on a snapshot with a pattern.Set.
func (s *Snapshot) lookupExtended(host, wire string) (Match, bool) {
	x := s.ext
	var pm *pattern.Match // taken from the pool only when the set is asked
	ok := false
	if x.exact {
		pm = matchPool.Get().(*pattern.Match)
		ok = x.set.Lookup(host, wire, pm)
		if ok && pm.Kind() == pattern.Exact {
			return s.extMatch(pm), true
		}
	}
	lm, lok := s.lookupLiteral(wire)
	if lok && lm.mt == redirects.Exact {
		if pm != nil {
			matchPool.Put(pm)
		}
		return lm, true
	}
	if x.other && pm == nil {
		pm = matchPool.Get().(*pattern.Match)
		ok = x.set.Lookup(host, wire, pm)
	}
	if ok && (!lok || x.before(pm, lm.rec)) {
		return s.extMatch(pm), true
	}
	if pm != nil {
		matchPool.Put(pm)
	}
	return lm, lok
}

// extMatch is the Match of the set's answer pm.
func (s *Snapshot) extMatch(pm *pattern.Match) Match {
	e := &s.ext.rules[pm.Rule()]
	return Match{pm: pm, dest: e.dest, status: e.status, mt: e.mt, rec: e.hit, flags: e.flags, matched: e.pathLen}
}

// Release gives a Match's scratch space back for another lookup to use; a
// caller that answers many lookups calls it once it has rendered the
// answer, and then uses neither m nor any copy of it. Without it, the
// scratch space is collected as garbage. It does nothing for a Match of a
// literal rule.
func (m Match) Release() {
	if m.pm != nil {
		matchPool.Put(m.pm)
	}
}

// Captures calls fn with each capture of the answering rule (its name and
// its text in the request's wire form), for explain; nothing for a literal
// rule.
func (m Match) Captures(fn func(name, value string)) {
	if m.pm != nil {
		m.pm.Captures(fn)
	}
}

// ExtendedLen returns the number of rules the snapshot answers through its
// pattern set: pattern and regex rules, and rules with a host or query
// conditions.
func (s *Snapshot) ExtendedLen() int {
	if s == nil || s.ext == nil {
		return 0
	}
	return len(s.ext.rules)
}

// appendExpanded appends the answer of a Match of the set for the request
// wire: the destination with its captures expanded (into b itself, then
// moved), the rule's options applied to it, escaped for JSON when inJSON.
func (m Match) appendExpanded(b []byte, wire string, inJSON bool) []byte {
	if m.status == redirects.StatusGone {
		return b
	}
	start := len(b)
	b = m.pm.AppendDestination(b)
	mid := len(b)
	rest, reqQuery := m.appended(wire)
	if reqQuery != "" && m.flags&flagMergeQuery != 0 {
		reqQuery = mergedParams(unsafeString(b[start:mid]), reqQuery)
	}
	if !inJSON && rest == "" && reqQuery == "" {
		return b
	}
	// dest stays valid if b grows: the old array is kept by dest.
	dest := unsafeString(b[start:mid])
	b = m.appendComputed(b, dest, rest, reqQuery, inJSON)
	n := copy(b[start:], b[mid:])
	return b[:start+n]
}

// AnswerJSON returns the lookup body a version of rules under settings
// answers for a request of wire on host, as the edge sends it, nil when no
// rule answers: a lookup made once, outside the edge (the command line,
// the management API).
func AnswerJSON(rules []redirects.Rule, settings redirects.Settings, host, wire string) ([]byte, error) {
	snap, err := CompileChecked(rules, settings)
	if err != nil {
		return nil, err
	}
	m, ok := snap.LookupHost(host, wire)
	if !ok {
		return nil, nil
	}
	return m.AppendJSON(nil, wire), nil
}
