package redirects

import (
	"fmt"
	"strconv"
	"strings"
)

// The deploy gate's report: what the deploy service answers about a
// deploy it ran or would run, so that every front door shows the same
// findings, failing cases and shrink. Package safety decides (its Lint,
// RunCases and Gate fill these in); the service layer runs it in the
// deploy's transaction (see DeployService).

// FindingSeverity says whether a lint finding blocks a deploy.
type FindingSeverity string

// FindingKind names what a lint finding is about.
type FindingKind string

// RuleRef names a rule in a finding, an explanation or a diff, with the
// fields that matter to matching.
type RuleRef struct {
	ID          int64  `json:"id"`
	MatchType   string `json:"matchType"`
	Source      string `json:"source"`
	Destination string `json:"destination"`
	StatusCode  int    `json:"statusCode"`
	Priority    int    `json:"priority"`
	// PreservePath and PreserveQuery are the rule's options
	// (docs/contract.md#rule-options).
	PreservePath  bool `json:"preservePath,omitempty"`
	PreserveQuery bool `json:"preserveQuery,omitempty"`
	// QueryAfterFragment is the rule's queryAfterFragment.
	QueryAfterFragment bool `json:"queryAfterFragment,omitempty"`
	// MergeQuery is the rule's mergeQuery.
	MergeQuery bool `json:"mergeQuery,omitempty"`
	// Host is the rule's host, "" for every host (docs/contract.md#hosts).
	Host string `json:"host,omitempty"`
	// ExceptHosts is the rule's exceptHosts (docs/contract.md#hosts).
	ExceptHosts []string `json:"exceptHosts,omitempty"`
}

// String names the rule for messages: rule 12 (starts_with /a), or with a
// host rule 12 (pattern /:lang/a on example.com).
func (r RuleRef) String() string {
	s := "rule " + strconv.FormatInt(r.ID, 10) + " (" + r.MatchType + " " + r.Source
	if r.Host != "" {
		s += " on " + r.Host
	}
	return s + ")"
}

// LintFinding is one problem the lint of a rule set found.
type LintFinding struct {
	Severity FindingSeverity `json:"severity"`
	Kind     FindingKind     `json:"kind"`
	Message  string          `json:"message"`
	// Rules are the rules involved: for a loop or a chain in the order they
	// are followed, otherwise the rule the finding is about first.
	Rules []RuleRef `json:"rules"`
	// Path shows the finding: for a loop or a chain the paths requested one
	// after the other (a loop's last path is its first), otherwise the path
	// at which the rules meet.
	Path []string `json:"path"`
	// FinalDestination is, for a chain, where following it ends: the
	// answer of its last rule. Empty when the chain runs into a loop.
	FinalDestination string `json:"finalDestination,omitempty"`
	// MixedStatus is set on a chain of both permanent (301, 308) and
	// temporary (302, 303, 307) answers.
	MixedStatus bool `json:"mixedStatus,omitempty"`
	// Hops is the number of redirects of a chain or a loop (for a chain into
	// a loop, up to and once around the loop); Rules lists at most
	// safety.MaxChainRules of them.
	Hops int `json:"hops,omitempty"`
}

// LookupAnswer is what a lookup answers for a path: a status and a
// destination, or status 0 for no redirect.
type LookupAnswer struct {
	StatusCode  int    `json:"statusCode"`
	Destination string `json:"destination,omitempty"`
	// RuleID names the answering rule; it is not part of what a client sees
	// and so not compared.
	RuleID int64 `json:"ruleId,omitempty"`
}

// Same reports whether a client sees the same answer in a and b.
func (a LookupAnswer) Same(b LookupAnswer) bool {
	return a.StatusCode == b.StatusCode && a.Destination == b.Destination
}

// String reads "301 /new", "410 gone" or "no redirect".
func (a LookupAnswer) String() string {
	switch a.StatusCode {
	case 0:
		return "no redirect"
	case StatusGone:
		return "410 gone"
	}
	return strconv.Itoa(a.StatusCode) + " " + a.Destination
}

