package sqlstore

import (
	"context"

	"redirects"
)

// SetExportRetention sets how many of a project's latest deployments keep
// their export files, and records it in the audit log. Edge nodes need not
// learn of it: no event. The row is locked from the read to commit.
func (db *DB) SetExportRetention(ctx context.Context, id string, n int) (*redirects.Project, error) {
	if err := redirects.ValidateExportRetention(n); err != nil {
		return nil, err
	}
	return db.changeProject(ctx, "set export retention", id, func(tx *Tx, p *redirects.Project) (bool, error) {
		if p.ExportRetention == n {
			return false, nil
		}
		before := map[string]any{"exportRetention": p.ExportRetention}
		if _, err := tx.ExecContext(ctx, `UPDATE projects SET export_retention = $1 WHERE id = $2`, n, id); err != nil {
			return false, err
		}
		p.ExportRetention = n
		return true, db.audit(ctx, tx, redirects.AuditProjectUpdate, p.OrgID, p.ID, "project", p.ID, before, map[string]any{"exportRetention": n})
	})
}

// pruneExports deletes the export files of the project's deployments older
// than its export retention allows, counting back from version, the one
// the deploy in q just stored. Their rules stay: redirects.FindExport
// renders their exports again on demand.
func (db *DB) pruneExports(ctx context.Context, q querier, projectID string, version int) error {
	_, err := q.ExecContext(ctx, `DELETE FROM deployment_exports WHERE project_id = $1
		AND version <= $2 - (SELECT export_retention FROM projects WHERE id = $1)`, projectID, version)
	return err
}

// exportsPruned reports whether a deployment has no export file left.
func (db *DB) exportsPruned(ctx context.Context, q querier, projectID string, version int) (bool, error) {
	var found bool
	err := q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM deployment_exports WHERE project_id = $1 AND version = $2)`,
		projectID, version).Scan(&found)
	return !found, err
}

// capAgents keeps a project's MaxAgentsPerFormat agents' reports in format
// that were seen last (docs/delivery.md#which-servers-have-which-version),
// and deletes the others: a flood of made-up agent names costs a
// bounded list.
func (db *DB) capAgents(ctx context.Context, q querier, projectID, format string) error {
	_, err := q.ExecContext(ctx, `DELETE FROM sync_agents WHERE project_id = $1 AND format = $2
		AND agent NOT IN (SELECT agent FROM sync_agents WHERE project_id = $1 AND format = $2
			ORDER BY seen_at DESC, agent LIMIT $3)`, projectID, format, redirects.MaxAgentsPerFormat)
	return err
}

// expireAgents deletes a project's agents' reports older than
// redirects.AgentRetention, by the store's clock. It runs for the projects
// a flush writes, on their rows alone (the key's prefix): FindAgents shows
// no older report anyway, and the cap bounds what a silent project keeps.
func (db *DB) expireAgents(ctx context.Context, q querier, projectID string) error {
	_, err := q.ExecContext(ctx, `DELETE FROM sync_agents WHERE project_id = $1 AND seen_at < $2`, projectID, db.agentsCutoff())
	return err
}

// agentsCutoff is when a report must have been seen to be kept, in Unix
// nanoseconds.
func (db *DB) agentsCutoff() int64 {
	return db.now().Add(-redirects.AgentRetention).UnixNano()
}
