package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"redirects"
)

// Deploy takes the project's draft rules (or, with opts.FromVersion, the
// rules of that version), renders them with build, and stores them as the
// next version with the rendered exports, and records a deploy event, all in
// one transaction.
//
// The transaction first locks the project's row (FOR NO KEY UPDATE) and
// holds it to commit, so two deploys of one project, from any process, run
// one after the other: the second reads the versions after the first has
// committed and can never pick the same number. A deploy that fails or whose
// connection dies rolls back whole, so versions have no gaps. The lock does
// not block rule edits, key creation or reads. A builder error is returned
// as it is.
func (db *DB) Deploy(ctx context.Context, projectID string, opts redirects.DeployOptions, build redirects.Builder) (*redirects.Deployment, error) {
	const op = "deploy"
	if opts.FromVersion < 0 {
		return nil, redirects.Errorf(redirects.EINVALID, "version %d to deploy from is not a positive number", opts.FromVersion)
	}
	if build == nil {
		return nil, fmt.Errorf("postgres: deploy: no builder")
	}
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)

	p, err := findProject(ctx, tx, projectID, "FOR NO KEY UPDATE")
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
	seen := make(map[string]bool, len(content.Exports))
	for _, e := range content.Exports {
		if e.Format == "" || seen[e.Format] {
			return nil, fmt.Errorf("postgres: deploy: the builder returned an empty or repeated export format %q", e.Format)
		}
		seen[e.Format] = true
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
	if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) + 1 FROM deployments WHERE project_id = $1`, projectID).Scan(&d.Version); err != nil {
		return nil, wrap(op, err)
	}
	// The deployment and its exports go in one round trip.
	b := &pgx.Batch{}
	b.Queue(`INSERT INTO deployments
		(project_id, version, created_at, message, from_version, exact_count, prefix_count, report, rules)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		projectID, d.Version, d.CreatedAt.UnixNano(), d.Message, d.FromVersion, d.ExactCount, d.PrefixCount, d.Report,
		snapshot)
	for _, e := range content.Exports {
		body := e.Body
		if body == nil {
			body = []byte{} // the column is NOT NULL; an empty file is still a file
		}
		b.Queue(`INSERT INTO deployment_exports (project_id, version, format, body, etag) VALUES ($1, $2, $3, $4, $5)`,
			projectID, d.Version, e.Format, body, e.ETag)
	}
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, wrap(op, err)
	}
	if err := recordEvent(ctx, tx, redirects.EventDeploy, p.OrgID, projectID, d.Version, d.CreatedAt); err != nil {
		return nil, wrap(op, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, wrap(op, err)
	}
	return d, nil
}

// FindDeployments returns a project's deployments, version 1 first, without
// their rules.
func (db *DB) FindDeployments(ctx context.Context, projectID string) ([]*redirects.Deployment, error) {
	const op = "find deployments"
	tx, err := db.beginRead(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	if _, err := findProject(ctx, tx, projectID, ""); err != nil {
		return nil, err
	}
	rows, err := tx.Query(ctx, `SELECT `+deploymentColumns+` FROM deployments WHERE project_id = $1 ORDER BY version`, projectID)
	if err != nil {
		return nil, wrap(op, err)
	}
	defer rows.Close()
	var out []*redirects.Deployment
	for rows.Next() {
		d, err := scanDeployment(rows, projectID)
		if err != nil {
			return nil, wrap(op, err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap(op, err)
	}
	return out, nil
}

// FindDeployment returns one version, or the latest when version is 0, with
// its rules in the order of redirects.SortRules.
func (db *DB) FindDeployment(ctx context.Context, projectID string, version int) (*redirects.Deployment, []redirects.Rule, error) {
	tx, err := db.beginRead(ctx, "find deployment")
	if err != nil {
		return nil, nil, err
	}
	defer tx.Rollback(ctx)
	if _, err := findProject(ctx, tx, projectID, ""); err != nil {
		return nil, nil, err
	}
	return findDeployment(ctx, tx, projectID, version, true)
}

// FindExport returns one export file of a version, or of the latest when
// version is 0. It never reads the version's rule snapshot.
func (db *DB) FindExport(ctx context.Context, projectID string, version int, format string) (*redirects.Deployment, *redirects.Export, error) {
	const op = "find export"
	tx, err := db.beginRead(ctx, op)
	if err != nil {
		return nil, nil, err
	}
	defer tx.Rollback(ctx)
	if _, err := findProject(ctx, tx, projectID, ""); err != nil {
		return nil, nil, err
	}
	d, _, err := findDeployment(ctx, tx, projectID, version, false)
	if err != nil {
		return nil, nil, err
	}
	e := &redirects.Export{Format: format}
	err = tx.QueryRow(ctx, `SELECT body, etag FROM deployment_exports WHERE project_id = $1 AND version = $2 AND format = $3`,
		projectID, d.Version, format).Scan(&e.Body, &e.ETag)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil, redirects.Errorf(redirects.ENOTFOUND, "export %q of deployment version %d of project %s not found", format, d.Version, projectID)
	} else if err != nil {
		return nil, nil, wrap(op, err)
	}
	if e.Body == nil {
		e.Body = []byte{}
	}
	return d, e, nil
}

const deploymentColumns = `version, created_at, message, from_version, exact_count, prefix_count, report`

// findDeployment returns one version of an existing project, or its latest
// when version is 0, and with withRules its decoded rules, sorted.
func findDeployment(ctx context.Context, q querier, projectID string, version int, withRules bool) (*redirects.Deployment, []redirects.Rule, error) {
	if version < 0 {
		return nil, nil, redirects.Errorf(redirects.EINVALID, "deployment version %d is not a positive number", version)
	}
	cols := deploymentColumns
	if withRules {
		cols += `, rules`
	}
	var row pgx.Row
	if version == 0 {
		row = q.QueryRow(ctx, `SELECT `+cols+` FROM deployments WHERE project_id = $1 ORDER BY version DESC LIMIT 1`, projectID)
	} else {
		row = q.QueryRow(ctx, `SELECT `+cols+` FROM deployments WHERE project_id = $1 AND version = $2`, projectID, version)
	}
	var blob []byte
	var extra []any
	if withRules {
		extra = append(extra, &blob)
	}
	d, err := scanDeployment(row, projectID, extra...)
	if errors.Is(err, pgx.ErrNoRows) {
		if version == 0 {
			return nil, nil, redirects.Errorf(redirects.ENOTFOUND, "project %s has no deployment", projectID)
		}
		return nil, nil, redirects.Errorf(redirects.ENOTFOUND, "deployment version %d of project %s not found", version, projectID)
	} else if err != nil {
		return nil, nil, wrap("find deployment", err)
	}
	if !withRules {
		return d, nil, nil
	}
	rules, err := redirects.DecodeRules(projectID, blob)
	if err != nil {
		return nil, nil, fmt.Errorf("postgres: deployment version %d: %w", d.Version, err)
	}
	// Deploy stores the rules sorted already; sorting again costs little on
	// sorted input and keeps the promise if the order ever changes.
	redirects.SortRules(rules)
	return d, rules, nil
}

func scanDeployment(s pgx.Row, projectID string, extra ...any) (*redirects.Deployment, error) {
	d := redirects.Deployment{ProjectID: projectID}
	var created int64
	dest := append([]any{&d.Version, &created, &d.Message, &d.FromVersion, &d.ExactCount, &d.PrefixCount, &d.Report}, extra...)
	if err := s.Scan(dest...); err != nil {
		return nil, err
	}
	d.CreatedAt = fromNanos(created)
	return &d, nil
}
