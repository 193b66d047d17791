package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"redirects"
)

// checkJobColumns are a check's columns as scanCheckJob reads them.
const checkJobColumns = `id, project_id, state, owner, lease_until, base_url, total, checked, broken, skipped, started_at, finished_at, error, report`

// storedReport is a done check's report as the report column holds it.
type storedReport struct {
	Checks      []redirects.DestinationCheck `json:"checks"`
	Skipped     int                          `json:"skipped"`
	NewlyBroken []string                     `json:"newlyBroken"`
}

func scanCheckJob(s scanner) (*redirects.CheckJob, error) {
	var (
		j                        redirects.CheckJob
		state, report            string
		lease, started, finished int64
	)
	if err := s.Scan(&j.ID, &j.ProjectID, &state, &j.Owner, &lease, &j.BaseURL, &j.Total, &j.Checked, &j.Broken, &j.Skipped,
		&started, &finished, &j.Error, &report); err != nil {
		return nil, err
	}
	j.State, j.LeaseUntil, j.StartedAt = redirects.CheckJobState(state), fromNanos(lease), fromNanos(started)
	if finished != 0 {
		j.FinishedAt = fromNanos(finished)
	}
	if report != "" {
		var r storedReport
		if err := json.Unmarshal([]byte(report), &r); err != nil {
			return nil, redirects.Errorf(redirects.EINTERNAL, "check %s: its stored report is not readable: %v", j.ID, err)
		}
		j.Report = &redirects.CheckReport{Checks: r.Checks, Skipped: r.Skipped, NewlyBroken: r.NewlyBroken}
	}
	return &j, nil
}

