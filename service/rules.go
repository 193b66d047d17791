package service

import (
	"context"

	"redirects"
	"redirects/safety"
)

var _ redirects.RuleService = (*Service)(nil)

// AddRule authorizes ActionEditRules in the rule's project and stores the
// rule, which the store validates (AddRule's audit entry is the store's).
func (s *Service) AddRule(ctx context.Context, r *redirects.Rule) error {
	if _, err := s.project(ctx, r.ProjectID, redirects.ActionEditRules); err != nil {
		return err
	}
	if err := r.Validate(); err != nil {
		return err
	}
	if err := s.store.AddRule(ctx, r); err != nil {
		return err
	}
	if r.Revision == 0 {
		// A new rule is at its first revision, which the store need not
		// read back.
		r.Revision = 1
	}
	return nil
}

// FindRule authorizes ActionRead and returns one draft rule.
func (s *Service) FindRule(ctx context.Context, projectID string, id int64) (*redirects.Rule, error) {
	p, err := s.project(ctx, projectID, redirects.ActionRead)
	if err != nil {
		return nil, err
	}
	return s.store.FindRule(ctx, p.ID, id)
}

// FindRulePage authorizes ActionRead and returns a page of draft rules with
// the hits the edge nodes counted for them.
func (s *Service) FindRulePage(ctx context.Context, projectID string, q redirects.RulePageQuery) (*redirects.RulePage, error) {
	p, err := s.project(ctx, projectID, redirects.ActionRead)
	if err != nil {
		return nil, err
	}
	page, err := s.store.FindRulePage(ctx, p.ID, q)
	if err != nil {
		return nil, err
	}
	sources := make([]string, len(page.Rules))
	for i := range page.Rules {
		sources[i] = page.Rules[i].Source
	}
	if page.Hits, err = s.store.FindHits(ctx, p.ID, sources); err != nil {
		return nil, err
	}
	return page, nil
}

// FindDraft authorizes ActionRead and returns the project and its draft.
func (s *Service) FindDraft(ctx context.Context, projectID string) (*redirects.Project, []redirects.Rule, error) {
	p, err := s.project(ctx, projectID, redirects.ActionRead)
	if err != nil {
		return nil, nil, err
	}
	rules, err := s.store.FindRules(ctx, p.ID)
	if err != nil {
		return nil, nil, err
	}
	return p, rules, nil
}

// UpdateRule authorizes ActionEditRules and changes a draft rule.
func (s *Service) UpdateRule(ctx context.Context, projectID string, id int64, u redirects.RuleUpdate) (*redirects.Rule, error) {
	p, err := s.project(ctx, projectID, redirects.ActionEditRules)
	if err != nil {
		return nil, err
	}
	if u.Empty() {
		return nil, redirects.Errorf(redirects.EINVALID, "an update needs at least one of source, destination, statusCode, matchType, priority, preservePath, preserveQuery, host, queryAfterFragment, mergeQuery, exceptHosts")
	}
	if u.Revision < 0 {
		return nil, redirects.Errorf(redirects.EINVALID, "revision %d is not a positive whole number", u.Revision)
	}
	return s.store.UpdateRule(ctx, p.ID, id, u)
}

// DeleteRule authorizes ActionEditRules and deletes a draft rule.
func (s *Service) DeleteRule(ctx context.Context, projectID string, id, revision int64) error {
	p, err := s.project(ctx, projectID, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	if revision < 0 {
		return redirects.Errorf(redirects.EINVALID, "revision %d is not a positive whole number", revision)
	}
	return s.store.DeleteRuleRevision(ctx, p.ID, id, revision)
}

// DeleteRules authorizes ActionEditRules and deletes every draft rule f
// selects.
func (s *Service) DeleteRules(ctx context.Context, projectID string, f redirects.RuleFilter) (int, error) {
	p, err := s.project(ctx, projectID, redirects.ActionEditRules)
	if err != nil {
		return 0, err
	}
	if err := f.Validate(); err != nil {
		return 0, err
	}
	return s.store.DeleteRules(ctx, p.ID, f)
}

// FlattenChains authorizes ActionRead (ActionEditRules with opts.Write)
// and computes the rewrites of the draft (safety.FlattenChains, under the
// project's settings and hosts). With opts.Write the store reads the draft
// in the transaction that saves the rewrites (Store.RewriteDraft), one
// upsert of the rewritten rules recorded as rule.flatten_chains and kept
// for UndoImport; without, it reads the draft as FindRules does.
func (s *Service) FlattenChains(ctx context.Context, projectID string, opts redirects.FlattenOptions) (*redirects.FlattenReport, error) {
	action := redirects.ActionRead
	if opts.Write {
		action = redirects.ActionEditRules
	}
	p, err := s.project(ctx, projectID, action)
	if err != nil {
		return nil, err
	}
	rep := &redirects.FlattenReport{}
	// flatten fills rep from project q and its draft, and returns the
	// rewritten rules.
	flatten := func(q *redirects.Project, rules []redirects.Rule) []redirects.Rule {
		hosts := opts.Hosts
		if len(hosts) == 0 {
			hosts = q.Hosts
		}
		rep.Fixes, rep.Left = safety.FlattenChains(rules, safety.LintOptions{Settings: q.Settings, Hosts: hosts})
		batch := make([]redirects.Rule, len(rep.Fixes))
		for k := range rep.Fixes {
			batch[k] = rep.Fixes[k].Rule
			batch[k].Destination = rep.Fixes[k].Destination
		}
		return batch
	}
	if !opts.Write {
		rules, err := s.store.FindRules(ctx, p.ID)
		if err != nil {
			return nil, err
		}
		flatten(p, rules)
		return rep, nil
	}
	ir, err := s.store.RewriteDraft(ctx, p.ID, func(q *redirects.Project, draft []redirects.Rule) ([]redirects.Rule, error) {
		return flatten(q, draft), nil
	}, redirects.ImportOptions{Mode: redirects.ImportUpsert, Action: redirects.AuditRuleFlatten})
	if err != nil {
		return nil, err
	}
	if len(rep.Fixes) > 0 {
		rep.Written, rep.UndoID = true, ir.UndoID
	}
	return rep, nil
}
