package safety

import (
	"strconv"
	"strings"

	"redirects"
)

// The deploy gate: what the deploy service runs before every deploy, from
// every front door alike, and refuses one that would put a loop, a
// failing expected-outcome case or a large loss of rules live unless the
// caller overrides it (see redirects.DeployOverride).

// GateOptions says how to check a deploy.
type GateOptions struct {
	// Hosts are the project's own hosts, as for Lint.
	Hosts []string
	// Settings are the matching settings the deploy puts live with the
	// rules: lint and the cases compare paths with them.
	Settings redirects.Settings
	// ShrinkLimit is the percentage of the live rules the deploy may remove
	// unconfirmed.
	ShrinkLimit int
	// Live says whether the project has a live deployment; without one no
	// rule can be removed.
	Live bool
	// Rollback says the deploy puts an earlier version's rules live again,
	// which the shrink guard lets through: its rules were live before, the
	// caller named them by number, and a rollback is what undoes a bad
	// deploy in a hurry.
	Rollback bool
	// Override is what the caller lets through.
	Override redirects.DeployOverride
}

// MinShrinkRemoved is the fewest rules a deploy must remove for the shrink
// guard's percentage to apply: in a small project a percentage is a rule
// or two, removed on purpose, and a guard that fires at every such deploy
// teaches people to pass --allow-shrink always. Leaving no rule needs a
// confirmation however few go.
const MinShrinkRemoved = 10

// Shrink is what a deploy removes of the live rules.
type Shrink = redirects.DeployShrink

// GateResult is the gate's report on one deploy.
type GateResult = redirects.GateReport

// Gate checks the rules a deploy would put live (deploy) against the live
// rules and the project's cases: lint errors and failing cases block unless
// forced, a shrink beyond the limit unless allowed.
func Gate(live, deploy []redirects.Rule, cases []Case, opts GateOptions) *GateResult {
	lo := LintOptions{Hosts: opts.Hosts, Settings: opts.Settings}
	g := &GateResult{Findings: Lint(deploy, lo), Cases: len(cases), FailingCases: []CaseResult{}}
	if g.Findings == nil {
		g.Findings = []Finding{}
	}
	g.Errors, g.Warnings = Count(g.Findings)
	for _, r := range RunCases(deploy, cases, lo) {
		if !r.Pass {
			g.FailingCases = append(g.FailingCases, r)
		}
	}
	g.Shrink = measureShrink(live, deploy, opts)

	if g.Errors > 0 || len(g.FailingCases) > 0 {
		var what []string
		if g.Errors > 0 {
			what = append(what, plural(g.Errors, "lint error", "lint errors"))
		}
		if n := len(g.FailingCases); n > 0 {
			what = append(what, plural(n, "failing expected-outcome case", "failing expected-outcome cases"))
		}
		if opts.Override.Force {
			g.Forced = true
		} else {
			g.Blocked = append(g.Blocked, strings.Join(what, " and ")+" must be fixed, or the deploy forced with a reason")
		}
	}
	if s := g.Shrink; s.NeedsConfirmation {
		if opts.Override.AllowShrink {
			g.ShrinkAllowed = true
		} else {
			g.Blocked = append(g.Blocked, s.String())
		}
	}
	if g.Blocked == nil {
		g.Blocked = []string{}
	}
	return g
}

func measureShrink(live, deploy []redirects.Rule, opts GateOptions) Shrink {
	s := Shrink{Deploy: len(deploy), Limit: opts.ShrinkLimit}
	if !opts.Live {
		return s
	}
	s.Live = len(live)
	// A rule is kept when the deploy has one of its match type, source
	// (query conditions included) and host key (docs/contract.md#keys).
	type key struct {
		m      redirects.MatchType
		source string
		host   string
	}
	kept := make(map[key]bool, len(deploy))
	for i := range deploy {
		kept[key{deploy[i].MatchType, deploy[i].Source, hostKey(deploy[i].Host)}] = true
	}
	for i := range live {
		if !kept[key{live[i].MatchType, live[i].Source, hostKey(live[i].Host)}] {
			s.Removed++
		}
	}
	if s.Live > 0 {
		s.Percent = float64(s.Removed*1000/s.Live) / 10
	}
	s.LeavesNone = s.Live > 0 && s.Deploy == 0
	// More than Limit percent, in integers: Removed/Live > Limit/100.
	s.Rollback = opts.Rollback
	overLimit := s.Removed >= MinShrinkRemoved && s.Removed*100 > s.Limit*s.Live
	s.NeedsConfirmation = !opts.Rollback && (s.LeavesNone || overLimit)
	return s
}

// Thousands writes n with commas between groups of three digits: 1,000.
func Thousands(n int) string { return redirects.Thousands(n) }

// BlockedError is the error of a deploy the gate refused, with its
// report.
type BlockedError = redirects.DeployBlockedError

// plural returns "1 case", "2 cases": n with the form of the word for it.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
