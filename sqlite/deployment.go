package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"redirects"
	"redirects/engine"
	"redirects/internal/coding"
)

// WithDeployTx runs fn in one IMMEDIATE transaction (see
// safety.Deploy). The write lock is held from the first read on, so a
// deploy checks, renders and stores exactly the rules it read, two deploys
// of one project can never pick the same version, and a deploy that fails
// or whose process dies leaves nothing behind: versions have no gaps. An
// error of fn is returned as it is.
func (db *DB) WithDeployTx(ctx context.Context, fn func(tx redirects.DeployTx) error) error {
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(deployTx{db, tx}); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return wrap("deploy", err)
	}
	return nil
}

// deployTx is the redirects.DeployTx of a write transaction.
type deployTx struct {
	db *DB
	tx *sql.Tx
}

func (t deployTx) RecordAudit(ctx context.Context, e *redirects.AuditEntry) error {
	return t.db.recordAudit(ctx, t.tx, e)
}

func (t deployTx) FindProject(ctx context.Context, id string) (*redirects.Project, error) {
	return findProject(ctx, t.tx, id)
}

func (t deployTx) FindRules(ctx context.Context, projectID string, version int) ([]redirects.Rule, error) {
	if version == 0 {
		return findRules(ctx, t.tx, projectID)
	}
	_, rules, err := findDeployment(ctx, t.tx, projectID, version, true)
	return rules, err
}

func (t deployTx) FindLiveRules(ctx context.Context, projectID string) ([]redirects.Rule, error) {
	_, rules, err := findDeployment(ctx, t.tx, projectID, 0, true)
	return rules, err
}

func (t deployTx) FindProjectTests(ctx context.Context, projectID string) (string, error) {
	return findProjectTests(ctx, t.tx, projectID)
}

func (t deployTx) Now() time.Time { return t.db.now() }

