package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"redirects"
)

// CreateOrg stores o, setting its ID and CreatedAt, and records an org event.
func (db *DB) CreateOrg(ctx context.Context, o *redirects.Org) error {
	if err := o.Validate(); err != nil {
		return err
	}
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	id, now := redirects.NewOrgID(), db.now()
	if _, err := tx.ExecContext(ctx, `INSERT INTO orgs (id, name, tier, rate_limit_override, quota_override, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		id, o.Name, string(o.Tier), nullLimit(o.RateLimitOverride), nullLimit(o.QuotaOverride), now.UnixNano()); err != nil {
		return wrap("create organization", err)
	}
	if err := recordEvent(ctx, tx, redirects.EventOrg, id, "", 0, now); err != nil {
		return wrap("create organization", err)
	}
	stored := *o
	stored.ID = id
	if err := db.audit(ctx, tx, redirects.AuditOrgCreate, id, "", "org", id, nil, redirects.OrgAuditFields(&stored)); err != nil {
		return fmt.Errorf("sqlite: create organization: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return wrap("create organization", err)
	}
	o.ID, o.CreatedAt = id, now
	o.RateLimitOverride, o.QuotaOverride = normLimit(o.RateLimitOverride), normLimit(o.QuotaOverride)
	return nil
}

// UpdateOrg changes an organization, records an org event and returns the
// organization as stored.
func (db *DB) UpdateOrg(ctx context.Context, id string, u redirects.OrgUpdate) (*redirects.Org, error) {
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()

	o, err := findOrg(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	before := redirects.OrgAuditFields(o)
	u.Apply(o)
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o.RateLimitOverride, o.QuotaOverride = normLimit(o.RateLimitOverride), normLimit(o.QuotaOverride)
	if _, err := tx.ExecContext(ctx, `UPDATE orgs SET name = ?, tier = ?, rate_limit_override = ?, quota_override = ? WHERE id = ?`,
		o.Name, string(o.Tier), nullLimit(o.RateLimitOverride), nullLimit(o.QuotaOverride), id); err != nil {
		return nil, wrap("update organization", err)
	}
	if err := recordEvent(ctx, tx, redirects.EventOrg, id, "", 0, db.now()); err != nil {
		return nil, wrap("update organization", err)
	}
	b, a := redirects.AuditDiff(before, redirects.OrgAuditFields(o))
	if err := db.audit(ctx, tx, redirects.AuditOrgUpdate, id, "", "org", id, b, a); err != nil {
		return nil, fmt.Errorf("sqlite: update organization: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, wrap("update organization", err)
	}
	return o, nil
}

// FindOrgByID returns one organization.
func (db *DB) FindOrgByID(ctx context.Context, id string) (*redirects.Org, error) {
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	return findOrg(ctx, tx, id)
}

// FindOrgs returns every organization, oldest first.
func (db *DB) FindOrgs(ctx context.Context) ([]*redirects.Org, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+orgColumns+` FROM orgs ORDER BY created_at, rowid`)
	return collect("find organizations", rows, err, scanOrg)
}

const orgColumns = `id, name, tier, rate_limit_override, quota_override, created_at`

func findOrg(ctx context.Context, tx querier, id string) (*redirects.Org, error) {
	o, err := scanOrg(tx.QueryRowContext(ctx, `SELECT `+orgColumns+` FROM orgs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "organization %q not found", id)
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: find organization %s: %w", id, err)
	}
	return o, nil
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

func scanOrg(s scanner) (*redirects.Org, error) {
	var (
		o           redirects.Org
		tier        string
		rate, quota sql.NullInt64
		created     int64
	)
	if err := s.Scan(&o.ID, &o.Name, &tier, &rate, &quota, &created); err != nil {
		return nil, err
	}
	o.Tier = redirects.Tier(tier)
	o.RateLimitOverride = limitOf(rate)
	o.QuotaOverride = limitOf(quota)
	o.CreatedAt = fromNanos(created)
	return &o, nil
}

