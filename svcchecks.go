package redirects

import "context"

// CheckService is the service layer's checking of destinations (see
// Services): where each destination of a project's live version leads
// (docs/contract.md#destination-checks). Running a check is
// ActionEditRules; reading the results is ActionRead. A project of an
// organization the caller has no role in is answered as a missing one.
type CheckService interface {
	// CheckDestinations requests every distinct destination of the
	// project's live version (relative ones against opts.BaseURL, by
	// default https:// and the project's first host) and stores what each
	// answered, all at once at the end: a check that fails or is cancelled
	// midway leaves the previous results as they were. It records a
	// destination.check audit entry, and a destination.broken entry for
	// each destination that worked when last checked and now does not.
	// It is recorded as a check (CheckJob) while it runs, so only one
	// runs per project at a time. Errors: ENOTFOUND (the project),
	// EFORBIDDEN, EINVALID (the base URL, none and no host declared, no
	// live version), ECONFLICT (a check of the project runs), the
	// context's error.
	CheckDestinations(ctx context.Context, projectID string, opts CheckOptions) (*CheckReport, error)
	// StartDestinationCheck starts the check CheckDestinations makes in
	// the background and returns it, running: read it with
	// FindDestinationCheck until it is done or failed. One check runs per
	// project at a time. Errors: those of CheckDestinations, and
	// ECONFLICT (a check of the project runs).
	StartDestinationCheck(ctx context.Context, projectID string, opts CheckOptions) (*CheckJob, error)
	// FindDestinationCheck returns the project's check id as it stands
	// (a running check whose lease ran out is failed, abandoned), its
	// report when done. Reading it is ActionRead. Errors: ENOTFOUND (the
	// project or the check).
	FindDestinationCheck(ctx context.Context, projectID, id string) (*CheckJob, error)
	// RunningDestinationCheck returns the project's running check, or
	// nil. Errors: ENOTFOUND (the project).
	RunningDestinationCheck(ctx context.Context, projectID string) (*CheckJob, error)
	// FindDestinationChecks returns the results of the project's last
	// checks, broken destinations first, then by destination. Errors:
	// ENOTFOUND (the project).
	FindDestinationChecks(ctx context.Context, projectID string) ([]DestinationCheck, error)
}

// CheckOptions are a check's options.
type CheckOptions struct {
	// BaseURL is what relative destinations are resolved against: an
	// http:// or https:// URL with a host. "" is https:// and the
	// project's first declared host.
	BaseURL string
}
