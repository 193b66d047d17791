package redirects

import "time"

// Role is what a member may do in one organization. The roles are ordered:
// an owner may do everything an editor may, and an editor everything a
// viewer may.
type Role string

// The roles, from most to least powerful.
const (
	// RoleOwner manages members, API keys and management tokens, and
	// everything an editor does.
	RoleOwner Role = "owner"
	// RoleEditor edits rules, imports, deploys and rolls back.
	RoleEditor Role = "editor"
	// RoleViewer reads everything but key secrets (which nobody can read
	// after they were shown once).
	RoleViewer Role = "viewer"
)

// Roles lists the roles, most powerful first.
var Roles = []Role{RoleOwner, RoleEditor, RoleViewer}

// ParseRole parses a role name.
func ParseRole(s string) (Role, error) {
	switch r := Role(s); r {
	case RoleOwner, RoleEditor, RoleViewer:
		return r, nil
	}
	return "", Errorf(EINVALID, "role %q is not one of owner, editor, viewer", s)
}

// rank orders the roles: 3 for owner, 2 for editor, 1 for viewer, 0 for
// anything else, so an unknown role grants nothing.
func (r Role) rank() int {
	switch r {
	case RoleOwner:
		return 3
	case RoleEditor:
		return 2
	case RoleViewer:
		return 1
	}
	return 0
}

// AtLeast reports whether r grants everything that min grants. An unknown
// role grants nothing.
func (r Role) AtLeast(min Role) bool {
	return r.rank() > 0 && r.rank() >= min.rank()
}

// Membership gives a user a role in an organization. Email is the user's,
// filled in by the store's reads for listings.
type Membership struct {
	OrgID     string
	UserID    string
	Email     string
	Role      Role
	CreatedAt time.Time
}

// Validate checks a membership before it is stored.
func (m *Membership) Validate() error {
	if m.OrgID == "" {
		return Errorf(EINVALID, "membership has no organization")
	}
	if m.UserID == "" {
		return Errorf(EINVALID, "membership has no user")
	}
	_, err := ParseRole(string(m.Role))
	return err
}