// TestCase is one expected outcome of a project's test file: what the
// lookup of Path must answer.
type TestCase struct {
	// Line is the case's line in its file, for messages.
	Line int `json:"line"`
	// Path is the requested path as a client sends it, and may carry a
	// query string (/old?x=1), which a preserveQuery rule passes on.
	Path string `json:"path"`
	// StatusCode is one of StatusCodes (410: gone, with an empty
	// destination), or 0 when no rule may answer.
	StatusCode int `json:"statusCode"`
	// Destination is the computed destination the answer must carry
	// (Target: with the rest of the path and the query when the rule keeps
	// them).
	Destination string `json:"destination,omitempty"`
	// FinalDestination, when set, is where following the project's own
	// rules from the answer must end.
	FinalDestination string `json:"finalDestination,omitempty"`
	// Host is the host the request is for (docs/contract.md#hosts); ""
	// is a lookup without a host, which host-less rules alone answer.
	Host string `json:"host,omitempty"`
}

// CaseResult is the outcome of one expected-outcome case.
type CaseResult struct {
	Case TestCase     `json:"case"`
	Got  LookupAnswer `json:"got"`
	// GotFinal is where following the answer ends; empty for no answer or
	// a loop (Loop).
	GotFinal string `json:"gotFinal,omitempty"`
	Loop     bool   `json:"loop,omitempty"`
	Pass     bool   `json:"pass"`
	// Problems says, one sentence each, what differs from the case.
	Problems []string `json:"problems,omitempty"`
}

// DeployShrink is what a deploy removes of the live rules. A live rule is
// removed when the deploy has no rule of its match type, source and host
// key.
type DeployShrink struct {
	Live    int `json:"live"`
	Deploy  int `json:"deploy"`
	Removed int `json:"removed"`
	// Percent is Removed as a percentage of Live, rounded down to a tenth.
	Percent float64 `json:"percent"`
	Limit   int     `json:"limit"`
	// LeavesNone is set when the deploy removes every live rule and adds
	// none.
	LeavesNone bool `json:"leavesNone"`
	// NeedsConfirmation is set when the deploy removes more than Limit
	// percent of the live rules (and at least safety.MinShrinkRemoved), or
	// leaves none, and is not a rollback.
	NeedsConfirmation bool `json:"needsConfirmation"`
	// Rollback is set for a rollback, which needs no confirmation.
	Rollback bool `json:"rollback,omitempty"`
}

// String says what the deploy removes and why it needs a confirmation.
func (s DeployShrink) String() string {
	if s.LeavesNone {
		return fmt.Sprintf("this deploy removes all %s live rules and leaves the project with none", Thousands(s.Live))
	}
	return fmt.Sprintf("this deploy removes %s of %s live rules (%s %%); the project's limit is %d %%",
		Thousands(s.Removed), Thousands(s.Live), strconv.FormatFloat(s.Percent, 'f', -1, 64), s.Limit)
}

// Thousands writes n with commas between groups of three digits: 1,000.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// GateReport is the deploy gate's report on one deploy.
type GateReport struct {
	// Target names the rules the deploy would put live: "the draft" or
	// "version N".
	Target   string        `json:"target"`
	Findings []LintFinding `json:"findings"`
	Errors   int           `json:"errors"`
	Warnings int           `json:"warnings"`
	// Cases is the number of expected-outcome cases run, FailingCases those
	// that failed.
	Cases        int          `json:"cases"`
	FailingCases []CaseResult `json:"failingCases"`
	Shrink       DeployShrink `json:"shrink"`
	// Blocked lists, one sentence each, why the deploy may not go ahead
	// with the override it has; empty when it may.
	Blocked []string `json:"blocked"`
	// Forced and ShrinkAllowed say which override the deploy needs and
	// has: forced past blocking findings or failing cases, allowed past
	// the shrink guard.
	Forced        bool `json:"forced"`
	ShrinkAllowed bool `json:"shrinkAllowed"`
}

// DeployBlockedError is the error of a deploy the gate refused. It carries
// the gate's report, and unwraps to an ECONFLICT error whose message says
// why.
type DeployBlockedError struct {
	Result *GateReport
}

// Error says why the deploy was refused.
func (e *DeployBlockedError) Error() string {
	return "deploy blocked: " + strings.Join(e.Result.Blocked, "; ")
}

// Unwrap gives the domain's error code: the deploy conflicts with the
// project's checks.
func (e *DeployBlockedError) Unwrap() error {
	return &Error{Code: ECONFLICT, Message: e.Error()}
}
