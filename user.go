package redirects

import (
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"
)

// User is a person who manages organizations: through the dashboard with a
// session, or by the tokens they create. Operators manage the service
// itself (organizations, tiers, limits, users).
type User struct {
	ID    string
	Email string
	// PasswordHash is the PHC string of HashPassword; the password itself
	// is never stored.
	PasswordHash string
	Operator     bool
	CreatedAt    time.Time
	// DisabledAt is set once the user is disabled: they can no longer log
	// in, their sessions are gone and the tokens they created are revoked.
	DisabledAt *time.Time
	// MustChangePassword is set while the user's password is a one-time
	// password someone else chose (printed by user create, user
	// reset-password or quickstart): the dashboard asks for a new one
	// before anything else. Setting a password clears it.
	MustChangePassword bool
}

// Disabled reports whether the user is disabled.
func (u *User) Disabled() bool { return u.DisabledAt != nil }

// NewUserID returns a fresh user ID.
func NewUserID() string { return "usr_" + randomBase62(16) }

// MaxEmailLength is the longest address a mail server accepts (RFC 5321's
// 254 octets for a path less its angle brackets).
const MaxEmailLength = 254

// NormalizeEmail returns an email address in the one form users are stored
// and found by: trimmed and lower-case. It refuses anything but a bare
// address (no display name, no angle brackets).
func NormalizeEmail(s string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(s))
	switch {
	case e == "":
		return "", Errorf(EINVALID, "email address is empty")
	case len(e) > MaxEmailLength:
		return "", Errorf(EINVALID, "email address is %d bytes long, more than the %d allowed", len(e), MaxEmailLength)
	case !utf8.ValidString(e):
		return "", Errorf(EINVALID, "email address %s is not valid UTF-8", quoteShort(s))
	}
	a, err := mail.ParseAddress(e)
	if err != nil || a.Name != "" || a.Address != e {
		return "", Errorf(EINVALID, "email address %s is not of the form name@example.com", quoteShort(s))
	}
	at := strings.LastIndexByte(e, '@')
	if at <= 0 || at == len(e)-1 {
		return "", Errorf(EINVALID, "email address %s is not of the form name@example.com", quoteShort(s))
	}
	return e, nil
}

// Validate checks a user before it is stored: the email must be normalized
// (see NormalizeEmail) and the password hashed.
func (u *User) Validate() error {
	e, err := NormalizeEmail(u.Email)
	if err != nil {
		return err
	}
	if e != u.Email {
		return Errorf(EINVALID, "email address %s is not normalized: store %s", quoteShort(u.Email), quoteShort(e))
	}
	return CheckPasswordHash(u.PasswordHash)
}
