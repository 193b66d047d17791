package redirects

import (
	"strings"
	"time"
)

// ManagementTokenPrefix starts every management token, so a leaked one is
// recognised by secret scanners and never mistaken for an edge API key.
const ManagementTokenPrefix = "redir_mgmt_"

// ManagementToken lets automation call the management API of one
// organization with one role. The full token is shown once, at creation;
// the store keeps only its SHA-256 hash and last four characters.
type ManagementToken struct {
	ID    string
	OrgID string
	Role  Role
	Label string
	Hash  string
	Last4 string
	// CreatedBy is the ID of the user who created the token, or "" for a
	// token made on the command line without --user (the audit log names
	// the operating-system user who ran it).
	CreatedBy  string
	CreatedAt  time.Time
	ExpiresAt  *time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// NewTokenID returns a fresh management token ID (not secret: it names the
// token).
func NewTokenID() string { return "tok_" + randomBase62(16) }

// NewManagementToken returns a token and its full secret, which the caller
// shows once and then forgets. A ttl of 0 makes a token that never expires.
func NewManagementToken(orgID string, role Role, label, createdBy string, now time.Time, ttl time.Duration) (*ManagementToken, string) {
	secret := ManagementTokenPrefix + randomBase62(keySuffixLen)
	t := &ManagementToken{
		ID:        NewTokenID(),
		OrgID:     orgID,
		Role:      role,
		Label:     label,
		Hash:      HashKey(secret),
		Last4:     secret[len(secret)-4:],
		CreatedBy: createdBy,
		CreatedAt: now,
	}
	if ttl > 0 {
		e := now.Add(ttl)
		t.ExpiresAt = &e
	}
	return t, secret
}

// WellFormedManagementToken reports whether s has the shape of a
// management token: the prefix and 32 base62 characters.
func WellFormedManagementToken(s string) bool {
	rest, ok := strings.CutPrefix(s, ManagementTokenPrefix)
	if !ok || len(rest) != keySuffixLen {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if strings.IndexByte(base62, rest[i]) < 0 {
			return false
		}
	}
	return true
}

// Active reports whether the token may be used at now: not revoked and not
// expired.
func (t *ManagementToken) Active(now time.Time) bool {
	return t.RevokedAt == nil && (t.ExpiresAt == nil || now.Before(*t.ExpiresAt))
}

// Validate checks a token before it is stored.
func (t *ManagementToken) Validate() error {
	if t.ID == "" || len(t.Hash) != 64 {
		return Errorf(EINVALID, "management token has no ID or no SHA-256 hash: make it with NewManagementToken")
	}
	if t.OrgID == "" {
		return Errorf(EINVALID, "management token has no organization")
	}
	if _, err := ParseRole(string(t.Role)); err != nil {
		return err
	}
	if len(t.Label) > 200 {
		return Errorf(EINVALID, "token label is %d bytes long, more than the 200 allowed", len(t.Label))
	}
	if err := checkName("token label", t.Label); err != nil {
		return err
	}
	if t.ExpiresAt != nil && !t.ExpiresAt.After(t.CreatedAt) {
		return Errorf(EINVALID, "token expiry %s is not after its creation", t.ExpiresAt.Format(time.RFC3339))
	}
	return nil
}

// TokenLastUsedInterval is how stale a token's LastUsedAt may grow: a
// store records a use only when the last recorded one is older, so a busy
// token does not write to the database on every call.
const TokenLastUsedInterval = time.Minute
