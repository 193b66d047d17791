package redirects

import "context"

// ProjectService is the service layer's projects (see Services). Each
// method authorizes the caller in the context, validates, and changes or
// reads the store once. A project of an organization the caller has no
// role in is answered as a missing one.
type ProjectService interface {
	// Projects returns the projects of organization orgID (ActionRead),
	// or with orgID "" those of every organization the caller may read.
	// Errors: ENOTFOUND (the organization).
	Projects(ctx context.Context, orgID string) ([]*Project, error)
	// CreateProject creates project p in its organization, setting its ID
	// and CreatedAt (ActionManageProjects). Errors: ENOTFOUND (the
	// organization), EFORBIDDEN, EINVALID.
	CreateProject(ctx context.Context, p *Project) error
	// Project returns project id (ActionRead). Errors: ENOTFOUND.
	Project(ctx context.Context, id string) (*Project, error)
	// ProjectOverview returns project id with what a person needs next:
	// its live deployment and its number of draft rules (ActionRead).
	// Errors: ENOTFOUND.
	ProjectOverview(ctx context.Context, id string) (*ProjectOverview, error)
	// UpdateProject changes the fields of project id that u sets and
	// returns it as stored (ActionManageProjects). Every field is checked
	// before any is stored, so bad input changes nothing; matching
	// settings under which draft rules would clash are refused with the
	// pairs listed, before anything else is stored. Errors: ENOTFOUND,
	// EFORBIDDEN, EINVALID (also for an update that sets nothing),
	// ECONFLICT (clashing settings).
	UpdateProject(ctx context.Context, id string, u ProjectUpdate) (*Project, error)
	// DeleteProject deletes project id with its rules, keys, deployments
	// and exports (ActionManageProjects), when confirm is its name typed
	// back (ConfirmName). Errors: ENOTFOUND, EFORBIDDEN, EINVALID (with
	// ErrNotConfirmed in its chain for a name that is not the
	// project's).
	DeleteProject(ctx context.Context, id, confirm string) error
}

// ProjectUpdate lists the fields of a project to change; nil leaves a field
// as it is.
type ProjectUpdate struct {
	Name *string
	// Hosts replaces the host names the project declares; an empty list
	// declares none.
	Hosts *[]string
	// ExportRetention is Project.ExportRetention, ShrinkLimit
	// Project.ShrinkLimit, RequireStage Project.RequireStage.
	ExportRetention *int
	ShrinkLimit     *int
	RequireStage    *bool
	// CaseInsensitive and IgnoreTrailingSlash change the draft's matching
	// Settings.
	CaseInsensitive     *bool
	IgnoreTrailingSlash *bool
}

// IsEmpty reports whether u changes nothing.
func (u ProjectUpdate) IsEmpty() bool {
	return u.Name == nil && u.Hosts == nil && u.ExportRetention == nil && u.ShrinkLimit == nil &&
		u.RequireStage == nil && u.CaseInsensitive == nil && u.IgnoreTrailingSlash == nil
}

// ProjectOverview is a project with what a person needs next.
type ProjectOverview struct {
	Project *Project
	// Live is the live deployment, nil while none is live.
	Live *Deployment
	// RuleCount is the number of draft rules.
	RuleCount int
}
