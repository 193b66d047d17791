package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"redirects"
	"redirects/safety"
)

// SetProjectShrinkLimit sets the percentage of the live rules a deploy may
// remove unconfirmed, and records a project.update audit entry.
func (db *DB) SetProjectShrinkLimit(ctx context.Context, id string, percent int) (*redirects.Project, error) {
	if err := redirects.ValidateShrinkLimit(percent); err != nil {
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
	before := p.ShrinkLimit
	if before == percent {
		return p, nil
	}
	if _, err := tx.ExecContext(ctx, `UPDATE projects SET shrink_limit = ? WHERE id = ?`, percent, id); err != nil {
		return nil, fmt.Errorf("sqlite: set shrink limit: %w", err)
	}
	p.ShrinkLimit = percent
	if err := db.recordAudit(ctx, tx, redirects.ShrinkLimitAuditEntry(ctx, db.now(), p, before)); err != nil {
		return nil, fmt.Errorf("sqlite: set shrink limit: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("sqlite: set shrink limit: %w", err)
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
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	p, err := findProject(ctx, tx, id)
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
		_, err = tx.ExecContext(ctx, `DELETE FROM project_tests WHERE project_id = ?`, id)
	} else {
		_, err = tx.ExecContext(ctx, `INSERT INTO project_tests (project_id, body) VALUES (?, ?)
			ON CONFLICT (project_id) DO UPDATE SET body = excluded.body`, id, csv)
	}
	if err != nil {
		return fmt.Errorf("sqlite: set project tests: %w", err)
	}
	if err := db.recordAudit(ctx, tx, redirects.TestsAuditEntry(ctx, db.now(), p, before, after)); err != nil {
		return fmt.Errorf("sqlite: set project tests: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: set project tests: %w", err)
	}
	return nil
}

// FindProjectTests returns the project's stored test file, or "".
func (db *DB) FindProjectTests(ctx context.Context, id string) (string, error) {
	tx, err := db.beginRead(ctx)
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	if _, err := findProject(ctx, tx, id); err != nil {
		return "", err
	}
	return findProjectTests(ctx, tx, id)
}

func findProjectTests(ctx context.Context, tx querier, id string) (string, error) {
	var body string
	err := tx.QueryRowContext(ctx, `SELECT body FROM project_tests WHERE project_id = ?`, id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	} else if err != nil {
		return "", fmt.Errorf("sqlite: find project tests: %w", err)
	}
	return body, nil
}
