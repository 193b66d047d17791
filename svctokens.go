package redirects

import (
	"context"
	"time"
)

// TokenService is the service layer's tokens (see Services). Each method
// authorizes the caller in the context, validates, and changes or reads
// the store once.
type TokenService interface {
	// FindTokens returns the management tokens of organization orgID,
	// revoked and expired ones too, oldest first, each with its creator's
	// email address. The caller needs ActionRead.
	// Errors: ENOTFOUND (the organization), EFORBIDDEN.
	FindTokens(ctx context.Context, orgID string) ([]*ListedToken, error)
	// RevokeToken revokes the token of organization orgID named by ref,
	// its ID ("tok_...") or its full secret, and returns it. revoked
	// reports whether this call revoked it: revoking a revoked token
	// changes nothing, and its RevokedAt says when it was. An owner
	// (ActionManageTokens) may revoke any token of the organization, and
	// a user the tokens they created, whatever their role, so that nobody
	// is stuck with a token they cannot end.
	// Errors: ENOTFOUND (the organization; ref is no token of it, or a
	// full token that is not active: the message never repeats a
	// secret), EFORBIDDEN, EINVALID (a full token through the management
	// API, which takes none in a URL).
	RevokeToken(ctx context.Context, orgID, ref string) (t *ManagementToken, revoked bool, err error)
}

// TokenIssuer creates management tokens. It is served where the database
// is (LocalServices): by the dashboard and the management API to a
// signed-in user, and by the command line with --db; never through the
// API's client, whose management token may not make another.
type TokenIssuer interface {
	// CreateToken creates a management token and returns it with its
	// full secret, which is shown this once and never stored. The caller
	// needs CreateTokenAction of the token's role: a user with a role at
	// least the token's (a token cannot make another), who becomes its
	// creator; or the command line run against the database, for the
	// token's User or for nobody.
	// Errors: ENOTFOUND (the organization, or one the caller has no role
	// in; the User), EFORBIDDEN (the caller's or the User's role, a
	// management token, a User named by another caller), EINVALID (the
	// role, the label, the lifetime).
	CreateToken(ctx context.Context, req TokenRequest) (*ManagementToken, string, error)
}

// TokenRequest is what CreateToken makes a token of.
type TokenRequest struct {
	OrgID string
	Role  Role
	Label string
	// TTL is the token's lifetime; 0 never expires.
	TTL time.Duration
	// User names the user ("usr_..." or an email address) the token is
	// created by and for, on the command line run against the database
	// only (LocalPrincipal): they need a role in the organization at least
	// the token's, and the token is revoked when they lose it. Empty, the
	// token is the calling user's, or nobody's on the command line.
	User string
}

// ListedToken is a management token as the token lists show it.
type ListedToken struct {
	*ManagementToken
	// Creator names the user who created the token: their email address
	// (their ID when no user has it); "" for a token with no creator.
	// Through the management API, which names creators by email only,
	// CreatedBy is empty and Creator alone names them.
	Creator string
}
