package service

import (
	"context"
	"time"

	"redirects"
	"redirects/engine"
)

// The deploy pipeline, written once for every store over its
// redirects.DeployTx and run with a gate in the deploy's write
// transaction. Service.Deploy (deploys.go) is the entry everything that
// deploys rules a person wrote goes through.

// DeployCheck is what a DeployGate sees of a deploy, read in the deploy's
// write transaction: the project as stored (its hosts, its shrink limit),
// the options, and the rules the deploy will write, in the order of
// engine.SortRules. Reader reads the rest (the live rules, the stored test file)
// in the same transaction.
type DeployCheck struct {
	Project *redirects.Project
	Options redirects.DeployOptions
	// Rules are the rules the deploy writes; the gate must not change them.
	Rules  []redirects.Rule
	Reader redirects.DeployReader
}

// DeployGate checks a deploy in its write transaction, after the rules are
// read and sorted and before anything is rendered or written. It returns
// the override the deploy goes past, which the deploy's audit entry
// records, or an error, which stops the deploy with nothing written.
// Service.Deploy runs safety.Gate as one; a rule changed after the check
// waits for the deploy's lock and goes live only with the next deploy,
// which checks it again.
type DeployGate func(ctx context.Context, c *DeployCheck) (redirects.DeployOverride, error)

// deploy is the one deploy: in s's write transaction it reads the rules to
// deploy (the draft, or opts.FromVersion's), runs gate on them, renders
// them with build and stores them as the project's next version (see
// DeployInTx). Errors: ENOTFOUND (project or version), EINVALID, and
// whatever gate and build return.
func deploy(ctx context.Context, s redirects.DeployStore, projectID string, opts redirects.DeployOptions, build redirects.Builder, gate DeployGate) (*redirects.Deployment, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	var d *redirects.Deployment
	err := s.WithDeployTx(ctx, func(tx redirects.DeployTx) error {
		var err error
		d, err = DeployInTx(ctx, tx, projectID, opts, build, gate)
		return err
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// DeployUnchecked is a deploy without a gate and without a caller to
// authorize: it deploys what it reads, with opts.Override recorded as
// given. It is for tests of the stores, for benchmarks and for the
// quickstart's first deploy of rules it wrote itself; everything that
// deploys rules a person wrote goes through Service.Deploy.
func DeployUnchecked(ctx context.Context, s redirects.DeployStore, projectID string, opts redirects.DeployOptions, build redirects.Builder) (*redirects.Deployment, error) {
	return deploy(ctx, s, projectID, opts, build, func(_ context.Context, c *DeployCheck) (redirects.DeployOverride, error) {
		return c.Options.Override, nil
	})
}

// DeployInTx is a deploy inside a store's open write transaction tx, which
// the caller commits: it reads the project and the rules to deploy, sorts
// them (engine.SortRules), runs gate on them, makes the release (see NewRelease)
// at the store's time, stores it and records its audit entry, with the
// override gate returned, and the actor in ctx. A gate or builder error is
// returned as it is.
func DeployInTx(ctx context.Context, tx redirects.DeployTx, projectID string, opts redirects.DeployOptions, build redirects.Builder, gate DeployGate) (*redirects.Deployment, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if gate == nil {
		return nil, redirects.Errorf(redirects.EINTERNAL, "deploy: no gate (DeployUnchecked deploys without one)")
	}
	p, err := tx.FindProject(ctx, projectID)
	if err != nil {
		return nil, err
	}
	if p.RequireStage && !opts.Stage {
		return nil, redirects.RequireStageError(projectID)
	}
	rules, settings, err := tx.FindRules(ctx, projectID, opts.FromVersion)
	if err != nil {
		return nil, err
	}
	engine.SortRules(rules)
	if opts.Override, err = gate(ctx, &DeployCheck{Project: p, Options: opts, Rules: rules, Reader: tx}); err != nil {
		return nil, err
	}
	// The draft's settings go live with its rules, a version's with its
	// own when it is deployed again (docs/contract.md#rule-options).
	r, err := NewRelease(projectID, opts, rules, settings, build, tx.Now())
	if err != nil {
		return nil, err
	}
	if err := tx.InsertRelease(ctx, p.OrgID, r); err != nil {
		return nil, err
	}
	if err := tx.RecordAudit(ctx, redirects.DeployAuditEntry(ctx, p, &r.Deployment)); err != nil {
		return nil, err
	}
	return &r.Deployment, nil
}

// NewRelease is the part of a deploy that needs no database. It sorts rules
// in place in the order of engine.SortRules (one pass when DeployInTx sorted them
// already); encodes the snapshot before
// build sees them, so a builder that reorders or edits its slice cannot
// change what is stored; counts the rules of each match type; and renders
// the exports with build (see redirects.Render). A builder error is returned as
// it is. The files of a builder that renders them one at a time
// (redirects.DeployContent.Each) are rendered when the store writes them
// (redirects.Release.EachExport), one after the other.
func NewRelease(projectID string, opts redirects.DeployOptions, rules []redirects.Rule, settings redirects.Settings, build redirects.Builder, now time.Time) (*redirects.Release, error) {
	if build == nil {
		return nil, redirects.Errorf(redirects.EINTERNAL, "deploy: no builder")
	}
	engine.SortRules(rules)
	r := &redirects.Release{
		Deployment: redirects.Deployment{ProjectID: projectID, CreatedAt: now, Message: opts.Message, FromVersion: opts.FromVersion,
			Override: opts.Override, Settings: settings, Staged: opts.Stage},
		Snapshot: engine.EncodeRules(rules),
	}
	for i := range rules {
		switch rules[i].MatchType {
		case redirects.Exact:
			r.Deployment.ExactCount++
		case redirects.StartsWith:
			r.Deployment.PrefixCount++
		case redirects.Pattern:
			r.Deployment.PatternCount++
		case redirects.Regex:
			r.Deployment.RegexCount++
		}
	}
	content, err := redirects.Render(rules, settings, build)
	if err != nil {
		return nil, err
	}
	r.Deployment.Report, r.Exports, r.Each = content.Report, content.Exports, content.Each
	return r, nil
}
