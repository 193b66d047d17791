package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"redirects"
)

// Deploy takes the project's draft rules (or, with opts.FromVersion, the
// rules of that version), renders them with build, and stores them as the
// next version with the rendered exports, and records a deploy event, all in
// one IMMEDIATE transaction. The write lock is held from the first read on,
// so two deploys of one project can never pick the same version, and a
// deploy that fails or whose process dies leaves nothing behind: versions
// have no gaps. A builder error is returned as it is.
func (db *DB) Deploy(ctx context.Context, projectID string, opts redirects.DeployOptions, build redirects.Builder) (*redirects.Deployment, error) {
	if opts.FromVersion < 0 {
		return nil, redirects.Errorf(redirects.EINVALID, "version %d to deploy from is not a positive number", opts.FromVersion)
	}
	if build == nil {
		return nil, fmt.Errorf("sqlite: deploy: no builder")
	}
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()

	p, err := findProject(ctx, tx, projectID)
	if err != nil {
		return nil, err
	}
	var rules []redirects.Rule
	if opts.FromVersion > 0 {
		if _, rules, err = findDeployment(ctx, tx, projectID, opts.FromVersion, true); err != nil {
			return nil, err
		}
	} else if rules, err = findRules(ctx, tx, projectID); err != nil {
		return nil, err
	}
	redirects.SortRules(rules)
	// The snapshot is encoded before build sees the rules, so a builder
	// that reorders or edits its slice cannot change what is stored.
	snapshot := redirects.EncodeRules(rules)
	var exact, prefix int
	for i := range rules {
		if rules[i].MatchType == redirects.Exact {
			exact++
		} else {
			prefix++
		}
	}

	content, err := build(rules)
	if err != nil {
		return nil, err
	}
	if content == nil {
		content = &redirects.DeployContent{}
	}

	d := &redirects.Deployment{
		ProjectID:   projectID,
		CreatedAt:   db.now(),
		Message:     opts.Message,
		FromVersion: opts.FromVersion,
		ExactCount:  exact,
		PrefixCount: prefix,
		Report:      content.Report,
	}
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) + 1 FROM deployments WHERE project_id = ?`, projectID).Scan(&d.Version); err != nil {
		return nil, fmt.Errorf("sqlite: deploy: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO deployments
		(project_id, version, created_at, message, from_version, exact_count, prefix_count, report, rules)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		projectID, d.Version, d.CreatedAt.UnixNano(), d.Message, d.FromVersion, d.ExactCount, d.PrefixCount, d.Report,
		snapshot); err != nil {
		return nil, fmt.Errorf("sqlite: deploy: %w", err)
	}
	seen := make(map[string]bool, len(content.Exports))
	for _, e := range content.Exports {
		if e.Format == "" || seen[e.Format] {
			return nil, fmt.Errorf("sqlite: deploy: the builder returned an empty or repeated export format %q", e.Format)
		}
		seen[e.Format] = true
		body := e.Body
		if body == nil {
			body = []byte{} // the column is NOT NULL; an empty file is still a file
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO deployment_exports (project_id, version, format, body, etag) VALUES (?, ?, ?, ?, ?)`,
			projectID, d.Version, e.Format, body, e.ETag); err != nil {
			return nil, fmt.Errorf("sqlite: deploy: export %s: %w", e.Format, err)
		}
	}
	if err := db.insertEvent(ctx, tx, redirects.EventDeploy, p.OrgID, projectID, d.Version, d.CreatedAt); err != nil {
		return nil, fmt.Errorf("sqlite: deploy: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("sqlite: deploy: %w", err)
	}
	return d, nil
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
	if err != nil {
		return nil, fmt.Errorf("sqlite: find deployments: %w", err)
	}
	defer rows.Close()
	var out []*redirects.Deployment
	for rows.Next() {
		d, err := scanDeployment(rows, projectID)
		if err != nil {
			return nil, fmt.Errorf("sqlite: find deployments: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: find deployments: %w", err)
	}
	return out, nil
}

// FindDeployment returns one version, or the latest when version is 0, with
// its rules in the order of redirects.SortRules.
func (db *DB) FindDeployment(ctx context.Context, projectID string, version int) (*redirects.Deployment, []redirects.Rule, error) {
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer tx.Rollback()
	if _, err := findProject(ctx, tx, projectID); err != nil {
		return nil, nil, err
	}
	return findDeployment(ctx, tx, projectID, version, true)
}

// FindExport returns one export file of a version, or of the latest when
// version is 0. It never reads the version's rule snapshot.
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
	err = tx.QueryRowContext(ctx, `SELECT body, etag FROM deployment_exports WHERE project_id = ? AND version = ? AND format = ?`,
		projectID, d.Version, format).Scan(&e.Body, &e.ETag)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, redirects.Errorf(redirects.ENOTFOUND, "export %q of deployment version %d of project %s not found", format, d.Version, projectID)
	} else if err != nil {
		return nil, nil, fmt.Errorf("sqlite: find export: %w", err)
	}
	if e.Body == nil {
		e.Body = []byte{}
	}
	return d, e, nil
}

const deploymentColumns = `version, created_at, message, from_version, exact_count, prefix_count, report`

// findDeployment returns one version of an existing project, or its latest
// when version is 0, and with withRules its decoded rules, sorted.
func findDeployment(ctx context.Context, tx querier, projectID string, version int, withRules bool) (*redirects.Deployment, []redirects.Rule, error) {
	if version < 0 {
		return nil, nil, redirects.Errorf(redirects.EINVALID, "deployment version %d is not a positive number", version)
	}
	cols := deploymentColumns
	if withRules {
		cols += `, rules`
	}
	var row *sql.Row
	if version == 0 {
		row = tx.QueryRowContext(ctx, `SELECT `+cols+` FROM deployments WHERE project_id = ? ORDER BY version DESC LIMIT 1`, projectID)
	} else {
		row = tx.QueryRowContext(ctx, `SELECT `+cols+` FROM deployments WHERE project_id = ? AND version = ?`, projectID, version)
	}
	var blob []byte
	var extra []any
	if withRules {
		extra = append(extra, &blob)
	}
	d, err := scanDeployment(row, projectID, extra...)
	if errors.Is(err, sql.ErrNoRows) {
		if version == 0 {
			return nil, nil, redirects.Errorf(redirects.ENOTFOUND, "project %s has no deployment", projectID)
		}
		return nil, nil, redirects.Errorf(redirects.ENOTFOUND, "deployment version %d of project %s not found", version, projectID)
	} else if err != nil {
		return nil, nil, fmt.Errorf("sqlite: find deployment: %w", err)
	}
	if !withRules {
		return d, nil, nil
	}
	rules, err := redirects.DecodeRules(projectID, blob)
	if err != nil {
		return nil, nil, fmt.Errorf("sqlite: deployment version %d: %w", d.Version, err)
	}
	// Deploy stores the rules sorted already; sorting again costs little on
	// sorted input and keeps the promise if the order ever changes.
	redirects.SortRules(rules)
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
