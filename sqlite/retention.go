package sqlite

import (
	"context"
	"fmt"

	"redirects"
)

// SetExportRetention sets how many of a project's latest deployments keep
// their export files, and records it in the audit log. Edge nodes need not
// learn of it: no event.
func (db *DB) SetExportRetention(ctx context.Context, id string, n int) (*redirects.Project, error) {
	if err := redirects.ValidateExportRetention(n); err != nil {
		return nil, err
	}
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	p, err := findProject(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if p.ExportRetention == n {
		return p, nil
	}
	before := map[string]any{"exportRetention": p.ExportRetention}
	if _, err := tx.ExecContext(ctx, `UPDATE projects SET export_retention = ? WHERE id = ?`, n, id); err != nil {
		return nil, fmt.Errorf("sqlite: set export retention: %w", err)
	}
	p.ExportRetention = n
	if err := db.audit(ctx, tx, redirects.AuditProjectUpdate, p.OrgID, p.ID, "project", p.ID, before, map[string]any{"exportRetention": n}); err != nil {
		return nil, fmt.Errorf("sqlite: set export retention: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("sqlite: set export retention: %w", err)
	}
	return p, nil
}

// pruneExports deletes the export files of the project's deployments older
// than its export retention allows, counting back from version, the one
// the deploy in tx just stored. Their rules stay: redirects.FindExport
// renders their exports again on demand.
func pruneExports(ctx context.Context, tx querier, projectID string, version int) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM deployment_exports WHERE project_id = ?1
		AND version <= ?2 - (SELECT export_retention FROM projects WHERE id = ?1)`, projectID, version)
	return err
}

// exportsPruned reports whether a deployment has no export file left.
func exportsPruned(ctx context.Context, tx querier, projectID string, version int) (bool, error) {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM deployment_exports WHERE project_id = ? AND version = ? LIMIT 1)`,
		projectID, version).Scan(&n)
	return n == 0, err
}
