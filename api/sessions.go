package api

import (
	"time"

	"redirects"
)

// User is a user as the management API shows one.
type User struct {
	ID       string `json:"id"`
	Email    string `json:"email"`
	Operator bool   `json:"operator"`
}

// UserOf is u as the API shows it.
func UserOf(u *redirects.User) User {
	return User{ID: u.ID, Email: u.Email, Operator: u.Operator}
}

// UserRow is the command line's user list --json element: a user with
// their state, never the password hash. Times are RFC 3339 in the
// database's own zone, as the table beside it prints them.
type UserRow struct {
	ID         string  `json:"id"`
	Email      string  `json:"email"`
	Operator   bool    `json:"operator"`
	Disabled   bool    `json:"disabled"`
	CreatedAt  string  `json:"createdAt"`
	DisabledAt *string `json:"disabledAt"`
}

// UserRowOf is u as the user list shows it.
func UserRowOf(u *redirects.User) UserRow {
	j := UserRow{ID: u.ID, Email: u.Email, Operator: u.Operator, Disabled: u.Disabled(), CreatedAt: u.CreatedAt.Format(time.RFC3339)}
	if u.DisabledAt != nil {
		at := u.DisabledAt.Format(time.RFC3339)
		j.DisabledAt = &at
	}
	return j
}

// Session answers a sign-in, GET /session and a password change: the
// signed-in user and the CSRF token that state-changing requests made
// with the session cookie carry.
type Session struct {
	User      User   `json:"user"`
	CSRFToken string `json:"csrfToken"`
	ExpiresAt string `json:"expiresAt"`
	// MustChangePassword is set while the user's password is a one-time
	// password: POST /session/password sets their own.
	MustChangePassword bool `json:"mustChangePassword"`
}

// SessionOf is session s of user u as the API shows it.
func SessionOf(s *redirects.Session, u *redirects.User) Session {
	return Session{User: UserOf(u), CSRFToken: s.CSRFToken, ExpiresAt: accessTime(s.ExpiresAt), MustChangePassword: u.MustChangePassword}
}

// Domain is the session and user j shows; the cookie secret is not in it.
func (j *Session) Domain() (*redirects.Session, *redirects.User) {
	u := &redirects.User{ID: j.User.ID, Email: j.User.Email, Operator: j.User.Operator, MustChangePassword: j.MustChangePassword}
	return &redirects.Session{UserID: u.ID, CSRFToken: j.CSRFToken, ExpiresAt: parseAccessTime(j.ExpiresAt)}, u
}

// SignInRequest is the body of POST /session.
type SignInRequest struct {
	Email    *string `json:"email"`
	Password *string `json:"password"`
}

// PasswordChangeRequest is the body of POST /session/password.
type PasswordChangeRequest struct {
	CurrentPassword *string `json:"currentPassword"`
	NewPassword     *string `json:"newPassword"`
}

// SessionCookie is the name of the cookie that holds a session's secret,
// set by a sign-in and a password change.
const SessionCookie = "redirects_session"
