package safety

import (
	"context"
	"strconv"
	"strings"

	"redirects"
)

// The deploy gate: what runs before every deploy, from the command line and
// the management API alike, and refuses one that would put a loop, a
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
	type key struct {
		m      redirects.MatchType
		source string
	}
	kept := make(map[key]bool, len(deploy))
	for i := range deploy {
		kept[key{deploy[i].MatchType, deploy[i].Source}] = true
	}
	for i := range live {
		if !kept[key{live[i].MatchType, live[i].Source}] {
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

// Deploy is the one deploy of the command line, the management API and the
// dashboard, of the draft and of an earlier version (a rollback): it
// deploys through the pipeline (DeployInTx) with the gate run in the
// deploy's write transaction, on exactly the rules the deploy writes, against the
// project's own hosts, shrink limit and stored test file as that
// transaction reads them. A blocked deploy changes nothing and returns a
// *BlockedError with the report. The audit entry of a deploy records only
// the overrides it needed, so the log shows what was gone past, not what
// was asked for just in case. The report is returned with a deployment
// too, for its warnings; it is nil when the deploy failed before the gate
// ran. Errors: ENOTFOUND (project or version), EINVALID, what build returns, EINVALID for a bad stored test file,
// and ECONFLICT (the *BlockedError).
func Deploy(ctx context.Context, s redirects.DeployStore, projectID string, opts redirects.DeployOptions, build redirects.Builder) (*redirects.Deployment, *GateResult, error) {
	var g *GateResult
	d, err := deploy(ctx, s, projectID, opts, build, func(ctx context.Context, c *DeployCheck) (redirects.DeployOverride, error) {
		var err error
		if g, err = check(ctx, c); err != nil {
			return redirects.DeployOverride{}, err
		}
		if len(g.Blocked) > 0 {
			return redirects.DeployOverride{}, &BlockedError{Result: g}
		}
		o := c.Options.Override
		if !g.Forced {
			o.Force, o.Reason = false, ""
		}
		if !g.ShrinkAllowed {
			o.AllowShrink = false
		}
		return o, nil
	})
	if err != nil {
		return nil, g, err
	}
	return d, g, nil
}

// check runs the gate on the deploy c describes: c's rules against the
// live rules, the project's hosts and shrink limit, and its stored test
// file, read with c.Reader. Errors: EINVALID (the stored test file).
func check(ctx context.Context, c *DeployCheck) (*GateResult, error) {
	live := true
	liveRules, err := c.Reader.FindLiveRules(ctx, c.Project.ID)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND {
		live, err = false, nil
	}
	if err != nil {
		return nil, err
	}
	csv, err := c.Reader.FindProjectTests(ctx, c.Project.ID)
	if err != nil {
		return nil, err
	}
	var cases []Case
	if csv != "" {
		if cases, err = ParseCases(strings.NewReader(csv)); err != nil {
			return nil, redirects.Errorf(redirects.EINVALID, "the project's stored test file: %s", redirects.ErrorMessage(err))
		}
	}
	opts := c.Options
	// The settings a deploy freezes are the project's (see DeployInTx).
	g := Gate(liveRules, c.Rules, cases, GateOptions{Hosts: c.Project.Hosts, Settings: c.Project.Settings, ShrinkLimit: c.Project.ShrinkLimit, Live: live,
		Rollback: opts.FromVersion > 0, Override: opts.Override})
	g.Target = "the draft"
	if opts.FromVersion > 0 {
		g.Target = "version " + strconv.Itoa(opts.FromVersion)
	}
	return g, nil
}

// GateStore is what CheckDeploy reads of a store.
type GateStore interface {
	FindProjectByID(ctx context.Context, id string) (*redirects.Project, error)
	FindRules(ctx context.Context, projectID string) ([]redirects.Rule, error)
	FindDeployment(ctx context.Context, projectID string, version int) (*redirects.Deployment, []redirects.Rule, error)
	FindProjectTests(ctx context.Context, id string) (string, error)
}

// CheckDeploy is a dry run of Deploy: the gate's report on the deploy opts
// describes, run as Deploy runs it, on the rules it would put live (the
// draft, or opts.FromVersion's) and the project's own hosts, shrink limit
// and stored test file, read from s without taking the deploy's lock. It
// says what a deploy would be refused for now; the deploy checks again,
// in its transaction, what it writes. Errors: ENOTFOUND (the project or
// the version), EINVALID (the options, the stored test file).
func CheckDeploy(ctx context.Context, s GateStore, projectID string, opts redirects.DeployOptions) (*GateResult, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	p, err := s.FindProjectByID(ctx, projectID)
	if err != nil {
		return nil, err
	}
	var rules []redirects.Rule
	if opts.FromVersion > 0 {
		_, rules, err = s.FindDeployment(ctx, projectID, opts.FromVersion)
	} else {
		rules, err = s.FindRules(ctx, projectID)
	}
	if err != nil {
		return nil, err
	}
	return check(ctx, &DeployCheck{Project: p, Options: opts, Rules: rules, Reader: gateReader{s}})
}

// gateReader is the redirects.DeployReader of CheckDeploy: reads of s, each
// in a transaction of its own.
type gateReader struct{ s GateStore }

func (r gateReader) FindLiveRules(ctx context.Context, projectID string) ([]redirects.Rule, error) {
	_, rules, err := r.s.FindDeployment(ctx, projectID, 0)
	return rules, err
}

func (r gateReader) FindProjectTests(ctx context.Context, projectID string) (string, error) {
	return r.s.FindProjectTests(ctx, projectID)
}

// plural returns "1 case", "2 cases": n with the form of the word for it.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
