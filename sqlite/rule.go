package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"redirects"
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

	if _, err := findProject(ctx, tx, r.ProjectID); err != nil {
		return err
	}
	// The write lock is held, so nothing can insert the same rule between
	// this check and the insert; the UNIQUE constraint still backs it.
	var existing int64
	err = tx.QueryRowContext(ctx, `SELECT id FROM rules WHERE project_id = ? AND match_type = ? AND source = ?`,
		r.ProjectID, r.MatchType.String(), r.Source).Scan(&existing)
	if err == nil {
		return redirects.Errorf(redirects.ECONFLICT, "%s (rule %d)", conflictMessage(r), existing)
	} else if !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("sqlite: add rule: %w", err)
	}
	now := db.now()
	res, err := tx.ExecContext(ctx, insertRuleSQL,
		r.ProjectID, r.Source, r.Destination, r.StatusCode, r.MatchType.String(), r.Priority, now.UnixNano())
	if err != nil {
		return fmt.Errorf("sqlite: add rule: %w", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return fmt.Errorf("sqlite: add rule: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: add rule: %w", err)
	}
	r.ID, r.CreatedAt = id, now
	return nil
}

const insertRuleSQL = `INSERT INTO rules (project_id, source, destination, status_code, match_type, priority, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`

// conflictMessage says that r's match type and source are taken by a
// stored rule.
func conflictMessage(r *redirects.Rule) string {
	return fmt.Sprintf("a%s %s rule for source %q already exists in project %s",
		article(r.MatchType), r.MatchType, r.Source, r.ProjectID)
}

func article(m redirects.MatchType) string {
	if m == redirects.Exact {
		return "n"
	}
	return ""
}

// FindRules returns the draft rules of a project in the order of
// redirects.SortRules.
func (db *DB) FindRules(ctx context.Context, projectID string) ([]redirects.Rule, error) {
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := findProject(ctx, tx, projectID); err != nil {
		return nil, err
	}
	return findRules(ctx, tx, projectID)
}

// findRules returns the draft rules of a project in the order of
// redirects.SortRules.
func findRules(ctx context.Context, tx querier, projectID string) ([]redirects.Rule, error) {
	// Reading in index order hands SortRules exact rules already sorted.
	rows, err := tx.QueryContext(ctx, `SELECT id, source, destination, status_code, match_type, priority, created_at
		FROM rules WHERE project_id = ? ORDER BY match_type, source`, projectID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: find rules: %w", err)
	}
	defer rows.Close()
	var out []redirects.Rule
	for rows.Next() {
		var (
			r         = redirects.Rule{ProjectID: projectID}
			matchType string
			created   int64
		)
		if err := rows.Scan(&r.ID, &r.Source, &r.Destination, &r.StatusCode, &matchType, &r.Priority, &created); err != nil {
			return nil, fmt.Errorf("sqlite: find rules: %w", err)
		}
		if r.MatchType, err = redirects.ParseMatchType(matchType); err != nil {
			return nil, fmt.Errorf("sqlite: find rules: stored rule %d: %w", r.ID, err)
		}
		r.CreatedAt = fromNanos(created)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: find rules: %w", err)
	}
	redirects.SortRules(out)
	return out, nil
}

// DeleteRule deletes a draft rule of a project.
func (db *DB) DeleteRule(ctx context.Context, projectID string, id int64) error {
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := findProject(ctx, tx, projectID); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM rules WHERE project_id = ? AND id = ?`, projectID, id)
	if err != nil {
		return fmt.Errorf("sqlite: delete rule: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: delete rule: %w", err)
	} else if n == 0 {
		return redirects.Errorf(redirects.ENOTFOUND, "rule %d not found in project %s", id, projectID)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: delete rule: %w", err)
	}
	return nil
}
