package service

import (
	"context"
	"strings"

	"redirects"
)

var _ redirects.UserService = (*Service)(nil)

// userAdmin authorizes the management of users and returns the account store.
func (s *Service) userAdmin(ctx context.Context) (redirects.AccountStore, error) {
	if err := authorize(ctx, "", redirects.ActionManageUsers); err != nil {
		return nil, err
	}
	return s.memberAccounts()
}

// userByRef finds a user by ID ("usr_...") or email address.
func userByRef(ctx context.Context, a redirects.AccountStore, ref string) (*redirects.User, error) {
	if strings.HasPrefix(ref, "usr_") {
		return a.FindUserByID(ctx, ref)
	}
	return a.FindUserByEmail(ctx, ref)
}

// Users returns every user, oldest first.
func (s *Service) Users(ctx context.Context) ([]*redirects.User, error) {
	a, err := s.userAdmin(ctx)
	if err != nil {
		return nil, err
	}
	return a.FindUsers(ctx)
}

// CreateUser creates a user.
func (s *Service) CreateUser(ctx context.Context, u *redirects.User) error {
	a, err := s.userAdmin(ctx)
	if err != nil {
		return err
	}
	return a.CreateUser(ctx, u)
}

// DisableUser disables a user, unless they are disabled already.
func (s *Service) DisableUser(ctx context.Context, user string) (*redirects.User, bool, error) {
	a, err := s.userAdmin(ctx)
	if err != nil {
		return nil, false, err
	}
	u, err := userByRef(ctx, a, user)
	if err != nil {
		return nil, false, err
	}
	if u.Disabled() {
		return u, true, nil
	}
	if u, err = a.DisableUser(ctx, u.ID); err != nil {
		return nil, false, err
	}
	return u, false, nil
}

// SetUserPassword replaces a user's password hash, and with mustChange
// asks for another at their next sign-in.
func (s *Service) SetUserPassword(ctx context.Context, user, passwordHash string, mustChange bool) (*redirects.User, error) {
	a, err := s.userAdmin(ctx)
	if err != nil {
		return nil, err
	}
	u, err := userByRef(ctx, a, user)
	if err != nil {
		return nil, err
	}
	if err := a.SetUserPassword(ctx, u.ID, passwordHash); err != nil {
		return nil, err
	}
	if mustChange {
		if err := a.RequirePasswordChange(ctx, u.ID); err != nil {
			return nil, err
		}
	}
	return u, nil
}
