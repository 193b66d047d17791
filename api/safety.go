package api

import "redirects/safety"

// The answers of the checks the command line runs on a rule set (lint,
// diff, explain, verify, test) as their --json prints them.

// LintReport is the --json answer of lint: the rule set checked (Version
// is left out for the draft) and its findings.
type LintReport struct {
	Target   string           `json:"target"`
	Version  int              `json:"version,omitempty"`
	Errors   int              `json:"errors"`
	Warnings int              `json:"warnings"`
	Findings []safety.Finding `json:"findings"`
}

// DiffReport is the --json answer of diff: the rule sets compared, by
// name, and what changed; the management API's diff answers Diff, which
// also names their versions.
type DiffReport struct {
	From string `json:"from"`
	To   string `json:"to"`
	safety.DiffResult
}

// ExplainReport is the --json answer of explain: the rule set read and
// which rules matched the path and why the answering one won.
type ExplainReport struct {
	Target string `json:"target"`
	safety.Explanation
}

// VerifyReport is the --json answer of verify: the rule set, the server
// checked, the paths asked and the answers that differed.
type VerifyReport struct {
	Target     string            `json:"target"`
	BaseURL    string            `json:"baseUrl"`
	Paths      int               `json:"paths"`
	Mismatches []safety.Mismatch `json:"mismatches"`
}

// TestReport is the --json answer of test: the rule set and the result of
// each expected-outcome case.
type TestReport struct {
	Target  string              `json:"target"`
	Cases   int                 `json:"cases"`
	Failed  int                 `json:"failed"`
	Results []safety.CaseResult `json:"results"`
}
