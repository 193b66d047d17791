package service

import (
	"context"
	"strings"
	"time"

	"redirects"
)

var _ redirects.SessionService = (*Service)(nil)

// DefaultSessionTTL is how long a sign-in lasts unless Deps says.
const DefaultSessionTTL = 12 * time.Hour

// sessionTouchInterval is how stale a session's LastSeenAt may grow, so a
// busy dashboard does not write to the database on every request.
const sessionTouchInterval = time.Minute

// SignIn checks an email address and password, within the failed sign-in
// limits, and starts a session.
func (s *Service) SignIn(ctx context.Context, req redirects.SignInRequest) (*redirects.SignedIn, error) {
	email, err := redirects.NormalizeEmail(req.Email)
	if err != nil {
		// A malformed address names no account, but counts against the
		// client like any other failure.
		email = strings.ToLower(strings.TrimSpace(req.Email))
	}
	if wait := s.logins.Blocked(email, req.Addr); wait > 0 {
		return nil, &redirects.SignInLimitError{Wait: wait}
	}
	var u *redirects.User
	if err == nil {
		u, err = s.accounts.FindUserByEmail(ctx, email)
		if redirects.ErrorCode(err) == redirects.ENOTFOUND {
			u = nil
		} else if err != nil {
			return nil, err
		}
	}
	ok, err := s.logins.Verify(ctx, email, req.Addr, func() bool { return redirects.CheckLogin(u, req.Password) == nil })
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, redirects.Errorf(redirects.EUNAUTHORIZED, "the email address or password is wrong")
	}
	// A sign-in from a browser that holds another session ends that one.
	if old, _, err := s.FindSession(ctx, req.Replace); err == nil && old != nil {
		s.accounts.DeleteSession(ctx, old.ID)
	}
	return s.startSession(ctx, u)
}

// startSession starts a session of user u.
func (s *Service) startSession(ctx context.Context, u *redirects.User) (*redirects.SignedIn, error) {
	sess, secret := redirects.NewSession(u.ID, s.clock.Now(), s.ttl)
	if err := s.accounts.CreateSession(ctx, sess); err != nil {
		return nil, err
	}
	return &redirects.SignedIn{Session: sess, Secret: secret, User: u}, nil
}

// FindSession returns the live session of a cookie secret and its user,
// or nil, nil. The API and the dashboard both authenticate cookies with
// it, so a sign-in, a sign-out or a disabled user takes effect on both at
// once.
func (s *Service) FindSession(ctx context.Context, secret string) (*redirects.Session, *redirects.User, error) {
	if secret == "" || len(secret) > 2*redirects.SessionSecretLength || s.accounts == nil {
		return nil, nil, nil
	}
	sess, err := s.accounts.FindSessionByHash(ctx, redirects.HashSessionSecret(secret))
	if redirects.ErrorCode(err) == redirects.ENOTFOUND {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, err
	}
	now := s.clock.Now()
	if !sess.Active(now) {
		return nil, nil, nil
	}
	u, err := s.accounts.FindUserByID(ctx, sess.UserID)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND {
		return nil, nil, nil
	} else if err != nil {
		return nil, nil, err
	}
	if u.Disabled() {
		return nil, nil, nil
	}
	if now.Sub(sess.LastSeenAt) >= sessionTouchInterval {
		if err := s.accounts.TouchSession(ctx, sess.ID); err != nil && redirects.ErrorCode(err) != redirects.ENOTFOUND {
			return nil, nil, err
		}
	}
	return sess, u, nil
}

// Whoami returns the caller's session and user.
func (s *Service) Whoami(ctx context.Context) (*redirects.Session, *redirects.User, error) {
	sess := redirects.SessionFrom(ctx)
	if sess == nil {
		return nil, nil, redirects.Errorf(redirects.ENOTFOUND, "a management token has no session")
	}
	u, err := s.sessionUser(ctx, sess)
	if err != nil {
		return nil, nil, err
	}
	return sess, u, nil
}

// sessionUser returns the user of the caller's session sess; one who is
// gone or disabled is signed out.
func (s *Service) sessionUser(ctx context.Context, sess *redirects.Session) (*redirects.User, error) {
	u, err := s.accounts.FindUserByID(ctx, sess.UserID)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND || err == nil && u.Disabled() {
		return nil, redirects.Errorf(redirects.EUNAUTHORIZED, "the session has ended: sign in again")
	} else if err != nil {
		return nil, err
	}
	return u, nil
}

// SignOut ends the caller's session.
func (s *Service) SignOut(ctx context.Context) error {
	sess := redirects.SessionFrom(ctx)
	if sess == nil {
		return redirects.Errorf(redirects.ENOTFOUND, "a management token has no session to end; revoke the token instead")
	}
	return s.accounts.DeleteSession(ctx, sess.ID)
}

// ChangePassword checks the caller's current password and sets a new one.
func (s *Service) ChangePassword(ctx context.Context, req redirects.PasswordChange) (*redirects.SignedIn, error) {
	sess := redirects.SessionFrom(ctx)
	if sess == nil {
		return nil, redirects.Errorf(redirects.EFORBIDDEN, "a management token cannot change a password: sign in with the password (POST /manage/v1/session) instead")
	}
	u, err := s.sessionUser(ctx, sess)
	if err != nil {
		return nil, err
	}
	// A wrong current password is a failed sign-in: it counts against the
	// account's and the address's limits, and past them even the right
	// one is refused for now, so a stolen session cannot guess faster than
	// the sign-in form lets anyone.
	ok, err := s.logins.Verify(ctx, u.Email, req.Addr, func() bool { return redirects.VerifyPassword(u.PasswordHash, req.Current) })
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, redirects.Errorf(redirects.EUNAUTHORIZED, "the current password is wrong")
	}
	if req.New == req.Current {
		return nil, redirects.Errorf(redirects.EINVALID, "newPassword is the current password: choose another")
	}
	if err := redirects.CheckPasswordRules(req.New); err != nil {
		return nil, err
	}
	hash, err := s.logins.Hash(ctx, req.New)
	if err != nil {
		return nil, err
	}
	if err := s.accounts.SetUserPassword(ctx, u.ID, hash); err != nil {
		return nil, err
	}
	changed := *u
	changed.PasswordHash, changed.MustChangePassword = hash, false
	return s.startSession(ctx, &changed)
}
