package safety

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"redirects"
	"redirects/engine"
	"redirects/engine/pattern"
)

// Candidate is one rule that matches the explained path.
type Candidate struct {
	Rule RuleRef `json:"rule"`
	// Answers is set on the rule that answers the path.
	Answers bool `json:"answers"`
	// Reason says why the rule answers or why it lost.
	Reason string `json:"reason"`
}

// Explanation is the answer to a path and every rule that matched it.
type Explanation struct {
	// Path is the path as asked; Matched the part matching compares (cut
	// at the first '?' or '#', then percent-decoded once).
	Path    string `json:"path"`
	Matched string `json:"matched"`
	// Settings are the matching settings the path was compared with, when
	// they are not the default.
	Settings *SettingsJSON `json:"settings,omitempty"`
	// Answer is the answering rule, nil when no rule matches.
	Answer *RuleRef `json:"answer"`
	// StatusCode and Destination are what the lookup answers: the
	// answering rule's status and its computed destination for Path
	// (redirects.Target: with the rest of the path and the query when the
	// rule keeps them; empty for a 410). Both are empty without an answer.
	StatusCode  int    `json:"statusCode,omitempty"`
	Destination string `json:"destination,omitempty"`
	// Candidates lists the exact rule whose source has the path's key, if
	// any, then every starts_with rule whose source matches it, in
	// precedence order: the first one answers unless an exact rule does.
	// With pattern, regex, host-scoped or conditioned rules, it lists every
	// rule that matches, exact ones first, in the contract's order
	// (docs/contract.md#precedence).
	Candidates []Candidate `json:"candidates"`
	// Host is the host the lookup was for, when one was given.
	Host string `json:"host,omitempty"`
	// Captures are what each placeholder, group or query capture of the
	// answering rule captured, in source order, in the wire form inserted
	// into the destination; absent for a rule without captures.
	Captures []Capture `json:"captures,omitempty"`
}

// Capture is one capture of the answering rule: a placeholder's name, a
// regex group's name or number ("1"), or a query capture's name.
type Capture struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Explain is ExplainWith under the default settings.
func Explain(rules []redirects.Rule, path string) Explanation {
	return ExplainWith(rules, redirects.Settings{}, path)
}

// ExplainWith returns how a lookup of path answers among rules under
// settings s: the answering rule, its computed destination and every
// candidate, each with why it lost. It scans rules once, so it suits one
// question at a time; its answer is the lookup's.
func ExplainWith(rules []redirects.Rule, s redirects.Settings, path string) Explanation {
	return ExplainFor(rules, s, "", path)
}

// ExplainFor is ExplainWith for a lookup on host ("" for none, which
// host-less rules alone answer): with pattern, regex, host-scoped or
// conditioned rules, it also says what each capture of the answering rule
// holds.
func ExplainFor(rules []redirects.Rule, s redirects.Settings, host, path string) Explanation {
	if slices.ContainsFunc(rules, func(r redirects.Rule) bool { return r.Extended() }) {
		return explainExtended(newIndex(rules, s), host, path)
	}
	// The lookup matches the path cut at '?' or '#' and decoded once
	// (docs/contract.md#matching); a malformed escape matches nothing, and
	// an empty Matched, which no source matches, says so.
	matched, err := redirects.DecodePath(path)
	if err != nil {
		matched = ""
	}
	e := Explanation{Path: path, Matched: matched, Candidates: []Candidate{}, Host: host}
	if !s.IsDefault() {
		sj := SettingsOf(s)
		e.Settings = &sj
	}
	var exact *redirects.Rule
	var prefix []*redirects.Rule
	prefixLen := map[*redirects.Rule]int{}
	for i := range rules {
		r := &rules[i]
		if e.Matched == "" {
			break
		}
		switch {
		case r.MatchType == redirects.StartsWith:
			if m, ok := s.Matches(r, e.Matched); ok {
				prefix = append(prefix, r)
				prefixLen[r] = m
			}
		case exact == nil && s.Key(r.Source) == s.Key(e.Matched):
			// The first exact rule of a key answers, as in Compile.
			exact = r
		}
	}
	slices.SortStableFunc(prefix, func(a, b *redirects.Rule) int {
		switch {
		case engine.Better(a, b):
			return -1
		case engine.Better(b, a):
			return 1
		}
		return 0
	})
	answer := func(r *redirects.Rule, m int) {
		ref := Ref(r)
		e.Answer = &ref
		e.StatusCode = r.StatusCode
		e.Destination = redirects.Target(r, path, m)
	}
	if exact != nil {
		answer(exact, len(e.Matched))
		reason := "exact source equals the path: an exact rule answers first"
		if exact.Source != e.Matched {
			reason = "exact source equals the path under the settings (" + s.String() + "): an exact rule answers first"
		}
		e.Candidates = append(e.Candidates, Candidate{Rule: *e.Answer, Answers: true, Reason: reason})
		for _, r := range prefix {
			e.Candidates = append(e.Candidates, Candidate{Rule: Ref(r), Reason: "an exact rule answers first"})
		}
		return e
	}
	for k, r := range prefix {
		c := Candidate{Rule: Ref(r)}
		if k == 0 {
			answer(r, prefixLen[r])
			c.Answers = true
			c.Reason = "no exact rule; the best of the matching starts_with rules (lowest priority, then longest source, then oldest)"
			if len(prefix) == 1 {
				c.Reason = "no exact rule; the only matching starts_with rule"
			}
		} else {
			c.Reason = lostTo(prefix[0], r)
		}
		e.Candidates = append(e.Candidates, c)
	}
	return e
}