// StartCheckJob records job as its project's running check, in one
// transaction that holds the project's row: a running check whose lease
// ran out is failed (abandoned) first, one still held is an ECONFLICT,
// and checks beyond the CheckJobsKept latest are forgotten.
func (db *DB) StartCheckJob(ctx context.Context, job *redirects.CheckJob) error {
	const op = "start destination check"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	p, err := db.findProject(ctx, tx, job.ProjectID, "FOR NO KEY UPDATE")
	if err != nil {
		return err
	}
	now := db.now()
	run, err := db.runningCheckJob(ctx, tx, p.ID)
	if err != nil {
		return err
	}
	if run != nil {
		if !run.Abandoned(now) {
			return redirects.Errorf(redirects.ECONFLICT, "check %s of project %q runs (started %s, %d of %d destinations done): read it, or start another once it ends",
				run.ID, p.ID, run.StartedAt.Format(time.RFC3339), run.Checked, run.Total)
		}
		seen := run.AsSeen(now)
		if _, err := tx.ExecContext(ctx, `UPDATE destination_check_jobs SET state = 'failed', finished_at = $2, error = $3 WHERE id = $1`,
			run.ID, seen.FinishedAt.UnixNano(), seen.Error); err != nil {
			return db.wrap(op, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO destination_check_jobs (`+checkJobColumns+`)
		VALUES ($1, $2, 'running', $3, $4, $5, $6, 0, 0, $7, $8, 0, '', '')`,
		job.ID, p.ID, job.Owner, job.LeaseUntil.UnixNano(), job.BaseURL, int64(job.Total), int64(job.Skipped), job.StartedAt.UnixNano()); err != nil {
		return db.wrap(op, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM destination_check_jobs WHERE project_id = $1 AND state <> 'running' AND id NOT IN (
		SELECT id FROM destination_check_jobs WHERE project_id = $1 ORDER BY started_at DESC, id DESC LIMIT $2)`,
		p.ID, int64(redirects.CheckJobsKept)); err != nil {
		return db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap(op, err)
	}
	job.State, job.Checked, job.Broken = redirects.CheckRunning, 0, 0
	return nil
}

// ProgressCheckJob records how far a running check has got and renews
// its lease, while the lease it has holds.
func (db *DB) ProgressCheckJob(ctx context.Context, id string, checked, broken int, leaseUntil time.Time) error {
	res, err := db.write.ExecContext(ctx, `UPDATE destination_check_jobs SET checked = $2, broken = $3, lease_until = $4
		WHERE id = $1 AND state = 'running' AND lease_until > $5`,
		id, int64(checked), int64(broken), leaseUntil.UnixNano(), db.now().UnixNano())
	if err != nil {
		return db.wrap("record a destination check's progress", err)
	}
	if affected(res) != 1 {
		return redirects.Errorf(redirects.ECONFLICT, "check %s no longer runs (ended, or abandoned when its lease ran out)", id)
	}
	return nil
}

// FinishCheckJob ends a running check whose lease holds: failed, or
// done with its results recorded in the same transaction.
func (db *DB) FinishCheckJob(ctx context.Context, id string, checks []redirects.DestinationCheck, skipped int, failure string) ([]string, error) {
	const op = "finish destination check"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var projectID string
	now := db.now()
	// An UPDATE, not a SELECT, claims the row: on PostgreSQL it takes the
	// row's lock, so that a start on another node that finds the lease run
	// out (and fails this check) waits for this transaction or is seen by
	// it, and a check never turns done after it was failed.
	err = tx.QueryRowContext(ctx, `UPDATE destination_check_jobs SET finished_at = $2
		WHERE id = $1 AND state = 'running' AND lease_until > $2 RETURNING project_id`,
		id, now.UnixNano()).Scan(&projectID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, redirects.Errorf(redirects.ECONFLICT, "check %s no longer runs (ended, or abandoned when its lease ran out): its results are not recorded", id)
	} else if err != nil {
		return nil, db.wrap(op, err)
	}
	if failure != "" {
		if _, err := tx.ExecContext(ctx, `UPDATE destination_check_jobs SET state = 'failed', finished_at = $2, error = $3 WHERE id = $1`,
			id, now.UnixNano(), failure); err != nil {
			return nil, db.wrap(op, err)
		}
		if err := tx.Commit(); err != nil {
			return nil, db.wrap(op, err)
		}
		return nil, nil
	}
	p, err := db.findProject(ctx, tx, projectID, "")
	if err != nil {
		return nil, err
	}
	broke, err := db.recordDestinationChecks(ctx, tx, p, checks, skipped)
	if err != nil {
		return nil, err
	}
	nb := broke
	if nb == nil {
		nb = []string{}
	}
	report, err := json.Marshal(storedReport{Checks: checks, Skipped: skipped, NewlyBroken: nb})
	if err != nil {
		return nil, redirects.Errorf(redirects.EINTERNAL, "%s: %v", op, err)
	}
	nbroken := 0
	for i := range checks {
		if checks[i].Broken() {
			nbroken++
		}
	}
	if _, err := tx.ExecContext(ctx, `UPDATE destination_check_jobs SET state = 'done', checked = $2, broken = $3, finished_at = $4, report = $5 WHERE id = $1`,
		id, int64(len(checks)), int64(nbroken), now.UnixNano(), string(report)); err != nil {
		return nil, db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, db.wrap(op, err)
	}
	return broke, nil
}

// FindCheckJob returns one check of a project.
func (db *DB) FindCheckJob(ctx context.Context, projectID, id string) (*redirects.CheckJob, error) {
	j, err := scanCheckJob(db.read.QueryRowContext(ctx, `SELECT `+checkJobColumns+` FROM destination_check_jobs WHERE project_id = $1 AND id = $2`, projectID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "check %q of project %q not found", id, projectID)
	} else if err != nil {
		return nil, db.wrap("find destination check", err)
	}
	return j, nil
}

// FindRunningCheckJob returns the project's check recorded as running,
// or nil.
func (db *DB) FindRunningCheckJob(ctx context.Context, projectID string) (*redirects.CheckJob, error) {
	return db.runningCheckJob(ctx, db.read, projectID)
}

func (db *DB) runningCheckJob(ctx context.Context, q querier, projectID string) (*redirects.CheckJob, error) {
	j, err := scanCheckJob(q.QueryRowContext(ctx, `SELECT `+checkJobColumns+` FROM destination_check_jobs WHERE project_id = $1 AND state = 'running'`, projectID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, db.wrap("find the running destination check", err)
	}
	return j, nil
}
