package service

import (
	"context"
	"strings"

	"redirects"
)

var _ redirects.TokenService = (*Service)(nil)

// CreateToken creates a management token of the caller's, or of the
// request's User on the command line.
func (s *Service) CreateToken(ctx context.Context, req redirects.TokenRequest) (*redirects.ManagementToken, string, error) {
	if err := s.tokenStore(); err != nil {
		return nil, "", err
	}
	// Read access first, so that an organization the caller has no role
	// in is not found before the request is looked at.
	if err := authorize(ctx, req.OrgID, redirects.ActionRead); err != nil {
		if redirects.ErrorCode(err) == redirects.ENOTFOUND {
			return nil, "", notFound("organization", req.OrgID)
		}
		return nil, "", err
	}
	role, err := redirects.ParseRole(string(req.Role))
	if err != nil {
		return nil, "", err
	}
	o, err := s.org(ctx, req.OrgID, redirects.CreateTokenAction(role))
	if err != nil {
		return nil, "", err
	}
	if req.TTL < 0 {
		return nil, "", redirects.Errorf(redirects.EINVALID, "a token's lifetime %s is not above zero", req.TTL)
	}
	createdBy := ""
	switch a := redirects.ActorFrom(ctx); {
	case req.User != "":
		if !redirects.PrincipalFrom(ctx).Local {
			return nil, "", redirects.Errorf(redirects.EFORBIDDEN, "a token is created for another user on the command line run against the database only")
		}
		u, err := s.tokenUser(ctx, req.User)
		if err != nil {
			return nil, "", err
		}
		ms, err := s.accounts.FindMemberships(ctx, u.ID)
		if err != nil {
			return nil, "", err
		}
		if err := redirects.Authorize(redirects.UserPrincipal(u, ms), o.ID, redirects.CreateTokenAction(role)); err != nil {
			return nil, "", redirects.Errorf(redirects.ErrorCode(err), "%s: %s", u.Email, redirects.ErrorMessage(err))
		}
		createdBy = u.ID
	case a.Kind == redirects.ActorUser:
		createdBy = a.ID
	}
	t, secret := redirects.NewManagementToken(o.ID, role, req.Label, createdBy, s.clock.Now(), req.TTL)
	if err := t.Validate(); err != nil {
		return nil, "", err
	}
	if err := s.accounts.CreateToken(ctx, t); err != nil {
		return nil, "", err
	}
	return t, secret, nil
}

// tokenUser finds the user a token is created for, by ID ("usr_...") or
// email address.
func (s *Service) tokenUser(ctx context.Context, ref string) (*redirects.User, error) {
	if strings.HasPrefix(ref, "usr_") {
		return s.accounts.FindUserByID(ctx, ref)
	}
	return s.accounts.FindUserByEmail(ctx, ref)
}

// FindTokens returns an organization's tokens, each with its creator.
func (s *Service) FindTokens(ctx context.Context, orgID string) ([]*redirects.ListedToken, error) {
	if err := s.tokenStore(); err != nil {
		return nil, err
	}
	o, err := s.org(ctx, orgID, redirects.ActionRead)
	if err != nil {
		return nil, err
	}
	ts, err := s.accounts.FindTokens(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	// Creators are named by email; the tokens of one organization have
	// few. Users are disabled, never deleted, so each is found; one that
	// is not is named by its ID.
	emails := map[string]string{}
	out := make([]*redirects.ListedToken, 0, len(ts))
	for _, t := range ts {
		if _, ok := emails[t.CreatedBy]; t.CreatedBy != "" && !ok {
			emails[t.CreatedBy] = t.CreatedBy
			if u, err := s.accounts.FindUserByID(ctx, t.CreatedBy); err == nil {
				emails[t.CreatedBy] = u.Email
			}
		}
		out = append(out, &redirects.ListedToken{ManagementToken: t, Creator: emails[t.CreatedBy]})
	}
	return out, nil
}

// RevokeToken revokes a token by its ID or full secret: any, for an
// owner; the caller's own, for any member.
func (s *Service) RevokeToken(ctx context.Context, orgID, ref string) (*redirects.ManagementToken, bool, error) {
	if err := s.tokenStore(); err != nil {
		return nil, false, err
	}
	o, err := s.org(ctx, orgID, redirects.ActionRead)
	if err != nil {
		return nil, false, err
	}
	if redirects.WellFormedManagementToken(ref) {
		// A full token names itself; the error never repeats it.
		t, err := s.accounts.FindTokenByHash(ctx, redirects.HashKey(ref))
		if redirects.ErrorCode(err) == redirects.ENOTFOUND {
			return nil, false, redirects.Errorf(redirects.ENOTFOUND, "the token ending in %q is not an active management token", ref[len(ref)-4:])
		} else if err != nil {
			return nil, false, err
		}
		ref = t.ID
	}
	ts, err := s.accounts.FindTokens(ctx, o.ID)
	if err != nil {
		return nil, false, err
	}
	var before *redirects.ManagementToken
	for _, t := range ts {
		if t.ID == ref {
			before = t
		}
	}
	if before == nil {
		// The store's words for a token of another organization too.
		return nil, false, redirects.Errorf(redirects.ENOTFOUND, "token %q is not a management token of organization %s", ref, o.ID)
	}
	if err := authorize(ctx, o.ID, tokenRevokeAction(ctx, before)); err != nil {
		return nil, false, err
	}
	t, err := s.accounts.RevokeToken(ctx, o.ID, before.ID)
	if err != nil {
		return nil, false, err
	}
	return t, before.RevokedAt == nil, nil
}

// tokenRevokeAction is the action revoking token t needs of the caller in
// ctx: ActionRead for the user who created it, ActionManageTokens for
// anyone else.
func tokenRevokeAction(ctx context.Context, t *redirects.ManagementToken) redirects.Action {
	if a := redirects.ActorFrom(ctx); a.Kind == redirects.ActorUser && t.CreatedBy != "" && a.ID == t.CreatedBy {
		return redirects.ActionRead
	}
	return redirects.ActionManageTokens
}

// tokenStore returns an error when the service runs on a store that keeps
// no accounts, where tokens are not.
func (s *Service) tokenStore() error {
	if s.accounts == nil {
		return redirects.Errorf(redirects.EINVALID, "management tokens need the database's accounts, which this store does not keep")
	}
	return nil
}
