package redirects

import (
	"crypto/subtle"
	"time"
)

// Session is a dashboard login. The browser holds a random secret in an
// HttpOnly cookie; the store keeps only the secret's SHA-256, so a copy of
// the database cannot be replayed as a login. Sessions live in the store,
// not in signed cookies, so every node accepts them and a logout or a
// disabled user takes effect at once everywhere.
type Session struct {
	ID     string
	Hash   string
	UserID string
	// CSRFToken is sent with every state-changing request made with the
	// cookie (a form field or header), compared with CheckCSRF. It is not a
	// credential on its own, so it is stored as it is.
	CSRFToken  string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	LastSeenAt time.Time
}

// SessionSecretLength is the length of a session's cookie secret: 43
// base62 characters, about 256 bits.
const SessionSecretLength = 43

// NewSessionID returns a fresh session ID (not secret: it names the
// session in listings and logs).
func NewSessionID() string { return "ses_" + randomBase62(16) }

// NewSession returns a session of userID that lasts ttl, and the secret to
// put in the cookie, which the caller sends once and then forgets.
func NewSession(userID string, now time.Time, ttl time.Duration) (*Session, string) {
	secret := randomBase62(SessionSecretLength)
	return &Session{
		ID:         NewSessionID(),
		Hash:       HashKey(secret),
		UserID:     userID,
		CSRFToken:  randomBase62(32),
		CreatedAt:  now,
		ExpiresAt:  now.Add(ttl),
		LastSeenAt: now,
	}, secret
}

// HashSessionSecret returns the hash a session is found by.
func HashSessionSecret(secret string) string { return HashKey(secret) }

// Active reports whether the session may be used at now.
func (s *Session) Active(now time.Time) bool { return now.Before(s.ExpiresAt) }

// CheckCSRF reports whether token is the session's CSRF token, in a time
// that does not depend on where they differ.
func (s *Session) CheckCSRF(token string) bool {
	return s.CSRFToken != "" && subtle.ConstantTimeCompare([]byte(token), []byte(s.CSRFToken)) == 1
}

// Validate checks a session before it is stored.
func (s *Session) Validate() error {
	if s.ID == "" || len(s.Hash) != 64 || s.CSRFToken == "" {
		return Errorf(EINVALID, "session has no ID, hash or CSRF token: make it with NewSession")
	}
	if s.UserID == "" {
		return Errorf(EINVALID, "session has no user")
	}
	if !s.ExpiresAt.After(s.CreatedAt) {
		return Errorf(EINVALID, "session expiry is not after its creation")
	}
	return nil
}
