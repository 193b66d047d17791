package sqlstore

import (
	"cmp"
	"context"
	"slices"

	"redirects"
)

var _ redirects.AgentStore = (*DB)(nil)

// RecordAgents keeps each agent's last report per project and format
// (docs/delivery.md#which-servers-have-which-version), in one statement:
// a report older than the row's keeps the row. Reports of a project that
// is gone are dropped.
func (db *DB) RecordAgents(ctx context.Context, reports []redirects.AgentReport) error {
	if err := redirects.ValidateAgentReports(reports); err != nil {
		return err
	}
	// One statement may not upsert a row twice: keep the latest report of
	// each row, and upsert in one order, so two nodes' flushes cannot
	// deadlock.
	type key struct{ project, agent, format string }
	last := map[key]redirects.AgentReport{}
	for _, r := range reports {
		k := key{r.ProjectID, r.Agent, r.Format}
		if old, ok := last[k]; !ok || r.SeenAt.After(old.SeenAt) {
			last[k] = r
		}
	}
	if len(last) == 0 {
		return nil
	}
	keys := make([]key, 0, len(last))
	for k := range last {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.project, b.project), cmp.Compare(a.agent, b.agent), cmp.Compare(a.format, b.format))
	})
	rows := make([][]any, len(keys))
	for i, k := range keys {
		r := last[k]
		rows[i] = []any{k.project, k.agent, k.format, int64(r.AppliedVersion), r.SeenAt.UnixNano()}
	}
	tx, err := db.beginWrite(ctx, "record agents")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := bulk(ctx, tx, `INSERT INTO sync_agents (project_id, agent, format, applied_version, seen_at)
		SELECT v.column1, v.column2, v.column3, v.column4, v.column5 FROM (VALUES %s) AS v
		JOIN projects p ON p.id = v.column1
		WHERE true ORDER BY v.column6
		ON CONFLICT (project_id, agent, format) DO UPDATE SET
			applied_version = CASE WHEN excluded.seen_at >= sync_agents.seen_at THEN excluded.applied_version ELSE sync_agents.applied_version END,
			seen_at = CASE WHEN excluded.seen_at >= sync_agents.seen_at THEN excluded.seen_at ELSE sync_agents.seen_at END`,
		[]string{"TEXT", "TEXT", "TEXT", "BIGINT", "BIGINT"}, rows); err != nil {
		return db.wrap("record agents", err)
	}
	type list struct{ project, format string }
	var lists []list
	for _, k := range keys {
		if l := (list{k.project, k.format}); len(lists) == 0 || lists[len(lists)-1] != l {
			lists = append(lists, l)
		}
	}
	slices.SortFunc(lists, func(a, b list) int {
		return cmp.Or(cmp.Compare(a.project, b.project), cmp.Compare(a.format, b.format))
	})
	lists = slices.Compact(lists)
	for i, l := range lists {
		if err := db.capAgents(ctx, tx, l.project, l.format); err != nil {
			return db.wrap("record agents", err)
		}
		if i == len(lists)-1 || lists[i+1].project != l.project {
			if err := db.expireAgents(ctx, tx, l.project); err != nil {
				return db.wrap("record agents", err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return db.wrap("record agents", err)
	}
	return nil
}

// DeleteAgents forgets a project's agents' reports that match f and, when
// it forgot any, records an agent.delete audit entry.
func (db *DB) DeleteAgents(ctx context.Context, projectID string, f redirects.AgentFilter) (int, error) {
	const op = "delete agents"
	if err := f.Validate(); err != nil {
		return 0, err
	}
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	p, err := db.findProject(ctx, tx, projectID, "")
	if err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM sync_agents WHERE project_id = $1
		AND (CAST($2 AS TEXT) = '' OR agent = $2) AND (CAST($3 AS TEXT) = '' OR format = $3)`, projectID, f.Agent, f.Format)
	if err != nil {
		return 0, db.wrap(op, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, db.wrap(op, err)
	}
	if n > 0 {
		before := map[string]any{"agent": f.Agent, "format": f.Format, "reports": n}
		if err := db.audit(ctx, tx, redirects.AuditAgentDelete, p.OrgID, p.ID, "agent", f.Agent, before, nil); err != nil {
			return 0, db.wrap(op, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, db.wrap(op, err)
	}
	return int(n), nil
}

// FindAgents returns a project's agents' last reports, by agent then
// format.
func (db *DB) FindAgents(ctx context.Context, projectID string) ([]redirects.AgentReport, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT agent, format, applied_version, seen_at FROM sync_agents
		WHERE project_id = $1 AND seen_at >= $2 ORDER BY agent, format`, projectID, db.agentsCutoff())
	return collect(db, "find agents", rows, err, func(s scanner) (redirects.AgentReport, error) {
		a := redirects.AgentReport{ProjectID: projectID}
		var seen int64
		err := s.Scan(&a.Agent, &a.Format, &a.AppliedVersion, &seen)
		a.SeenAt = fromNanos(seen)
		return a, err
	})
}
