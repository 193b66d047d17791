package service

import (
	"context"
	"time"

	"redirects"
)

var _ redirects.KeyService = (*Service)(nil)

// CreateKey creates an edge API key and returns it with its secret.
func (s *Service) CreateKey(ctx context.Context, projectID, name string, test bool) (*redirects.Key, string, error) {
	p, err := s.project(ctx, projectID, redirects.ActionManageKeys)
	if err != nil {
		return nil, "", err
	}
	k, secret := redirects.NewKey(p.ID, name, test, s.clock.Now())
	if err := k.Validate(); err != nil {
		return nil, "", err
	}
	if err := s.store.CreateKey(ctx, k); err != nil {
		return nil, "", err
	}
	return k, secret, nil
}

// FindKeys returns a project's keys and the last day each was used.
func (s *Service) FindKeys(ctx context.Context, projectID string) (*redirects.KeyList, error) {
	p, err := s.project(ctx, projectID, redirects.ActionRead)
	if err != nil {
		return nil, err
	}
	ks, err := s.store.FindKeys(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	last, err := s.keysLastUsed(ctx, p.OrgID)
	if err != nil {
		return nil, err
	}
	return &redirects.KeyList{Keys: ks, LastUsed: last}, nil
}

// keysLastUsed returns, by key ID, the last UTC day ("2006-01-02") of the
// current or previous month on which each key of organization orgID had
// usage counted: the daily usage is kept by organization and month, and
// two months are enough for a key list to tell a live key from a dead one
// on the first days of a month.
func (s *Service) keysLastUsed(ctx context.Context, orgID string) (map[string]string, error) {
	now := s.clock.Now().UTC()
	this := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	last := map[string]string{}
	for _, m := range []time.Time{this.AddDate(0, -1, 0), this} {
		daily, err := s.store.FindDailyUsage(ctx, orgID, m.Format("2006-01"))
		if err != nil {
			return nil, err
		}
		for _, u := range daily {
			if u.Count > 0 && u.Day > last[u.KeyID] {
				last[u.KeyID] = u.Day
			}
		}
	}
	return last, nil
}

// RevokeKey revokes a key by its ID or full secret.
func (s *Service) RevokeKey(ctx context.Context, projectID, ref string) (*redirects.Key, bool, error) {
	p, err := s.project(ctx, projectID, redirects.ActionManageKeys)
	if err != nil {
		return nil, false, err
	}
	if ref == "" {
		return nil, false, redirects.Errorf(redirects.EINVALID, "key is required: the key's ID (key_...) or the full key (redir_live_... or redir_test_...)")
	}
	// The store answers a revoked key as it is, so whether this call
	// revoked it is read before: by ID, which is all the store's answer
	// names when ref is a secret.
	before, err := s.store.FindKeys(ctx, p.ID)
	if err != nil {
		return nil, false, err
	}
	k, err := s.store.RevokeKey(ctx, p.ID, ref)
	if err != nil {
		return nil, false, err
	}
	for _, b := range before {
		if b.ID == k.ID && b.RevokedAt != nil {
			return k, false, nil
		}
	}
	return k, true, nil
}
