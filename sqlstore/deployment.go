package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"redirects"
	"redirects/engine"
	"redirects/internal/coding"
)

// FindDeployments returns a project's deployments, version 1 first, without
// their rules.
func (db *DB) FindDeployments(ctx context.Context, projectID string) ([]*redirects.Deployment, error) {
	const op = "find deployments"
	tx, err := db.beginRead(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := db.findProject(ctx, tx, projectID, ""); err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+deploymentColumns+` FROM deployments WHERE project_id = $1 AND discarded_at IS NULL ORDER BY version`, projectID)
	return collect(db, op, rows, err, func(s scanner) (*redirects.Deployment, error) { return scanDeployment(s, projectID) })
}

// FindDeployment returns one version, or the live one when version is 0, with
// its rules in the order of engine.SortRules.
func (db *DB) FindDeployment(ctx context.Context, projectID string, version int) (*redirects.Deployment, []redirects.Rule, error) {
	tx, err := db.beginRead(ctx, "find deployment")
	if err != nil {
		return nil, nil, err
	}
	defer tx.Rollback()
	if _, err := db.findProject(ctx, tx, projectID, ""); err != nil {
		return nil, nil, err
	}
	d, rules, err := db.findDeployment(ctx, tx, projectID, version, true)
	if err != nil {
		return nil, nil, err
	}
	// Deploy stores the rules sorted already, so this costs one pass; it
	// keeps the promise should the stored order ever change.
	engine.SortRules(rules)
	return d, rules, nil
}

// FindExport returns one export file of a version, or of the live one when
// version is 0. It never reads the version's rule snapshot. A version with
// no export file left was pruned: the deployment comes back with
// redirects.ExportsPruned.
func (db *DB) FindExport(ctx context.Context, projectID string, version int, format string) (*redirects.Deployment, *redirects.Export, error) {
	return db.findExport(ctx, projectID, version, format, 0)
}

// FindCompactExport is FindExport for the edge's export cache: a file of
// at least minLen bytes stored with its encodings comes back compact
// (redirects.CompactExportSource), its identity not decompressed.
func (db *DB) FindCompactExport(ctx context.Context, projectID string, version int, format string, minLen int64) (*redirects.Deployment, *redirects.Export, error) {
	return db.findExport(ctx, projectID, version, format, minLen)
}

func (db *DB) findExport(ctx context.Context, projectID string, version int, format string, minLen int64) (*redirects.Deployment, *redirects.Export, error) {
	const op = "find export"
	tx, err := db.beginRead(ctx, op)
	if err != nil {
		return nil, nil, err
	}
	defer tx.Rollback()
	if _, err := db.findProject(ctx, tx, projectID, ""); err != nil {
		return nil, nil, err
	}
	d, _, err := db.findDeployment(ctx, tx, projectID, version, false)
	if err != nil {
		return nil, nil, err
	}
	e := &redirects.Export{Format: format}
	var bodyCoding string
	var body, gz []byte
	err = tx.QueryRowContext(ctx, `SELECT coding, body, gzip, etag FROM deployment_exports WHERE project_id = $1 AND version = $2 AND format = $3`,
		projectID, d.Version, format).Scan(&bodyCoding, &body, &gz, &e.ETag)
	if errors.Is(err, sql.ErrNoRows) {
		if pruned, err := db.exportsPruned(ctx, tx, projectID, d.Version); err != nil {
			return nil, nil, db.wrap(op, err)
		} else if pruned {
			return d, nil, redirects.ExportsPruned(projectID, d.Version)
		}
		return nil, nil, redirects.Errorf(redirects.ENOTFOUND, "export %q of deployment version %d of project %s not found", format, d.Version, projectID)
	} else if err != nil {
		return nil, nil, db.wrap(op, err)
	}
	if err := coding.UnpackCompact(e, bodyCoding, body, gz, minLen); err != nil {
		return nil, nil, fmt.Errorf("%s: deployment version %d: %w", db.d.Name(), d.Version, err)
	}
	return d, e, nil
}

// deploymentColumns are what scanDeployment reads; the last says whether the
// version is the one the project's live pointer names.
const deploymentColumns = `version, created_at, message, from_version, exact_count, prefix_count, pattern_count, regex_count, report,
	case_sensitive, trailing_slash,
	staged, promoted_at, version = (SELECT live_version FROM projects WHERE projects.id = deployments.project_id)`

// findDeployment returns one version of an existing project, or its live
// one (the project's live pointer, docs/contract.md#staged-deploys) when
// version is 0; a discarded version is not found; and with withRules its decoded rules in stored order.
func (db *DB) findDeployment(ctx context.Context, q querier, projectID string, version int, withRules bool) (*redirects.Deployment, []redirects.Rule, error) {
	if version < 0 {
		return nil, nil, redirects.Errorf(redirects.EINVALID, "deployment version %d is not a positive number", version)
	}
	var blob []byte
	cols, dest := deploymentColumns, []any(nil)
	if withRules {
		cols, dest = cols+`, rules`, []any{&blob}
	}
	var row scanner
	if version == 0 {
		row = q.QueryRowContext(ctx, `SELECT `+cols+` FROM deployments WHERE project_id = $1
			AND version = (SELECT live_version FROM projects WHERE id = $1)`, projectID)
	} else {
		row = q.QueryRowContext(ctx, `SELECT `+cols+` FROM deployments WHERE project_id = $1 AND version = $2 AND discarded_at IS NULL`, projectID, version)
	}
	d, err := scanDeployment(row, projectID, dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, redirects.DeploymentNotFound(projectID, version)
	} else if err != nil {
		return nil, nil, db.wrap("find deployment", err)
	}
	if !withRules {
		return d, nil, nil
	}
	rules, err := engine.DecodeRules(projectID, blob)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: deployment version %d: %w", db.d.Name(), d.Version, err)
	}
	return d, rules, nil
}

func scanDeployment(s scanner, projectID string, extra ...any) (*redirects.Deployment, error) {
	d := redirects.Deployment{ProjectID: projectID}
	var (
		created int64
		cs      bool
		slash   string
		promo   sql.NullInt64
	)
	dest := append([]any{&d.Version, &created, &d.Message, &d.FromVersion, &d.ExactCount, &d.PrefixCount, &d.PatternCount, &d.RegexCount, &d.Report, &cs, &slash,
		&d.Staged, &promo, &d.Live}, extra...)
	if err := s.Scan(dest...); err != nil {
		return nil, err
	}
	d.CreatedAt, d.Settings = fromNanos(created), settingsOf(cs, slash)
	if promo.Valid {
		d.PromotedAt = fromNanos(promo.Int64)
	}
	return &d, nil
}
