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
	// Errors: ENOTFOUND (the project), EFORBIDDEN, EINVALID (the base URL,
	// none and no host declared, no live version), the context's error.
	CheckDestinations(ctx context.Context, projectID string, opts CheckOptions) (*CheckReport, error)
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