// nullLimit returns the stored form of an override: NULL when unset, -1
// when unlimited.
func nullLimit(l *redirects.Limit) any {
	if l == nil {
		return nil
	}
	if l.IsUnlimited() {
		return int64(redirects.Unlimited)
	}
	return int64(*l)
}

// normLimit returns a copy of l with every unlimited value spelled
// redirects.Unlimited, as the database returns it.
func normLimit(l *redirects.Limit) *redirects.Limit {
	if l == nil {
		return nil
	}
	v := *l
	if v.IsUnlimited() {
		v = redirects.Unlimited
	}
	return &v
}

func limitOf(n sql.NullInt64) *redirects.Limit {
	if !n.Valid {
		return nil
	}
	l := redirects.Limit(n.Int64)
	return &l
}

// CreateProject stores p, setting its ID and CreatedAt, and records a
// project event.
func (db *DB) CreateProject(ctx context.Context, p *redirects.Project) error {
	if err := p.Validate(); err != nil {
		return err
	}
	p.Hosts, _ = redirects.NormalizeHosts(p.Hosts) // Validate checked them
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	if _, err := findOrg(ctx, tx, p.OrgID); err != nil {
		return err
	}
	id, now := redirects.NewProjectID(), db.now()
	retention := cmp.Or(p.ExportRetention, redirects.DefaultExportRetention)
	if _, err := tx.ExecContext(ctx, `INSERT INTO projects (id, org_id, name, created_at, export_retention, hosts) VALUES (?, ?, ?, ?, ?, ?)`,
		id, p.OrgID, p.Name, now.UnixNano(), retention, joinHosts(p.Hosts)); err != nil {
		return wrap("create project", err)
	}
	if err := recordEvent(ctx, tx, redirects.EventProject, p.OrgID, id, 0, now); err != nil {
		return wrap("create project", err)
	}
	if err := db.audit(ctx, tx, redirects.AuditProjectCreate, p.OrgID, id, "project", id, nil, redirects.ProjectAuditFields(p)); err != nil {
		return fmt.Errorf("sqlite: create project: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return wrap("create project", err)
	}
	p.ID, p.CreatedAt, p.ExportRetention, p.ShrinkLimit = id, now, retention, redirects.DefaultShrinkLimit
	return nil
}

// FindProjectByID returns one project.
func (db *DB) FindProjectByID(ctx context.Context, id string) (*redirects.Project, error) {
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	return findProject(ctx, tx, id)
}

// FindProjects returns the projects of orgID, or of every organization when
// orgID is "", oldest first.
func (db *DB) FindProjects(ctx context.Context, orgID string) ([]*redirects.Project, error) {
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()

	var rows *sql.Rows
	if orgID == "" {
		rows, err = tx.QueryContext(ctx, `SELECT `+projectColumns+` FROM projects ORDER BY created_at, rowid`)
	} else {
		if _, err := findOrg(ctx, tx, orgID); err != nil {
			return nil, err
		}
		rows, err = tx.QueryContext(ctx, `SELECT `+projectColumns+` FROM projects WHERE org_id = ? ORDER BY created_at, rowid`, orgID)
	}
	return collect("find projects", rows, err, scanProject)
}

const projectColumns = `id, org_id, name, created_at, export_retention, shrink_limit, hosts`

func findProject(ctx context.Context, tx querier, id string) (*redirects.Project, error) {
	p, err := scanProject(tx.QueryRowContext(ctx, `SELECT `+projectColumns+` FROM projects WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "project %q not found", id)
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: find project %s: %w", id, err)
	}
	return p, nil
}

func scanProject(s scanner) (*redirects.Project, error) {
	var (
		p       redirects.Project
		created int64
		hosts   string
	)
	if err := s.Scan(&p.ID, &p.OrgID, &p.Name, &created, &p.ExportRetention, &p.ShrinkLimit, &hosts); err != nil {
		return nil, err
	}
	p.CreatedAt, p.Hosts = fromNanos(created), splitHosts(hosts)
	return &p, nil
}

// joinHosts returns a project's hosts as the hosts column holds them: one
// per line, "" for none.
func joinHosts(hosts []string) string { return strings.Join(hosts, "\n") }

// splitHosts reads the hosts column.
func splitHosts(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
