package api

import "redirects"

// ChainFix is one rule that flattening chains rewrites: the rule as the
// draft holds it, its new destination and the redirects its chain took.
type ChainFix struct {
	Rule        Rule   `json:"rule"`
	Destination string `json:"destination"`
	Hops        int    `json:"hops"`
}

// ChainLeft is a chain that flattening leaves alone: its first rule, the
// reason (mixed_status, gone, inexpressible, loop) and a sentence.
type ChainLeft struct {
	Rule    Rule   `json:"rule"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// FlattenReport is GET .../chains and POST .../chains/flatten's answer
// (and redirects lint --fix chains --json): the rewrites, the chains left
// alone, whether the draft was changed and the undo record of the change.
type FlattenReport struct {
	Fixes   []ChainFix  `json:"fixes"`
	Left    []ChainLeft `json:"left"`
	Written bool        `json:"written"`
	UndoID  int64       `json:"undoId,omitempty"`
}

// FlattenReportOf is rep as the API shows it.
func FlattenReportOf(rep *redirects.FlattenReport) FlattenReport {
	out := FlattenReport{Fixes: make([]ChainFix, len(rep.Fixes)), Left: make([]ChainLeft, len(rep.Left)), Written: rep.Written, UndoID: rep.UndoID}
	for k := range rep.Fixes {
		f := &rep.Fixes[k]
		out.Fixes[k] = ChainFix{Rule: RuleOf(&f.Rule), Destination: f.Destination, Hops: f.Hops}
	}
	for k := range rep.Left {
		l := &rep.Left[k]
		out.Left[k] = ChainLeft{Rule: RuleOf(&l.Rule), Reason: string(l.Reason), Message: l.Message}
	}
	return out
}

// Report returns j as the report on project projectID's draft.
func (j *FlattenReport) Report(projectID string) *redirects.FlattenReport {
	rep := &redirects.FlattenReport{Written: j.Written, UndoID: j.UndoID}
	for _, f := range j.Fixes {
		rep.Fixes = append(rep.Fixes, redirects.ChainFix{Rule: f.Rule.Rule(projectID), Destination: f.Destination, Hops: f.Hops})
	}
	for _, l := range j.Left {
		rep.Left = append(rep.Left, redirects.ChainLeft{Rule: l.Rule.Rule(projectID), Reason: redirects.ChainLeftReason(l.Reason), Message: l.Message})
	}
	return rep
}
