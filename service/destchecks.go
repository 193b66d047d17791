package service

import (
	"cmp"
	"context"
	"slices"
	"time"

	"redirects"
)

// checkStore returns the store of destination checks.
func (s *Service) checkStore() (redirects.CheckStore, error) {
	if s.checks == nil {
		return nil, redirects.Errorf(redirects.EINTERNAL, "the store keeps no destination checks")
	}
	return s.checks, nil
}

// CheckDestinations implements redirects.CheckService: ActionEditRules,
// the live version's distinct destinations requested through the
// checker, the results stored at once when every one is done.
func (s *Service) CheckDestinations(ctx context.Context, projectID string, opts redirects.CheckOptions) (*redirects.CheckReport, error) {
	p, err := s.project(ctx, projectID, redirects.ActionEditRules)
	if err != nil {
		return nil, err
	}
	cs, err := s.checkStore()
	if err != nil {
		return nil, err
	}
	if s.checker == nil {
		return nil, redirects.Errorf(redirects.EINTERNAL, "this process does not check destinations")
	}
	base, err := redirects.CheckBaseURL(opts.BaseURL, p.Hosts)
	if err != nil {
		return nil, err
	}
	if p.LiveVersion == 0 {
		return nil, redirects.Errorf(redirects.EINVALID, "project %q has no live version to check: deploy first", p.ID)
	}
	_, rules, err := s.store.FindDeployment(ctx, p.ID, p.LiveVersion)
	if err != nil {
		return nil, err
	}
	targets, skipped := redirects.CheckTargets(rules, base)
	projectURL := ""
	if len(p.Hosts) > 0 {
		projectURL = "https://" + p.Hosts[0]
	}
	checks, err := s.checker.Check(ctx, targets, projectURL)
	if err != nil {
		return nil, err
	}
	broke, err := cs.RecordDestinationChecks(ctx, p.ID, checks, skipped)
	if err != nil {
		return nil, err
	}
	return &redirects.CheckReport{Checks: checks, Skipped: skipped, NewlyBroken: broke}, nil
}

// FindDestinationChecks implements redirects.CheckService: ActionRead,
// broken destinations first.
func (s *Service) FindDestinationChecks(ctx context.Context, projectID string) ([]redirects.DestinationCheck, error) {
	p, err := s.project(ctx, projectID, redirects.ActionRead)
	if err != nil {
		return nil, err
	}
	cs, err := s.checkStore()
	if err != nil {
		return nil, err
	}
	out, err := cs.FindDestinationChecks(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	SortChecks(out)
	return out, nil
}

// SortChecks orders results as they are listed: broken destinations
// first, then those that lead off-site or were refused, then the rest,
// each group by destination.
func SortChecks(cs []redirects.DestinationCheck) {
	rank := func(d *redirects.DestinationCheck) int {
		switch {
		case d.Broken():
			return 0
		case d.Outcome == redirects.CheckOffsite, d.Outcome == redirects.CheckRefused:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(cs, func(a, b redirects.DestinationCheck) int {
		return cmp.Or(cmp.Compare(rank(&a), rank(&b)), cmp.Compare(a.Destination, b.Destination))
	})
}

// CheckLease bounds a scheduled check's hold on a project: a node that
// stops mid-check leaves the project to another node after it.
const CheckLease = time.Hour

// RunScheduledChecks checks every project with a live version whose
// scheduled check is due (its last one started at least every ago) and
// whose lease owner gets (serve --check-destinations-every): of the nodes
// of a cluster, one checks a project at a time. It runs as the service
// itself (the system actor in the audit log) and calls done after each
// project's check. It returns the first error of listing the projects or
// the context's.
func (s *Service) RunScheduledChecks(ctx context.Context, owner string, every time.Duration, done func(projectID string, rep *redirects.CheckReport, err error)) error {
	cs, err := s.checkStore()
	if err != nil {
		return err
	}
	ps, err := s.store.FindProjects(ctx, "")
	if err != nil {
		return err
	}
	ctx = redirects.WithActor(redirects.WithPrincipal(ctx, redirects.LocalPrincipal()), redirects.Actor{Kind: redirects.ActorSystem, Label: "scheduled destination check"})
	for _, p := range ps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if p.LiveVersion == 0 || len(p.Hosts) == 0 {
			continue // nothing to check, or no base URL to check against
		}
		ok, err := cs.ClaimDestinationCheck(ctx, p.ID, owner, every, CheckLease)
		if err != nil {
			done(p.ID, nil, err)
			continue
		}
		if !ok {
			continue
		}
		rep, err := s.CheckDestinations(ctx, p.ID, redirects.CheckOptions{})
		done(p.ID, rep, err)
		if err := cs.ReleaseDestinationCheck(context.WithoutCancel(ctx), p.ID, owner); err != nil {
			done(p.ID, nil, err)
		}
	}
	return nil
}
