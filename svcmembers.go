package redirects

import (
	"context"
	"errors"
)

// MemberService is the service layer's members (see Services). Each method
// authorizes the caller in the context, validates, and changes or reads
// the store once.
//
// A user is named by their user ID ("usr_...") or their email address.
type MemberService interface {
	// Members returns the members of organization orgID, oldest first
	// (ActionRead). Errors: ENOTFOUND.
	Members(ctx context.Context, orgID string) ([]*Membership, error)
	// AddMember gives user a role in organization orgID, or changes the
	// role of a member (ActionManageMembers, and never a role above the
	// caller's own). Errors: ENOTFOUND (the organization; the user, with
	// ErrUnknownUser in its chain), EFORBIDDEN, EINVALID (an email
	// address that is none, with ErrUnknownUser in its chain; a disabled
	// user, with ErrUserDisabled).
	AddMember(ctx context.Context, orgID, user string, role Role) (*Membership, error)
	// SetMemberRole changes the role of a member of organization orgID
	// (ActionManageMembers, never above the caller's own role); a
	// demotion revokes the tokens they created above the new role.
	// Errors: ENOTFOUND (the organization; a user who is no member, with
	// ErrNotMember in its chain), EFORBIDDEN, EINVALID (an email address
	// that is none, with ErrNotMember).
	SetMemberRole(ctx context.Context, orgID, user string, role Role) (*Membership, error)
	// RemoveMember removes a member from organization orgID and revokes
	// the tokens they created in it (ActionManageMembers), and returns
	// who it was. Errors: those of SetMemberRole.
	RemoveMember(ctx context.Context, orgID, user string) (*Membership, error)
}

// The marks a front door reads to say what to do next, each in the chain
// of a domain error whose code and message stay the store's.
var (
	// ErrUnknownUser marks the error of a user that no user ID or email
	// address names: an operator creates users.
	ErrUnknownUser = errors.New("no such user")
	// ErrUserDisabled marks the refusal to give a disabled user a role.
	ErrUserDisabled = errors.New("user disabled")
	// ErrNotMember marks the error of a user who is no member of the
	// organization, whether or not they exist.
	ErrNotMember = errors.New("no member")
)
