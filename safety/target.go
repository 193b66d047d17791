package safety

import (
	"context"
	"slices"
	"strconv"

	"redirects"
)

// Target is a rule set the safety checks work on: a project's draft rules
// or the rules of one of its deployments, with the settings they answer
// with. Its methods run the checks with those settings.
type Target struct {
	Rules []redirects.Rule
	// Name reads "the draft", "version 3", "version 3 (live)" or "nothing
	// deployed".
	Name string
	// Version is the version number, or 0 for the draft or nothing deployed.
	Version int
	// Draft is true for the draft rules.
	Draft bool
	// Settings are the matching settings the rules answer with: the
	// project's for the draft, the version's as its deploy froze them
	// (the default for nothing deployed).
	Settings redirects.Settings
}

// RuleSource is the part of redirects.Store that Load reads.
type RuleSource interface {
	FindProjectByID(ctx context.Context, id string) (*redirects.Project, error)
	FindRules(ctx context.Context, projectID string) ([]redirects.Rule, error)
	FindDeployments(ctx context.Context, projectID string) ([]*redirects.Deployment, error)
	FindDeployment(ctx context.Context, projectID string, version int) (*redirects.Deployment, []redirects.Rule, error)
}

// ParseVersion checks a version as the command line and the management API
// name one: "draft", "live" or a positive version number. It returns the
// version number, 0 for "draft" and "live". Errors: EINVALID.
func ParseVersion(spec string) (version int, err error) {
	if spec == "draft" || spec == "live" {
		return 0, nil
	}
	n, err := strconv.Atoi(spec)
	if err != nil || n <= 0 {
		return 0, redirects.Errorf(redirects.EINVALID, "version %q is neither draft, live nor a positive version number", spec)
	}
	return n, nil
}

// Load reads the rules of spec ("draft", "live" or a version number, as
// ParseVersion checks) of a project. With emptyLive, "live" of a project
// with nothing deployed is an empty rule set instead of an error: a diff
// from nothing deployed lists every rule as added. The command line's
// diff, explain, lint, test and verify and the management API's diff and
// lookup all load through it, so they name and resolve versions alike.
// Errors: EINVALID (spec), ENOTFOUND (the project or the version).
func Load(ctx context.Context, s RuleSource, projectID, spec string, emptyLive bool) (*Target, error) {
	version, err := ParseVersion(spec)
	if err != nil {
		return nil, err
	}
	if spec == "draft" {
		p, err := s.FindProjectByID(ctx, projectID)
		if err != nil {
			return nil, err
		}
		rules, err := s.FindRules(ctx, projectID)
		if err != nil {
			return nil, err
		}
		return &Target{Rules: rules, Name: "the draft", Draft: true, Settings: p.Settings}, nil
	}
	if version == 0 && emptyLive {
		// Tell "no such project" from "nothing deployed yet".
		if _, err := s.FindProjectByID(ctx, projectID); err != nil {
			return nil, err
		}
		ds, err := s.FindDeployments(ctx, projectID)
		if err != nil {
			return nil, err
		}
		// Staged versions are not live (docs/contract.md#staged-deploys).
		if !slices.ContainsFunc(ds, func(d *redirects.Deployment) bool { return d.Live }) {
			return &Target{Rules: []redirects.Rule{}, Name: "nothing deployed"}, nil
		}
	}
	d, rules, err := s.FindDeployment(ctx, projectID, version)
	if err != nil {
		return nil, err
	}
	t := &Target{Rules: rules, Version: d.Version, Name: "version " + strconv.Itoa(d.Version), Settings: d.Settings}
	if version == 0 {
		t.Name += " (live)"
	}
	return t, nil
}

// Lint is Lint of the target's rules with its settings and opts' hosts.
func (t *Target) Lint(opts LintOptions) []Finding {
	opts.Settings = t.Settings
	return Lint(t.Rules, opts)
}

// Explain is ExplainWith of the target's rules and settings.
func (t *Target) Explain(path string) Explanation {
	return ExplainWith(t.Rules, t.Settings, path)
}

// ExplainFor is ExplainFor of the target's rules and settings, for a
// lookup on host.
func (t *Target) ExplainFor(host, path string) Explanation {
	return ExplainFor(t.Rules, t.Settings, host, path)
}

// RunCases is RunCases on the target's rules with its settings and opts'
// hosts.
func (t *Target) RunCases(cases []Case, opts LintOptions) []CaseResult {
	opts.Settings = t.Settings
	return RunCases(t.Rules, cases, opts)
}

// Diff is Diff from the target to target to, with the settings of both.
func (t *Target) Diff(to *Target, opts DiffOptions) DiffResult {
	opts.From, opts.To = t.Settings, to.Settings
	return Diff(t.Rules, to.Rules, opts)
}

// Verify is Verify of the target's rules with its settings.
func (t *Target) Verify(ctx context.Context, baseURL string, opts VerifyOptions) ([]Mismatch, error) {
	opts.Settings = t.Settings
	return Verify(ctx, baseURL, t.Rules, opts)
}

// TargetOf is the target of the rule set rs, as the deploy service reads
// one (redirects.DeployService.RuleSet).
func TargetOf(rs *redirects.RuleSet) *Target {
	return &Target{Rules: rs.Rules, Name: rs.Name, Version: rs.Version, Draft: rs.Draft, Settings: rs.Settings}
}
