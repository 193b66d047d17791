package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"redirects"
	"redirects/safety"
)

// SetProjectShrinkLimit sets the percentage of the live rules a deploy may
// remove unconfirmed, and records a project.update audit entry.
func (db *DB) SetProjectShrinkLimit(ctx context.Context, id string, percent int) (*redirects.Project, error) {
	if err := redirects.ValidateShrinkLimit(percent); err != nil {
		return nil, err
	}
	return db.changeProject(ctx, "set shrink limit", id, func(tx *Tx, p *redirects.Project) (bool, error) {
		before := p.ShrinkLimit
		if before == percent {
			return false, nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE projects SET shrink_limit = $1 WHERE id = $2`, percent, id); err != nil {
			return false, err
		}
		p.ShrinkLimit = percent
		return true, db.recordAudit(ctx, tx, redirects.ShrinkLimitAuditEntry(ctx, db.now(), p, before))
	})
}

// SetProjectTests stores the project's test file, or removes it for "", and
// records a project.tests audit entry.
func (db *DB) SetProjectTests(ctx context.Context, id, csv string) error {
	after, err := safety.CountTests(csv)
	if err != nil {
		return err
	}
	_, err = db.changeProject(ctx, "set project tests", id, func(tx *Tx, p *redirects.Project) (bool, error) {
		old, err := db.findProjectTests(ctx, tx, id)
		if err != nil {
			return false, err
		}
		// The stored file passed this check when it was stored.
		before, _ := safety.CountTests(old)
		if csv == "" {
			_, err = tx.ExecContext(ctx, `DELETE FROM project_tests WHERE project_id = $1`, id)
		} else {
			_, err = tx.ExecContext(ctx, `INSERT INTO project_tests (project_id, body) VALUES ($1, $2)
				ON CONFLICT (project_id) DO UPDATE SET body = excluded.body`, id, csv)
		}
		if err != nil {
			return false, err
		}
		return true, db.recordAudit(ctx, tx, redirects.TestsAuditEntry(ctx, db.now(), p, before, after))
	})
	return err
}

// FindProjectTests returns the project's stored test file, or "".
func (db *DB) FindProjectTests(ctx context.Context, id string) (string, error) {
	tx, err := db.beginRead(ctx, "find project tests")
	if err != nil {
		return "", err
	}
	defer tx.Rollback()
	if _, err := db.findProject(ctx, tx, id, ""); err != nil {
		return "", err
	}
	return db.findProjectTests(ctx, tx, id)
}

func (db *DB) findProjectTests(ctx context.Context, tx querier, id string) (string, error) {
	var body string
	err := tx.QueryRowContext(ctx, `SELECT body FROM project_tests WHERE project_id = $1`, id).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	} else if err != nil {
		return "", db.wrap("find project tests", err)
	}
	return body, nil
}
