package service

import (
	"context"
	"strconv"
	"strings"

	"redirects"
	"redirects/safety"
)

// The deploy service: the one deploy, with the gate of package safety run
// in the deploy's write transaction, and what reads deployments, their
// rules and exports, and the project's expected-outcome test file.

var _ redirects.DeployService = (*Service)(nil)

// Deploy deploys the draft or opts.FromVersion's rules of project
// projectID through the gate (see redirects.DeployService).
func (s *Service) Deploy(ctx context.Context, projectID string, opts redirects.DeployOptions) (*redirects.Deployment, *redirects.GateReport, error) {
	if _, err := s.project(ctx, projectID, redirects.ActionDeploy); err != nil {
		return nil, nil, err
	}
	return deployGated(ctx, s.store, projectID, opts, s.builder)
}

// deployGated is the deploy of the service over store s: the pipeline
// (DeployInTx) with safety's gate run in the deploy's write transaction,
// on exactly the rules it writes, against the project's own hosts, shrink
// limit and stored test file as that transaction reads them. A blocked
// deploy changes nothing and returns a *redirects.DeployBlockedError with
// the report. The audit entry records only the overrides the deploy
// needed, so the log shows what was gone past, not what was asked for
// just in case.
func deployGated(ctx context.Context, s redirects.DeployStore, projectID string, opts redirects.DeployOptions, build redirects.Builder) (*redirects.Deployment, *redirects.GateReport, error) {
	var g *redirects.GateReport
	d, err := deploy(ctx, s, projectID, opts, build, func(ctx context.Context, c *DeployCheck) (redirects.DeployOverride, error) {
		var err error
		if g, err = runGate(ctx, c); err != nil {
			return redirects.DeployOverride{}, err
		}
		if len(g.Blocked) > 0 {
			return redirects.DeployOverride{}, &redirects.DeployBlockedError{Result: g}
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

// runGate runs safety.Gate on the deploy c describes: c's rules against
// the live rules, the project's hosts and shrink limit, and its stored
// test file, read with c.Reader. Errors: EINVALID (the stored test file).
func runGate(ctx context.Context, c *DeployCheck) (*redirects.GateReport, error) {
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
	var cases []safety.Case
	if csv != "" {
		if cases, err = safety.ParseCases(strings.NewReader(csv)); err != nil {
			return nil, redirects.Errorf(redirects.EINVALID, "the project's stored test file: %s", redirects.ErrorMessage(err))
		}
	}
	opts := c.Options
	// The settings a deploy freezes are the project's (see DeployInTx).
	g := safety.Gate(liveRules, c.Rules, cases, safety.GateOptions{Hosts: c.Project.Hosts, Settings: c.Project.Settings,
		ShrinkLimit: c.Project.ShrinkLimit, Live: live, Rollback: opts.FromVersion > 0, Override: opts.Override})
	g.Target = "the draft"
	if opts.FromVersion > 0 {
		g.Target = "version " + strconv.Itoa(opts.FromVersion)
	}
	return g, nil
}

// CheckDeploy is the gate's report on the deploy opts describes, run as
// Deploy runs it, on the rules it would put live, read without taking the
// deploy's lock: what a deploy would be refused for now. The deploy
// checks again, in its transaction, what it writes.
func (s *Service) CheckDeploy(ctx context.Context, projectID string, opts redirects.DeployOptions) (*redirects.GateReport, error) {
	p, err := s.project(ctx, projectID, redirects.ActionRead)
	if err != nil {
		return nil, err
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	var rules []redirects.Rule
	if opts.FromVersion > 0 {
		_, rules, err = s.store.FindDeployment(ctx, projectID, opts.FromVersion)
	} else {
		rules, err = s.store.FindRules(ctx, projectID)
	}
	if err != nil {
		return nil, err
	}
	return runGate(ctx, &DeployCheck{Project: p, Options: opts, Rules: rules, Reader: gateReader{s.store}})
}

// gateReader is the redirects.DeployReader of CheckDeploy: reads of the
// store, each in a transaction of its own.
type gateReader struct{ s redirects.Store }

func (r gateReader) FindLiveRules(ctx context.Context, projectID string) ([]redirects.Rule, error) {
	_, rules, err := r.s.FindDeployment(ctx, projectID, 0)
	return rules, err
}

func (r gateReader) FindProjectTests(ctx context.Context, projectID string) (string, error) {
	return r.s.FindProjectTests(ctx, projectID)
}

// Deployments returns the project's deployments, version 1 first.
func (s *Service) Deployments(ctx context.Context, projectID string) ([]*redirects.Deployment, error) {
	if _, err := s.project(ctx, projectID, redirects.ActionRead); err != nil {
		return nil, err
	}
	return s.store.FindDeployments(ctx, projectID)
}

// Promote makes version the project's live one.
func (s *Service) Promote(ctx context.Context, projectID string, version int) (*redirects.Deployment, error) {
	if _, err := s.project(ctx, projectID, redirects.ActionDeploy); err != nil {
		return nil, err
	}
	return s.store.PromoteDeployment(ctx, projectID, version)
}

// Discard discards a staged version.
func (s *Service) Discard(ctx context.Context, projectID string, version int) error {
	if _, err := s.project(ctx, projectID, redirects.ActionDeploy); err != nil {
		return err
	}
	return s.store.DiscardDeployment(ctx, projectID, version)
}

// Version returns a deployed version and its rules.
func (s *Service) Version(ctx context.Context, projectID string, version int) (*redirects.Deployment, []redirects.Rule, error) {
	if _, err := s.project(ctx, projectID, redirects.ActionRead); err != nil {
		return nil, nil, err
	}
	return s.store.FindDeployment(ctx, projectID, version)
}

// Export returns one export file of a version, rendered again when it was
// pruned (redirects.FindExport).
func (s *Service) Export(ctx context.Context, projectID string, version int, format string) (*redirects.Deployment, *redirects.Export, error) {
	if _, err := s.project(ctx, projectID, redirects.ActionRead); err != nil {
		return nil, nil, err
	}
	return redirects.FindExport(ctx, s.store, s.builder, projectID, version, format)
}

// RuleSet returns the rules of spec of the project (safety.Load).
func (s *Service) RuleSet(ctx context.Context, projectID, spec string, emptyLive bool) (*redirects.RuleSet, error) {
	p, err := s.project(ctx, projectID, redirects.ActionRead)
	if err != nil {
		return nil, err
	}
	t, err := safety.Load(ctx, s.store, projectID, spec, emptyLive)
	if err != nil {
		return nil, err
	}
	return &redirects.RuleSet{Rules: t.Rules, Name: t.Name, Version: t.Version, Draft: t.Draft, Settings: t.Settings, Hosts: p.Hosts}, nil
}

// Tests returns the project's stored test file, "" for none.
func (s *Service) Tests(ctx context.Context, projectID string) (string, error) {
	if _, err := s.project(ctx, projectID, redirects.ActionRead); err != nil {
		return "", err
	}
	return s.store.FindProjectTests(ctx, projectID)
}

// SetTests checks and stores the project's test file; the store records
// the audit entry.
func (s *Service) SetTests(ctx context.Context, projectID, csv string) (int, error) {
	if _, err := s.project(ctx, projectID, redirects.ActionDeploy); err != nil {
		return 0, err
	}
	if csv == "" {
		return 0, redirects.Errorf(redirects.EINVALID, "the test file is empty; its first line must be the header %s",
			strings.Join(safety.CasesHeader[:3], ","))
	}
	n, err := safety.CountTests(csv)
	if err != nil {
		return 0, err
	}
	if err := s.store.SetProjectTests(ctx, projectID, csv); err != nil {
		return 0, err
	}
	return n, nil
}

// DeleteTests removes the project's test file.
func (s *Service) DeleteTests(ctx context.Context, projectID string) error {
	if _, err := s.project(ctx, projectID, redirects.ActionDeploy); err != nil {
		return err
	}
	return s.store.SetProjectTests(ctx, projectID, "")
}
