package service

import (
	"context"

	"redirects"
)

var _ redirects.OrgService = (*Service)(nil)

// Orgs returns the organizations the caller may read, oldest first.
func (s *Service) Orgs(ctx context.Context) ([]*redirects.Org, error) {
	all, err := s.store.FindOrgs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]*redirects.Org, 0, len(all))
	for _, o := range all {
		if authorize(ctx, o.ID, redirects.ActionRead) == nil {
			out = append(out, o)
		}
	}
	return out, nil
}

// CreateOrg creates an organization: operators.
func (s *Service) CreateOrg(ctx context.Context, o *redirects.Org) error {
	if err := authorize(ctx, "", redirects.ActionManageOrgs); err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return err
	}
	return s.store.CreateOrg(ctx, o)
}

// Org returns an organization the caller may read.
func (s *Service) Org(ctx context.Context, id string) (*redirects.Org, error) {
	return s.org(ctx, id, redirects.ActionRead)
}

// UpdateOrg changes an organization's name, tier and limit overrides:
// operators.
func (s *Service) UpdateOrg(ctx context.Context, id string, u redirects.OrgUpdate) (*redirects.Org, error) {
	if _, err := s.org(ctx, id, redirects.ActionManageOrgs); err != nil {
		return nil, err
	}
	if u == (redirects.OrgUpdate{}) {
		return nil, redirects.Errorf(redirects.EINVALID, "an update needs at least one of name, tier, rateLimit, monthlyQuota")
	}
	return s.store.UpdateOrg(ctx, id, u)
}

// DeleteOrg deletes an organization with its projects, its name typed
// back: operators.
func (s *Service) DeleteOrg(ctx context.Context, id, confirm string) error {
	o, err := s.org(ctx, id, redirects.ActionManageOrgs)
	if err != nil {
		return err
	}
	if err := redirects.ConfirmName("organization", o.ID, o.Name, confirm); err != nil {
		return err
	}
	return s.store.DeleteOrg(ctx, o.ID)
}
