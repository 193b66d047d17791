package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"redirects"
)

// The store's side of suggestions (redirects.SuggestionStore, migration
// 0020_suggestions).

const suggestionColumns = `id, host, path, destination, status_code, kind, confidence, misses, evidence, reason, setting, state, created_at`

func scanSuggestion(projectID string, s scanner) (redirects.Suggestion, error) {
	g := redirects.Suggestion{ProjectID: projectID}
	var kind string
	var created int64
	err := s.Scan(&g.ID, &g.Host, &g.Path, &g.Destination, &g.StatusCode, &kind, &g.Confidence, &g.Misses, &g.Evidence, &g.Reason, &g.Setting, &g.State, &created)
	g.Kind, g.CreatedAt = redirects.SuggestionKind(kind), fromNanos(created)
	return g, err
}

// ReplaceSuggestions deletes the project's open suggestions and stores s,
// but for those whose ID it holds accepted or dismissed, and records a
// suggestion.refresh audit entry, in one transaction.
func (db *DB) ReplaceSuggestions(ctx context.Context, projectID string, s []redirects.Suggestion) error {
	const op = "replace suggestions"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	p, err := db.findProject(ctx, tx, projectID, "")
	if err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM suggestions WHERE project_id = $1 AND state = 'open'`, projectID)
	if err != nil {
		return db.wrap(op, err)
	}
	before, _ := res.RowsAffected()
	for _, g := range s {
		if _, err := tx.ExecContext(ctx, `INSERT INTO suggestions (project_id, `+suggestionColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'open', $13)
			ON CONFLICT (project_id, id) DO NOTHING`,
			projectID, g.ID, g.Host, g.Path, g.Destination, g.StatusCode, string(g.Kind), g.Confidence, g.Misses, g.Evidence, g.Reason, g.Setting, g.CreatedAt.UnixNano()); err != nil {
			return db.wrap(op, err)
		}
	}
	if err := db.audit(ctx, tx, redirects.AuditSuggestionRefresh, p.OrgID, p.ID, "suggestions", p.ID, map[string]any{"open": before}, map[string]any{"open": len(s)}); err != nil {
		return db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap(op, err)
	}
	return nil
}

// FindSuggestions returns every stored suggestion of the project: open
// ones first, then by misses, most first, path and ID.
func (db *DB) FindSuggestions(ctx context.Context, projectID string) ([]redirects.Suggestion, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+suggestionColumns+` FROM suggestions WHERE project_id = $1
		ORDER BY CASE state WHEN 'open' THEN 0 ELSE 1 END, misses DESC, path, host, id`, projectID)
	return collect(db, "find suggestions", rows, err, func(s scanner) (redirects.Suggestion, error) {
		return scanSuggestion(projectID, s)
	})
}

// SetSuggestionState moves an open suggestion to state; a dismissal
// records a suggestion.dismiss audit entry in the same transaction.
func (db *DB) SetSuggestionState(ctx context.Context, projectID, id, state string) (*redirects.Suggestion, error) {
	const op = "set suggestion state"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	p, err := db.findProject(ctx, tx, projectID, "")
	if err != nil {
		return nil, err
	}
	g, err := scanSuggestion(projectID, tx.QueryRowContext(ctx, `SELECT `+suggestionColumns+` FROM suggestions WHERE project_id = $1 AND id = $2`, projectID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "suggestion %s not found in project %s", id, projectID)
	} else if err != nil {
		return nil, db.wrap(op, err)
	}
	if g.State != redirects.SuggestionOpen {
		return nil, redirects.Errorf(redirects.ECONFLICT, "suggestion %s is %s already", id, g.State)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE suggestions SET state = $1 WHERE project_id = $2 AND id = $3`, state, projectID, id); err != nil {
		return nil, db.wrap(op, err)
	}
	if state == redirects.SuggestionDismissed {
		fields := map[string]any{"host": g.Host, "path": g.Path, "destination": g.Destination, "kind": string(g.Kind)}
		if err := db.audit(ctx, tx, redirects.AuditSuggestionDismiss, p.OrgID, p.ID, "suggestion", id, fields, nil); err != nil {
			return nil, db.wrap(op, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, db.wrap(op, err)
	}
	g.State = state
	return &g, nil
}
