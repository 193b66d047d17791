package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"redirects"
	"redirects/safety"
)

// SetProjectShrinkLimit sets the percentage of the live rules a deploy may
// remove unconfirmed, and records a project.update audit entry.
func (db *DB) SetProjectShrinkLimit(ctx context.Context, id string, percent int) (*redirects.Project, error) {
	if err := redirects.ValidateShrinkLimit(percent); err != nil {
		return nil, err
	}
	const op = "set shrink limit"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	p, err := findProject(ctx, tx, id, "FOR NO KEY UPDATE")
	if err != nil {
		return nil, err
	}
	before := p.ShrinkLimit
	if before == percent {
		return p, nil
	}
	if _, err := tx.Exec(ctx, `UPDATE projects SET shrink_limit = $1 WHERE id = $2`, percent, id); err != nil {
		return nil, wrap(op, err)
	}
	p.ShrinkLimit = percent
	if err := db.recordAudit(ctx, tx, redirects.ShrinkLimitAuditEntry(ctx, db.now(), p, before)); err != nil {
		return nil, wrap(op, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, wrap(op, err)
	}
	return p, nil
}

// SetProjectTests stores the project's test file, or removes it for "", and
// records a project.tests audit entry.
func (db *DB) SetProjectTests(ctx context.Context, id, csv string) error {
	after, err := safety.CountTests(csv)
	if err != nil {
		return err
	}
	const op = "set project tests"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	p, err := findProject(ctx, tx, id, "FOR NO KEY UPDATE")
	if err != nil {
		return err
	}
	old, err := findProjectTests(ctx, tx, id)
	if err != nil {
		return err
	}
	// The stored file passed this check when it was stored.
	before, _ := safety.CountTests(old)
	if csv == "" {
		_, err = tx.Exec(ctx, `DELETE FROM project_tests WHERE project_id = $1`, id)
	} else {
		_, err = tx.Exec(ctx, `INSERT INTO project_tests (project_id, body) VALUES ($1, $2)
			ON CONFLICT (project_id) DO UPDATE SET body = excluded.body`, id, csv)
	}
	if err != nil {
		return wrap(op, err)
	}
	if err := db.recordAudit(ctx, tx, redirects.TestsAuditEntry(ctx, db.now(), p, before, after)); err != nil {
		return wrap(op, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return wrap(op, err)
	}
	return nil
}

// FindProjectTests returns the project's stored test file, or "".
func (db *DB) FindProjectTests(ctx context.Context, id string) (string, error) {
	tx, err := db.beginRead(ctx, "find project tests")
	if err != nil {
		return "", err
	}
	defer tx.Rollback(ctx)
	if _, err := findProject(ctx, tx, id, ""); err != nil {
		return "", err
	}
	return findProjectTests(ctx, tx, id)
}

func findProjectTests(ctx context.Context, tx querier, id string) (string, error) {
	var body string
	err := tx.QueryRow(ctx, `SELECT body FROM project_tests WHERE project_id = $1`, id).Scan(&body)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	} else if err != nil {
		return "", wrap("find project tests", err)
	}
	return body, nil
}
