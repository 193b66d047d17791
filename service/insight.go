package service

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"redirects"
	"redirects/api"
)

// Insight: what the edge nodes counted (usage, hits, misses), what the
// sync agents reported, and the audit log.

var _ redirects.InsightService = (*Service)(nil)

// FindOrgUsage implements redirects.InsightService: the one answer of the
// API's usage and the dashboard's Usage page, so that the two never
// disagree.
func (s *Service) FindOrgUsage(ctx context.Context, orgID, month string) (*redirects.OrgUsage, error) {
	o, err := s.org(ctx, orgID, redirects.ActionRead)
	if err != nil {
		return nil, err
	}
	now := s.clock.Now().UTC()
	if month == "" {
		month = now.Format("2006-01")
	}
	start, err := time.Parse("2006-01", month)
	if err != nil || start.Format("2006-01") != month {
		return nil, redirects.Errorf(redirects.EINVALID, "month %q is not a month such as 2026-03", month)
	}
	counts, err := s.store.FindUsage(ctx, month)
	if err != nil {
		return nil, err
	}
	daily, err := s.store.FindDailyUsage(ctx, o.ID, month)
	if err != nil {
		return nil, err
	}
	projects, err := s.store.FindProjects(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	out := &redirects.OrgUsage{Month: month, Total: counts[o.ID], Quota: o.MonthlyQuota(), RateLimit: o.RateLimit(),
		Days: []redirects.DayCount{}, Keys: []redirects.KeyUsage{}}

	// Every day of the month up to today, zeros included.
	perDay := map[string]int64{}
	for _, u := range daily {
		perDay[u.Day] += u.Count
	}
	today := redirects.UsageDay(now)
	for d := start; d.Month() == start.Month(); d = d.AddDate(0, 0, 1) {
		day := redirects.UsageDay(d)
		if day > today {
			break
		}
		out.Days = append(out.Days, redirects.DayCount{Day: day, Count: perDay[day]})
	}

	// The keys: those with usage, then the live keys in force without.
	byID := map[string]*redirects.KeyUsage{}
	var order []string
	for _, u := range daily {
		k := byID[u.KeyID]
		if k == nil {
			k = &redirects.KeyUsage{ID: u.KeyID, Days: []redirects.DayCount{}}
			byID[u.KeyID] = k
			order = append(order, u.KeyID)
		}
		k.Count += u.Count
		k.Days = append(k.Days, redirects.DayCount{Day: u.Day, Count: u.Count})
	}
	for _, p := range projects {
		ks, err := s.store.FindKeys(ctx, p.ID)
		if err != nil {
			return nil, err
		}
		for _, key := range ks {
			k := byID[key.ID]
			if k == nil {
				if key.Test || key.RevokedAt != nil {
					continue
				}
				k = &redirects.KeyUsage{ID: key.ID, Days: []redirects.DayCount{}}
				byID[key.ID] = k
				order = append(order, key.ID)
			}
			k.ProjectID, k.Name, k.Last4 = key.ProjectID, key.Name, key.Last4
		}
	}
	for _, id := range order {
		out.Keys = append(out.Keys, *byID[id])
	}
	slices.SortStableFunc(out.Keys, func(a, b redirects.KeyUsage) int {
		switch {
		case a.Count > b.Count:
			return -1
		case a.Count < b.Count:
			return 1
		}
		return 0
	})
	return out, nil
}

// FindUsageMonths implements redirects.InsightService.
func (s *Service) FindUsageMonths(ctx context.Context, orgID string, n int) ([]redirects.MonthUsage, error) {
	o, err := s.org(ctx, orgID, redirects.ActionRead)
	if err != nil {
		return nil, err
	}
	if n < 1 || n > redirects.MaxUsageMonths {
		return nil, redirects.Errorf(redirects.EINVALID, "months: %d is not between 1 and %d", n, redirects.MaxUsageMonths)
	}
	now := s.clock.Now().UTC()
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	out := make([]redirects.MonthUsage, 0, n)
	for i := n - 1; i >= 0; i-- {
		month := first.AddDate(0, -i, 0).Format("2006-01")
		counts, err := s.store.FindUsage(ctx, month)
		if err != nil {
			return nil, err
		}
		out = append(out, redirects.MonthUsage{Month: month, Total: counts[o.ID]})
	}
	return out, nil
}

// The implementation of api.HitsOp: FindRuleHits, in the route's shape.
var _ = Implement(api.HitsOp, func(s *Service, ctx context.Context, projectID string, q api.HitsQuery) (api.Hits, error) {
	rules, hits, err := s.FindRuleHits(ctx, projectID, q.StaleSince)
	if err != nil {
		return api.Hits{}, err
	}
	return api.HitsOf(rules, hits, q.StaleSince), nil
})

// FindRuleHits returns the project's draft rules and the hits the edge
// nodes counted for them (docs/contract.md "Hits and misses"); with a
// staleSince that is not zero, only the rules not hit since then. Errors:
// ENOTFOUND (the project).
func (s *Service) FindRuleHits(ctx context.Context, projectID string, staleSince time.Time) ([]redirects.Rule, []redirects.RuleHits, error) {
	p, err := s.project(ctx, projectID, redirects.ActionRead)
	if err != nil {
		return nil, nil, err
	}
	rules, err := s.store.FindRules(ctx, p.ID)
	if err != nil {
		return nil, nil, err
	}
	hits, err := s.store.FindHits(ctx, p.ID, nil)
	if err != nil {
		return nil, nil, err
	}
	if !staleSince.IsZero() {
		rules = redirects.StaleRules(rules, hits, staleSince)
	}
	return rules, hits, nil
}

// FindMisses implements redirects.InsightService.
func (s *Service) FindMisses(ctx context.Context, projectID string, limit int) ([]redirects.Miss, error) {
	p, err := s.project(ctx, projectID, redirects.ActionRead)
	if err != nil {
		return nil, err
	}
	if limit < 1 || limit > redirects.MaxStoredMisses {
		return nil, redirects.Errorf(redirects.EINVALID, "limit %d is out of range: give 1 to %d", limit, redirects.MaxStoredMisses)
	}
	return s.store.FindMisses(ctx, p.ID, limit)
}

// DeleteMiss implements redirects.InsightService.
func (s *Service) DeleteMiss(ctx context.Context, projectID, path string) error {
	p, err := s.project(ctx, projectID, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	if path == "" {
		return redirects.Errorf(redirects.EINVALID, "the missed path to forget is missing")
	}
	return s.store.DeleteMiss(ctx, p.ID, path)
}

// AddRuleFromMiss implements redirects.InsightService.
func (s *Service) AddRuleFromMiss(ctx context.Context, r *redirects.Rule) error {
	p, err := s.project(ctx, r.ProjectID, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	if err := r.Validate(); err != nil {
		return err
	}
	if err := s.store.AddRule(ctx, r); err != nil {
		return err
	}
	if r.Revision == 0 {
		r.Revision = 1
	}
	if err := s.store.DeleteMiss(ctx, p.ID, r.Source); err != nil && redirects.ErrorCode(err) != redirects.ENOTFOUND {
		// The rule is in the draft; the miss stays listed until it is
		// forgotten. Log it rather than fail an accepted change.
		slog.Default().Error("forgetting a miss that a rule now answers", "project", p.ID, "path", r.Source, "err", err)
	}
	return nil
}

// FindAudit implements redirects.InsightService.
func (s *Service) FindAudit(ctx context.Context, f redirects.AuditFilter) ([]*redirects.AuditEntry, error) {
	if f.OrgID != "" {
		if _, err := s.org(ctx, f.OrgID, redirects.ActionRead); err != nil {
			return nil, err
		}
	}
	if f.ProjectID != "" {
		p, err := s.project(ctx, f.ProjectID, redirects.ActionRead)
		if err != nil {
			return nil, err
		}
		if f.OrgID != "" && p.OrgID != f.OrgID {
			return nil, notFound("project", f.ProjectID)
		}
	}
	if f.OrgID == "" && f.ProjectID == "" {
		if p := redirects.PrincipalFrom(ctx); !p.Local {
			return nil, redirects.Errorf(redirects.EFORBIDDEN, "reading the audit log of every organization needs the database: name an organization or a project")
		}
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if s.accounts == nil {
		return nil, redirects.Errorf(redirects.EINVALID, "users, members, tokens and the audit log need the database here: run the command with --db (the dashboard and the management API manage them remotely)")
	}
	return s.accounts.FindAudit(ctx, f)
}

// agentStore is the store's agents' side: both SQL stores keep agents'
// reports.
func (s *Service) agentStore() (redirects.AgentStore, error) {
	as := s.agents
	if as == nil {
		return nil, redirects.Errorf(redirects.EINTERNAL, "the store keeps no agents")
	}
	return as, nil
}

// FindAgents implements redirects.InsightService.
func (s *Service) FindAgents(ctx context.Context, projectID string) (int, []redirects.AgentReport, error) {
	p, err := s.project(ctx, projectID, redirects.ActionRead)
	if err != nil {
		return 0, nil, err
	}
	as, err := s.agentStore()
	if err != nil {
		return 0, nil, err
	}
	return redirects.ProjectAgents(ctx, s.store, as, p.ID)
}

// The implementation of api.AgentsOp: FindAgents, in the route's shape.
var _ = Implement(api.AgentsOp, func(s *Service, ctx context.Context, projectID string, _ api.None) (api.Agents, error) {
	live, reports, err := s.FindAgents(ctx, projectID)
	if err != nil {
		return api.Agents{}, err
	}
	return api.AgentsOf(live, reports), nil
})

// DeleteAgents implements redirects.InsightService.
func (s *Service) DeleteAgents(ctx context.Context, projectID string, f redirects.AgentFilter) (int, error) {
	p, err := s.project(ctx, projectID, redirects.ActionEditRules)
	if err != nil {
		return 0, err
	}
	if err := f.Validate(); err != nil {
		return 0, err
	}
	as, err := s.agentStore()
	if err != nil {
		return 0, err
	}
	return as.DeleteAgents(ctx, p.ID, f)
}
