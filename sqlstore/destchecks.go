package sqlstore

import (
	"context"
	"time"

	"redirects"
)

var _ redirects.CheckStore = (*DB)(nil)

// RecordDestinationChecks replaces the project's results with checks in
// one transaction: a check that never gets here (cancelled, failed)
// leaves the results before it as they were. It records the check's
// destination.check audit entry and a destination.broken entry for each
// destination whose previous result worked and whose new one is broken.
func (db *DB) RecordDestinationChecks(ctx context.Context, projectID string, checks []redirects.DestinationCheck, skipped int) ([]string, error) {
	const op = "record destination checks"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	p, err := db.findProject(ctx, tx, projectID, "")
	if err != nil {
		return nil, err
	}
	broke, err := db.recordDestinationChecks(ctx, tx, p, checks, skipped)
	if err != nil {
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, db.wrap(op, err)
	}
	return broke, nil
}

// recordDestinationChecks is RecordDestinationChecks in tx.
func (db *DB) recordDestinationChecks(ctx context.Context, tx *Tx, p *redirects.Project, checks []redirects.DestinationCheck, skipped int) ([]string, error) {
	const op = "record destination checks"
	prev, err := db.findDestinationChecks(ctx, tx, p.ID)
	if err != nil {
		return nil, err
	}
	before := make(map[string]*redirects.DestinationCheck, len(prev))
	for i := range prev {
		before[prev[i].Destination] = &prev[i]
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM destination_checks WHERE project_id = $1`, p.ID); err != nil {
		return nil, db.wrap(op, err)
	}
	rows := make([][]any, len(checks))
	for i := range checks {
		d := &checks[i]
		rows[i] = []any{p.ID, d.Destination, d.URL, string(d.Outcome), int64(d.Status), d.FinalURL, int64(d.Hops),
			int64(d.Duration), d.CheckedAt.UnixNano(), d.Error}
	}
	if err := bulk(ctx, tx, `INSERT INTO destination_checks (project_id, destination, url, outcome, status, final_url, hops, duration, checked_at, error)
		SELECT v.column1, v.column2, v.column3, v.column4, v.column5, v.column6, v.column7, v.column8, v.column9, v.column10
		FROM (VALUES %s) AS v ORDER BY v.column11`,
		[]string{"TEXT", "TEXT", "TEXT", "TEXT", "BIGINT", "TEXT", "BIGINT", "BIGINT", "BIGINT", "TEXT"}, rows); err != nil {
		return nil, db.wrap(op, err)
	}
	var broke []string
	counts := map[string]any{"checked": len(checks), "skipped": skipped}
	for _, o := range []redirects.CheckOutcome{redirects.CheckOK, redirects.CheckOffsite, redirects.CheckBroken, redirects.CheckTimedOut,
		redirects.CheckLoop, redirects.CheckError, redirects.CheckRefused} {
		counts[string(o)] = 0
	}
	for i := range checks {
		d := &checks[i]
		counts[string(d.Outcome)] = counts[string(d.Outcome)].(int) + 1
		old, ok := before[d.Destination]
		if !ok || !old.Worked() || !d.Broken() {
			continue
		}
		broke = append(broke, d.Destination)
		if err := db.audit(ctx, tx, redirects.AuditDestinationBroken, p.OrgID, p.ID, "destination", d.Destination,
			checkAudit(old), checkAudit(d)); err != nil {
			return nil, db.wrap(op, err)
		}
	}
	if err := db.audit(ctx, tx, redirects.AuditDestinationCheck, p.OrgID, p.ID, "project", p.ID, nil, counts); err != nil {
		return nil, db.wrap(op, err)
	}
	return broke, nil
}

// checkAudit is a result as a destination.broken entry records it.
func checkAudit(d *redirects.DestinationCheck) map[string]any {
	return map[string]any{"outcome": string(d.Outcome), "status": d.Status, "finalUrl": d.FinalURL, "hops": d.Hops,
		"error": d.Error, "checkedAt": d.CheckedAt.UTC().Format(time.RFC3339)}
}

// FindDestinationChecks returns the project's results, by destination.
func (db *DB) FindDestinationChecks(ctx context.Context, projectID string) ([]redirects.DestinationCheck, error) {
	return db.findDestinationChecks(ctx, db.read, projectID)
}

func (db *DB) findDestinationChecks(ctx context.Context, q querier, projectID string) ([]redirects.DestinationCheck, error) {
	rows, err := q.QueryContext(ctx, `SELECT destination, url, outcome, status, final_url, hops, duration, checked_at, error
		FROM destination_checks WHERE project_id = $1 ORDER BY destination`, projectID)
	return collect(db, "find destination checks", rows, err, func(s scanner) (redirects.DestinationCheck, error) {
		var d redirects.DestinationCheck
		var outcome string
		var dur, at int64
		err := s.Scan(&d.Destination, &d.URL, &outcome, &d.Status, &d.FinalURL, &d.Hops, &dur, &at, &d.Error)
		d.Outcome, d.Duration, d.CheckedAt = redirects.CheckOutcome(outcome), time.Duration(dur), fromNanos(at)
		return d, err
	})
}

// ClaimDestinationCheck takes the project's scheduled-check lease for
// owner until now + lease, when the last scheduled check started at
// least every ago and no other node holds the lease, in one statement:
// of nodes that race, one gets it.
func (db *DB) ClaimDestinationCheck(ctx context.Context, projectID, owner string, every, lease time.Duration) (bool, error) {
	now := db.now()
	res, err := db.write.ExecContext(ctx, `INSERT INTO destination_check_runs (project_id, owner, lease_until, started_at)
		SELECT id, $2, $3, $4 FROM projects WHERE id = $1
		ON CONFLICT (project_id) DO UPDATE SET owner = excluded.owner, lease_until = excluded.lease_until, started_at = excluded.started_at
		WHERE destination_check_runs.lease_until <= $4 AND destination_check_runs.started_at <= $5`,
		projectID, owner, now.Add(lease).UnixNano(), now.UnixNano(), now.Add(-every).UnixNano())
	if err != nil {
		return false, db.wrap("claim destination check", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, db.wrap("claim destination check", err)
	}
	return n == 1, nil
}

// ReleaseDestinationCheck gives the lease back, if owner holds it.
func (db *DB) ReleaseDestinationCheck(ctx context.Context, projectID, owner string) error {
	if _, err := db.write.ExecContext(ctx, `UPDATE destination_check_runs SET lease_until = 0 WHERE project_id = $1 AND owner = $2`, projectID, owner); err != nil {
		return db.wrap("release destination check", err)
	}
	return nil
}
