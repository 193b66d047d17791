package safety

import (
	"fmt"
	"slices"

	"redirects"
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
	// Answer is the answering rule, nil when no rule matches.
	Answer *RuleRef `json:"answer"`
	// Candidates lists the exact rule whose source equals the path, if any,
	// then every starts_with rule whose source prefixes it, in precedence
	// order: the first one answers unless an exact rule does.
	Candidates []Candidate `json:"candidates"`
}

// Explain returns how a lookup of path answers among rules: the answering
// rule and every candidate, each with why it lost. It scans rules once, so it
// suits one question at a time; its answer is the lookup's
// (engine.Compile(rules).Lookup(path)).
func Explain(rules []redirects.Rule, path string) Explanation {
	// The lookup matches the path cut at '?' or '#' and decoded once
	// (docs/contract.md#matching); a malformed escape matches nothing, and
	// an empty Matched, which no source prefixes, says so.
	matched, err := redirects.DecodePath(path)
	if err != nil {
		matched = ""
	}
	e := Explanation{Path: path, Matched: matched, Candidates: []Candidate{}}
	var exact *redirects.Rule
	var prefix []*redirects.Rule
	for i := range rules {
		r := &rules[i]
		switch {
		case r.MatchType == redirects.StartsWith:
			if len(r.Source) <= len(e.Matched) && e.Matched[:len(r.Source)] == r.Source {
				prefix = append(prefix, r)
			}
		case r.Source == e.Matched && exact == nil:
			// The first exact rule of a source answers, as in Compile.
			exact = r
		}
	}
	slices.SortStableFunc(prefix, func(a, b *redirects.Rule) int {
		switch {
		case redirects.Better(a, b):
			return -1
		case redirects.Better(b, a):
			return 1
		}
		return 0
	})
	if exact != nil {
		ref := Ref(exact)
		e.Answer = &ref
		e.Candidates = append(e.Candidates, Candidate{Rule: ref, Answers: true, Reason: "exact source equals the path: an exact rule answers first"})
		for _, r := range prefix {
			e.Candidates = append(e.Candidates, Candidate{Rule: Ref(r), Reason: "an exact rule answers first"})
		}
		return e
	}
	for k, r := range prefix {
		c := Candidate{Rule: Ref(r)}
		if k == 0 {
			ref := Ref(r)
			e.Answer = &ref
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
