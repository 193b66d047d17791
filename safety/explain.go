package safety

import (
	"fmt"
	"slices"

	"redirects"
	"redirects/engine"
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
	Candidates []Candidate `json:"candidates"`
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
	// The lookup matches the path cut at '?' or '#' and decoded once
	// (docs/contract.md#matching); a malformed escape matches nothing, and
	// an empty Matched, which no source matches, says so.
	matched, err := redirects.DecodePath(path)
	if err != nil {
		matched = ""
	}
	e := Explanation{Path: path, Matched: matched, Candidates: []Candidate{}}
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
