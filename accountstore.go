package redirects

import "context"

// AccountStore keeps users, memberships, management tokens, sessions and
// the audit log. It is apart from Store so each stays readable; sqlite.DB
// and postgres.DB implement both, and storetest.Run holds them to the same
// behaviour. Every method is one transaction.
//
// Every method that changes something records an audit entry, from the
// actor in the context (ActorFrom), in the same transaction: the change and
// its record are committed together or not at all. The audit log is
// append-only: no method changes or deletes an entry.
//
// The store does not authorize: callers check Authorize first (the CLI,
// run by whoever has the database, is trusted).
type AccountStore interface {
	// CreateUser stores u, setting its ID and CreatedAt. The email must be
	// normalized and the password hashed (User.Validate).
	// Errors: EINVALID, ECONFLICT (a user with that email exists).
	CreateUser(ctx context.Context, u *User) error
	// FindUserByID returns one user. Errors: ENOTFOUND.
	FindUserByID(ctx context.Context, id string) (*User, error)
	// FindUserByEmail returns the user with an email address, which it
	// normalizes first. Errors: ENOTFOUND, EINVALID.
	FindUserByEmail(ctx context.Context, email string) (*User, error)
	// FindUsers returns every user, oldest first.
	FindUsers(ctx context.Context) ([]*User, error)
	// DisableUser disables a user, deletes their sessions and revokes the
	// management tokens they created, and returns the user. Disabling a
	// disabled user changes nothing. Errors: ENOTFOUND.
	DisableUser(ctx context.Context, id string) (*User, error)
	// SetUserPassword replaces a user's password hash (made by
	// HashPassword) and deletes their sessions, so a reset logs out every
	// browser. Errors: ENOTFOUND, EINVALID.
	SetUserPassword(ctx context.Context, id, passwordHash string) error
	// RequirePasswordChange marks the user's password as one they must
	// change at their next sign-in (User.MustChangePassword), until
	// SetUserPassword sets another. Errors: ENOTFOUND.
	RequirePasswordChange(ctx context.Context, id string) error

	// SetMember gives a user a role in an organization: adds the member,
	// or changes the role of one (a demotion revokes the tokens the member
	// created in the organization with a role above the new one). It sets
	// m.CreatedAt and m.Email. Errors: EINVALID, ENOTFOUND (organization or
	// user).
	SetMember(ctx context.Context, m *Membership) error
	// RemoveMember removes a user from an organization and revokes the
	// management tokens they created in it. Errors: ENOTFOUND (the
	// organization, or the user is no member of it).
	RemoveMember(ctx context.Context, orgID, userID string) error
	// FindMembers returns the members of an organization, oldest first.
	// Errors: ENOTFOUND (the organization).
	FindMembers(ctx context.Context, orgID string) ([]*Membership, error)
	// FindMemberships returns a user's memberships, oldest first.
	// Errors: ENOTFOUND (the user).
	FindMemberships(ctx context.Context, userID string) ([]*Membership, error)

	// CreateToken stores a token made by NewManagementToken; only its hash
	// is kept. A zero CreatedAt is set from the clock. A token with a
	// creator needs one who is not disabled and whose role in the
	// organization is at least the token's. Errors: EINVALID, ENOTFOUND
	// (the organization, or the creating user), EFORBIDDEN (the creator's
	// role), ECONFLICT.
	CreateToken(ctx context.Context, t *ManagementToken) error
	// FindTokenByHash returns the active token with a hash (HashKey of the
	// secret) and records its use, at most once per TokenLastUsedInterval.
	// A revoked or expired token is not found. Errors: ENOTFOUND.
	FindTokenByHash(ctx context.Context, hash string) (*ManagementToken, error)
	// FindTokens returns the tokens of an organization, revoked and expired
	// ones too, oldest first. Errors: ENOTFOUND (the organization).
	FindTokens(ctx context.Context, orgID string) ([]*ManagementToken, error)
	// RevokeToken revokes a token of an organization and returns it. A
	// token of another organization is not found, like an unknown one.
	// Revoking a revoked token changes nothing. Errors: ENOTFOUND.
	RevokeToken(ctx context.Context, orgID, id string) (*ManagementToken, error)

	// CreateSession stores a session made by NewSession; only its hash is
	// kept. Sessions are not audited (they change nothing that is managed).
	// Errors: EINVALID, ENOTFOUND (the user, or a disabled one).
	CreateSession(ctx context.Context, s *Session) error
	// FindSessionByHash returns the unexpired session with a hash of a user
	// who is not disabled. Errors: ENOTFOUND.
	FindSessionByHash(ctx context.Context, hash string) (*Session, error)
	// TouchSession sets a session's LastSeenAt to the clock's time.
	// Errors: ENOTFOUND.
	TouchSession(ctx context.Context, id string) error
	// DeleteSession deletes a session (a logout). Deleting a deleted
	// session is not an error.
	DeleteSession(ctx context.Context, id string) error
	// DeleteUserSessions deletes every session of a user and returns how
	// many there were.
	DeleteUserSessions(ctx context.Context, userID string) (int, error)

	// FindAudit returns the audit entries that f selects, newest first.
	// Errors: EINVALID (the filter).
	FindAudit(ctx context.Context, f AuditFilter) ([]*AuditEntry, error)
}