// lostTo says why starts_with rule l loses to w.
func lostTo(w, l *redirects.Rule) string {
	switch {
	case w.Priority != l.Priority:
		return fmt.Sprintf("priority %d loses to %d (rule %d)", l.Priority, w.Priority, w.ID)
	case len(w.Source) != len(l.Source):
		return fmt.Sprintf("same priority %d, shorter source (%d bytes against %d of rule %d)", l.Priority, len(l.Source), len(w.Source), w.ID)
	case !w.CreatedAt.Equal(l.CreatedAt) || w.ID != l.ID:
		return fmt.Sprintf("same priority %d and source length, newer rule than rule %d", l.Priority, w.ID)
	}
	return fmt.Sprintf("same priority %d, source and age as rule %d, which wins the last tie-break", l.Priority, w.ID)
}

// explainExtended explains a lookup among rules some of which are
// extended: the answer is the index's (resolve); the candidates are every
// rule that matches on its own, exact ones first, each group in the
// contract's order.
func explainExtended(x *index, host, path string) Explanation {
	s := x.set
	matched, err := redirects.DecodePath(path)
	if err != nil {
		matched = ""
	}
	e := Explanation{Path: path, Matched: matched, Candidates: []Candidate{}, Host: host}
	if !s.IsDefault() {
		sj := SettingsOf(s)
		e.Settings = &sj
	}
	if matched == "" {
		return e
	}
	st := s.PatternSettings()
	fp := s.FoldCase(matched)
	var exact, others []int32
	for i := range x.rules {
		r := &x.rules[i]
		if !x.ext.ok[i] {
			continue
		}
		if !r.Extended() {
			if _, ok := s.Matches(r, matched); ok {
				if r.MatchType == redirects.StartsWith {
					others = append(others, int32(i))
				} else if x.exact[s.Key(matched)] == int32(i) {
					exact = append(exact, int32(i))
				}
			}
			continue
		}
		// Only a rule whose literal prefix the path (or its slash twin)
		// starts with can match: the others are not compiled.
		if pre := x.ext.info[i].Prefix; r.MatchType != redirects.Exact && !strings.HasPrefix(fp+"/", pre) {
			continue
		}
		set, err := pattern.Compile([]pattern.Rule{r.PatternRule()}, st)
		var m pattern.Match
		if err != nil || !set.Lookup(host, path, &m) {
			continue
		}
		if r.MatchType == redirects.Exact {
			exact = append(exact, int32(i))
		} else {
			others = append(others, int32(i))
		}
	}
	slices.SortStableFunc(exact, x.rankExact)
	slices.SortStableFunc(others, x.rank)
	ans, dest := x.resolve(host, path)
	if ans >= 0 {
		ref := Ref(&x.rules[ans])
		e.Answer = &ref
		e.StatusCode = x.rules[ans].StatusCode
		e.Destination = dest
		if x.rules[ans].Extended() {
			m := new(pattern.Match)
			if x.ext.set.Lookup(host, path, m) && x.ext.of[m.Rule()] == ans {
				m.Captures(func(name, value string) {
					e.Captures = append(e.Captures, Capture{Name: name, Value: value})
				})
			}
		}
	}
	for k, i := range exact {
		c := Candidate{Rule: Ref(&x.rules[i]), Answers: i == ans}
		switch {
		case c.Answers:
			c.Reason = "an exact rule matches the path (its key" + hostNote(x, i) + "): exact rules answer first"
		case k > 0:
			c.Reason = "an exact rule before it answers: " + x.whyExact(exact[0], i)
		default:
			c.Reason = "not the lookup's answer"
		}
		e.Candidates = append(e.Candidates, c)
	}
	for k, i := range others {
		c := Candidate{Rule: Ref(&x.rules[i]), Answers: i == ans}
		switch {
		case c.Answers && len(others) == 1:
			c.Reason = "no exact rule; the only matching rule of the other kinds"
		case c.Answers:
			c.Reason = "no exact rule; the first matching rule in precedence (lowest priority, then host-scoped first, then longest literal prefix, then with query conditions first, then oldest)"
		case len(exact) > 0:
			c.Reason = "an exact rule answers first"
		case k > 0:
			c.Reason = fmt.Sprintf("loses to rule %d: %s", x.rules[others[0]].ID, x.why(others[0], i))
		default:
			c.Reason = "not the lookup's answer"
		}
		e.Candidates = append(e.Candidates, c)
	}
	return e
}

// hostNote says how an exact rule matched besides its key: its host, its
// conditions.
func hostNote(x *index, i int32) string {
	var n string
	if h := x.rules[i].Host; h != "" {
		n += ", its host " + h
	}
	if x.ext.info[i].Conditions {
		n += ", its query conditions"
	}
	return n
}

// rankExact is the contract's order among exact rules: host-scoped before
// host-less, with conditions before without, the older, the lower ID.
func (x *index) rankExact(a, b int32) int {
	e := x.ext
	if c := cmp.Compare(hostRank(e.host[a]), hostRank(e.host[b])); c != 0 {
		return c
	}
	if e.info[a].Conditions != e.info[b].Conditions {
		if e.info[a].Conditions {
			return -1
		}
		return 1
	}
	if c := x.rules[a].CreatedAt.Compare(x.rules[b].CreatedAt); c != 0 {
		return c
	}
	return cmp.Compare(x.rules[a].ID, x.rules[b].ID)
}

// whyExact says why exact rule w comes before exact rule l.
func (x *index) whyExact(w, l int32) string {
	e := x.ext
	switch {
	case hostRank(e.host[w]) != hostRank(e.host[l]):
		return fmt.Sprintf("rule %d has a host that comes first", x.rules[w].ID)
	case e.info[w].Conditions != e.info[l].Conditions:
		return fmt.Sprintf("rule %d has query conditions, which come first", x.rules[w].ID)
	}
	return fmt.Sprintf("rule %d is older", x.rules[w].ID)
}
