package redirects

import "context"

// KeyService is the service layer's keys (see Services). Each method
// authorizes the caller in the context, validates, and changes or reads
// the store once.
type KeyService interface {
	// CreateKey creates an edge API key of project projectID, named name,
	// in test mode when test is set, and returns it with its full secret,
	// which is shown this once and never stored. The caller needs
	// ActionManageKeys in the project's organization.
	// Errors: ENOTFOUND (the project, or one of an organization the
	// caller has no role in), EFORBIDDEN, EINVALID (the name).
	CreateKey(ctx context.Context, projectID, name string, test bool) (*Key, string, error)
	// FindKeys returns the keys of project projectID, oldest first, and
	// the last day each had live lookups counted. The caller needs
	// ActionRead. Errors: ENOTFOUND (the project), EFORBIDDEN.
	FindKeys(ctx context.Context, projectID string) (*KeyList, error)
	// RevokeKey revokes a key of project projectID named by ref, its ID
	// ("key_...") or its full secret, and returns it. revoked reports
	// whether this call revoked it: revoking a revoked key changes
	// nothing, and its RevokedAt says when it was. The caller needs
	// ActionManageKeys. Errors: ENOTFOUND (the project, or ref is no key
	// of it: the message never repeats a secret), EFORBIDDEN, EINVALID (an
	// empty ref).
	RevokeKey(ctx context.Context, projectID, ref string) (k *Key, revoked bool, err error)
}

// KeyList is a project's keys as the key lists show them.
type KeyList struct {
	Keys []*Key
	// LastUsed maps a key's ID to the last UTC day ("2006-01-02") of the
	// current or previous month on which a live lookup was counted for
	// it; a key with none is absent.
	LastUsed map[string]string
}
