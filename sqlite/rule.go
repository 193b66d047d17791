package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"redirects"
	"redirects/engine"
)

// AddRule validates and stores a draft rule of r.ProjectID, setting its ID
// and CreatedAt. Rule edits record no event: drafts are invisible to edge
// nodes until deployed.
func (db *DB) AddRule(ctx context.Context, r *redirects.Rule) error {
	if err := r.Validate(); err != nil {
		return err
	}
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	p, err := findProject(ctx, tx, r.ProjectID)
	if err != nil {
		return err
	}
	// The write lock is held, so nothing can insert the same rule between
	// this check and the insert; the UNIQUE constraint still backs it.
	var existing int64
	err = tx.QueryRowContext(ctx, `SELECT id FROM rules WHERE project_id = ? AND match_type = ? AND source = ?`,
		r.ProjectID, r.MatchType.String(), r.Source).Scan(&existing)
	if err == nil {
		return redirects.Errorf(redirects.ECONFLICT, "%s (rule %d)", redirects.ConflictMessage(r), existing)
	} else if !errors.Is(err, sql.ErrNoRows) {
		return wrap("add rule", err)
	}
	now := db.now()
	res, err := tx.ExecContext(ctx, insertRuleSQL,
		r.ProjectID, r.Source, r.Destination, r.StatusCode, r.MatchType.String(), r.Priority, now.UnixNano())
	if err != nil {
		return wrap("add rule", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return wrap("add rule", err)
	}
	if err := db.audit(ctx, tx, redirects.AuditRuleCreate, p.OrgID, p.ID, "rule", strconv.FormatInt(id, 10), nil, redirects.RuleAuditFields(r)); err != nil {
		return fmt.Errorf("sqlite: add rule: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return wrap("add rule", err)
	}
	r.ID, r.CreatedAt, r.Revision = id, now, 1
	return nil
}

const insertRuleSQL = `INSERT INTO rules (project_id, source, destination, status_code, match_type, priority, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`

// FindRules returns the draft rules of a project in the order of
// engine.SortRules.
func (db *DB) FindRules(ctx context.Context, projectID string) ([]redirects.Rule, error) {
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := findProject(ctx, tx, projectID); err != nil {
		return nil, err
	}
	rules, err := findRules(ctx, tx, projectID)
	if err != nil {
		return nil, err
	}
	engine.SortRules(rules)
	return rules, nil
}

// findRules returns the draft rules of a project: the exact rules by source,
// then the starts_with rules by source, which a deploy sorts once into the
// order of engine.SortRules.
func findRules(ctx context.Context, tx querier, projectID string) ([]redirects.Rule, error) {
	var out []redirects.Rule
	// One query per match type spares a column per row, which counts when
	// a deploy reads a million rules. Both read the UNIQUE index in order,
	// so the exact rules come out in their final order already.
	for _, m := range []redirects.MatchType{redirects.Exact, redirects.StartsWith} {
		var err error
		if out, err = appendRules(ctx, tx, out, projectID, m); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// appendRules appends the draft rules of a project with match type m, in
// source order.
func appendRules(ctx context.Context, tx querier, out []redirects.Rule, projectID string, m redirects.MatchType) ([]redirects.Rule, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, source, destination, status_code, priority, created_at
		FROM rules WHERE project_id = ? AND match_type = ? ORDER BY source`, projectID, m.String())
	if err != nil {
		return nil, wrap("find rules", err)
	}
	defer rows.Close()
	var (
		r       = redirects.Rule{ProjectID: projectID, MatchType: m}
		created int64
	)
	for rows.Next() {
		// Scanning into variables declared outside the loop keeps a
		// million-rule read from allocating a Rule per row.
		if err := rows.Scan(&r.ID, &r.Source, &r.Destination, &r.StatusCode, &r.Priority, &created); err != nil {
			return nil, wrap("find rules", err)
		}
		r.CreatedAt = fromNanos(created)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("find rules", err)
	}
	return out, nil
}

// DeleteRule deletes a draft rule of a project, whatever its revision.
func (db *DB) DeleteRule(ctx context.Context, projectID string, id int64) error {
	return db.DeleteRuleRevision(ctx, projectID, id, 0)
}