// InsertRelease numbers the release after the project's latest version and
// stores it, its exports, its event and its audit entry.
func (t deployTx) InsertRelease(ctx context.Context, orgID string, r *redirects.Release) error {
	const op = "deploy"
	d := &r.Deployment
	if err := t.tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) + 1 FROM deployments WHERE project_id = ?`, d.ProjectID).Scan(&d.Version); err != nil {
		return wrap(op, err)
	}
	if _, err := t.tx.ExecContext(ctx, `INSERT INTO deployments
		(project_id, version, created_at, message, from_version, exact_count, prefix_count, report, rules)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.ProjectID, d.Version, d.CreatedAt.UnixNano(), d.Message, d.FromVersion, d.ExactCount, d.PrefixCount, d.Report,
		r.Snapshot); err != nil {
		return wrap(op, err)
	}
	for i := range r.Exports {
		e := &r.Exports[i]
		bodyCoding, body, gz := coding.Pack(e)
		if _, err := t.tx.ExecContext(ctx, `INSERT INTO deployment_exports (project_id, version, format, coding, body, gzip, etag) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			d.ProjectID, d.Version, e.Format, bodyCoding, body, gz, e.ETag); err != nil {
			return wrap(op+": export "+e.Format, err)
		}
	}
	if err := pruneExports(ctx, t.tx, d.ProjectID, d.Version); err != nil {
		return wrap(op+": prune exports", err)
	}
	if err := recordEvent(ctx, t.tx, redirects.EventDeploy, orgID, d.ProjectID, d.Version, d.CreatedAt); err != nil {
		return wrap(op, err)
	}
	return nil
}

// FindDeployments returns a project's deployments, version 1 first, without
// their rules.
func (db *DB) FindDeployments(ctx context.Context, projectID string) ([]*redirects.Deployment, error) {
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := findProject(ctx, tx, projectID); err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+deploymentColumns+` FROM deployments WHERE project_id = ? ORDER BY version`, projectID)
	return collect("find deployments", rows, err, func(s scanner) (*redirects.Deployment, error) { return scanDeployment(s, projectID) })
}

// FindDeployment returns one version, or the latest when version is 0, with
// its rules in the order of engine.SortRules.
func (db *DB) FindDeployment(ctx context.Context, projectID string, version int) (*redirects.Deployment, []redirects.Rule, error) {
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer tx.Rollback()
	if _, err := findProject(ctx, tx, projectID); err != nil {
		return nil, nil, err
	}
	d, rules, err := findDeployment(ctx, tx, projectID, version, true)
	if err != nil {
		return nil, nil, err
	}
	// Deploy stores the rules sorted already, so this costs one pass; it
	// keeps the promise should the stored order ever change.
	engine.SortRules(rules)
	return d, rules, nil
}

// FindExport returns one export file of a version, or of the latest when
// version is 0. It never reads the version's rule snapshot. A version with
// no export file left was pruned: the deployment comes back with
// redirects.ExportsPruned.
func (db *DB) FindExport(ctx context.Context, projectID string, version int, format string) (*redirects.Deployment, *redirects.Export, error) {
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer tx.Rollback()
	if _, err := findProject(ctx, tx, projectID); err != nil {
		return nil, nil, err
	}
	d, _, err := findDeployment(ctx, tx, projectID, version, false)
	if err != nil {
		return nil, nil, err
	}
	e := &redirects.Export{Format: format}
	var bodyCoding string
	var body, gz []byte
	err = tx.QueryRowContext(ctx, `SELECT coding, body, gzip, etag FROM deployment_exports WHERE project_id = ? AND version = ? AND format = ?`,
		projectID, d.Version, format).Scan(&bodyCoding, &body, &gz, &e.ETag)
	if errors.Is(err, sql.ErrNoRows) {
		if pruned, err := exportsPruned(ctx, tx, projectID, d.Version); err != nil {
			return nil, nil, wrap("find export", err)
		} else if pruned {
			return d, nil, redirects.ExportsPruned(projectID, d.Version)
		}
		return nil, nil, redirects.Errorf(redirects.ENOTFOUND, "export %q of deployment version %d of project %s not found", format, d.Version, projectID)
	} else if err != nil {
		return nil, nil, wrap("find export", err)
	}
	if err := coding.Unpack(e, bodyCoding, body, gz); err != nil {
		return nil, nil, fmt.Errorf("sqlite: deployment version %d: %w", d.Version, err)
	}
	return d, e, nil
}

const deploymentColumns = `version, created_at, message, from_version, exact_count, prefix_count, report`

// findDeployment returns one version of an existing project, or its latest
// when version is 0, and with withRules its decoded rules in stored order.
func findDeployment(ctx context.Context, tx querier, projectID string, version int, withRules bool) (*redirects.Deployment, []redirects.Rule, error) {
	if version < 0 {
		return nil, nil, redirects.Errorf(redirects.EINVALID, "deployment version %d is not a positive number", version)
	}
	var blob []byte
	cols, dest := deploymentColumns, []any(nil)
	if withRules {
		cols, dest = cols+`, rules`, []any{&blob}
	}
	var row *sql.Row
	if version == 0 {
		row = tx.QueryRowContext(ctx, `SELECT `+cols+` FROM deployments WHERE project_id = ? ORDER BY version DESC LIMIT 1`, projectID)
	} else {
		row = tx.QueryRowContext(ctx, `SELECT `+cols+` FROM deployments WHERE project_id = ? AND version = ?`, projectID, version)
	}
	d, err := scanDeployment(row, projectID, dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, redirects.DeploymentNotFound(projectID, version)
	} else if err != nil {
		return nil, nil, wrap("find deployment", err)
	}
	if !withRules {
		return d, nil, nil
	}
	rules, err := engine.DecodeRules(projectID, blob)
	if err != nil {
		return nil, nil, fmt.Errorf("sqlite: deployment version %d: %w", d.Version, err)
	}
	return d, rules, nil
}

func scanDeployment(s scanner, projectID string, extra ...any) (*redirects.Deployment, error) {
	d := redirects.Deployment{ProjectID: projectID}
	var created int64
	dest := append([]any{&d.Version, &created, &d.Message, &d.FromVersion, &d.ExactCount, &d.PrefixCount, &d.Report}, extra...)
	if err := s.Scan(dest...); err != nil {
		return nil, err
	}
	d.CreatedAt = fromNanos(created)
	return &d, nil
}
