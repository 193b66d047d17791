package sqlstore

import (
	"context"

	"redirects"
)

// SetProjectSettings sets a project's matching settings.
// TODO(store): the migration, the clash check and the audit entry.
func (db *DB) SetProjectSettings(ctx context.Context, id string, s redirects.Settings) (*redirects.Project, error) {
	return nil, redirects.Errorf(redirects.EINTERNAL, "project settings are not stored yet")
}
