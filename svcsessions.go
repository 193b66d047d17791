package redirects

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
)

// SessionService is the service layer's sessions (see Services): signing
// in with a password, the caller's session, signing out and changing
// one's password. Each method authorizes the caller in the context,
// validates, and changes or reads the store once.
//
// Failed sign-ins are limited per account and per client address, and
// password hashing runs in a bounded pool: the dashboard and the
// management API share one counter through the service, so a guesser
// gains nothing by switching doors.
type SessionService interface {
	// SignIn checks an email address and password and starts a session of
	// the user: the session, its cookie secret (sent once, then
	// forgotten) and the user. It ends the session whose cookie secret is
	// req.Replace, a browser's earlier sign-in.
	// Errors: EUNAUTHORIZED (one message for an unknown address, a
	// disabled user and a wrong password), *SignInLimitError (past the
	// limits: nothing was checked), ErrPasswordsBusy.
	SignIn(ctx context.Context, req SignInRequest) (*SignedIn, error)
	// Whoami returns the caller's session (SessionFrom) and user.
	// Errors: ENOTFOUND (a caller without a session: a management token).
	Whoami(ctx context.Context) (*Session, *User, error)
	// SignOut ends the caller's session, at once on every node.
	// Errors: ENOTFOUND (a caller without a session).
	SignOut(ctx context.Context) error
	// ChangePassword sets the signed-in caller's password: the current
	// one, checked as a sign-in is (a wrong one counts against the
	// limits), and a new one that meets the password rules. Every session
	// of the user ends, the one-time mark (User.MustChangePassword) is
	// cleared, and a new session starts, which it returns.
	// Errors: EFORBIDDEN (a caller without a session), EUNAUTHORIZED (the
	// current password), EINVALID (the new password is the current one,
	// or breaks the rules), *SignInLimitError, ErrPasswordsBusy.
	ChangePassword(ctx context.Context, req PasswordChange) (*SignedIn, error)
}

// SignInRequest is what SignIn checks.
type SignInRequest struct {
	Email, Password string
	// Addr is the client's address (never a header's word): failures are
	// counted per address too, an IPv6 client by its /64.
	Addr string
	// Replace is the cookie secret of the browser's current session, if
	// any: a new sign-in ends it.
	Replace string
}

// PasswordChange is what ChangePassword checks and sets.
type PasswordChange struct {
	Current, New string
	// Addr is the client's address, as in SignInRequest.
	Addr string
}

// SignedIn is a session just started.
type SignedIn struct {
	Session *Session
	// Secret is the session's cookie secret, sent once.
	Secret string
	User   *User
}

// SignInLimitError is the error of a sign-in or password check past the
// failed sign-in limits: nothing was hashed.
type SignInLimitError struct {
	// Wait is how long until the next attempt may be tried.
	Wait time.Duration
}

// Error says how long to wait.
func (e *SignInLimitError) Error() string {
	return fmt.Sprintf("too many failed sign-ins for this account or from this address; try again in %d seconds", e.RetryAfter())
}

// RetryAfter is Wait in whole seconds, rounded up.
func (e *SignInLimitError) RetryAfter() int { return int(math.Ceil(e.Wait.Seconds())) }

// ErrPasswordsBusy is the error of a sign-in or password change when the
// password hashing pool and its queue are full: nothing was hashed and
// nothing counted, and the caller may try again in
// PasswordsBusyRetryAfter seconds.
var ErrPasswordsBusy = errors.New("too many passwords are being checked at once; try again in a second")

// PasswordsBusyRetryAfter is the Retry-After, in seconds, of
// ErrPasswordsBusy.
const PasswordsBusyRetryAfter = 1

type sessionKey struct{}

// WithSession returns a context that carries the caller's session: the
// doors put it next to the Principal of a caller signed in with a cookie,
// and SessionService reads it.
func WithSession(ctx context.Context, s *Session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

// SessionFrom returns the session ctx carries, or nil.
func SessionFrom(ctx context.Context) *Session {
	s, _ := ctx.Value(sessionKey{}).(*Session)
	return s
}

// SessionResolver finds the session of a cookie. It is served where the
// database is (LocalServices): the management API and the dashboard
// resolve their callers' cookies; the API's client, which authenticates
// with a management token, has none to resolve.
type SessionResolver interface {
	// FindSession returns the live session whose cookie secret is secret,
	// and its user, recording its use at most once a minute. A session
	// that expired or ended, or whose user is disabled, is none: nil, nil
	// and no error.
	FindSession(ctx context.Context, secret string) (*Session, *User, error)
}
