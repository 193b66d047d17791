package redirects

import "context"

// OrgService is the service layer's orgs (see Services). Each method
// authorizes the caller in the context, validates, and changes or reads
// the store once.
type OrgService interface {
	// Orgs returns the organizations the caller may read
	// (ActionRead), oldest first: those they have a role in, every one
	// for an operator or the command line against the database.
	Orgs(ctx context.Context) ([]*Org, error)
	// CreateOrg creates organization o, setting its ID and CreatedAt
	// (ActionManageOrgs: operators). Errors: EFORBIDDEN, EINVALID.
	CreateOrg(ctx context.Context, o *Org) error
	// Org returns organization id (ActionRead). Errors: ENOTFOUND, also
	// for an organization the caller has no role in.
	Org(ctx context.Context, id string) (*Org, error)
	// UpdateOrg changes an organization's name, tier and limit overrides
	// and returns it as stored (ActionManageOrgs). Errors: ENOTFOUND,
	// EFORBIDDEN, EINVALID.
	UpdateOrg(ctx context.Context, id string, u OrgUpdate) (*Org, error)
	// DeleteOrg deletes organization id with its projects and everything
	// of theirs (ActionManageOrgs), when confirm is its name typed back
	// (ConfirmName). Errors: ENOTFOUND, EFORBIDDEN, EINVALID (with
	// ErrNotConfirmed in its chain for a name that is not the
	// organization's).
	DeleteOrg(ctx context.Context, id, confirm string) error
}
