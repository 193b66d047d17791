package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"strings"

	"redirects"
)

// CreateOrg stores o, setting its ID and CreatedAt, and records an org event.
func (db *DB) CreateOrg(ctx context.Context, o *redirects.Org) error {
	const op = "create organization"
	if err := o.Validate(); err != nil {
		return err
	}
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	id, now := redirects.NewOrgID(), db.now()
	if _, err := tx.ExecContext(ctx, `INSERT INTO orgs (id, name, tier, rate_limit_override, quota_override, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		id, o.Name, string(o.Tier), nullLimit(o.RateLimitOverride), nullLimit(o.QuotaOverride), now.UnixNano()); err != nil {
		return db.wrap(op, err)
	}
	stored := *o
	stored.ID = id
	if err := db.audit(ctx, tx, redirects.AuditOrgCreate, id, "", "org", id, nil, redirects.OrgAuditFields(&stored)); err != nil {
		return db.wrap(op, err)
	}
	if err := db.recordEvent(ctx, tx, redirects.EventOrg, id, "", 0, now); err != nil {
		return db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap(op, err)
	}
	o.ID, o.CreatedAt = id, now
	o.RateLimitOverride, o.QuotaOverride = normLimit(o.RateLimitOverride), normLimit(o.QuotaOverride)
	return nil
}

// UpdateOrg changes an organization, records an org event and returns the
// organization as stored. The row is locked from the read to commit, so two
// concurrent updates of one organization cannot lose each other's changes.
func (db *DB) UpdateOrg(ctx context.Context, id string, u redirects.OrgUpdate) (*redirects.Org, error) {
	const op = "update organization"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()

	o, err := db.findOrg(ctx, tx, id, true)
	if err != nil {
		return nil, err
	}
	before := redirects.OrgAuditFields(o)
	u.Apply(o)
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o.RateLimitOverride, o.QuotaOverride = normLimit(o.RateLimitOverride), normLimit(o.QuotaOverride)
	if _, err := tx.ExecContext(ctx, `UPDATE orgs SET name = $1, tier = $2, rate_limit_override = $3, quota_override = $4 WHERE id = $5`,
		o.Name, string(o.Tier), nullLimit(o.RateLimitOverride), nullLimit(o.QuotaOverride), id); err != nil {
		return nil, db.wrap(op, err)
	}
	b, a := redirects.AuditDiff(before, redirects.OrgAuditFields(o))
	if err := db.audit(ctx, tx, redirects.AuditOrgUpdate, id, "", "org", id, b, a); err != nil {
		return nil, db.wrap(op, err)
	}
	if err := db.recordEvent(ctx, tx, redirects.EventOrg, id, "", 0, db.now()); err != nil {
		return nil, db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, db.wrap(op, err)
	}
	return o, nil
}

// FindOrgByID returns one organization.
func (db *DB) FindOrgByID(ctx context.Context, id string) (*redirects.Org, error) {
	return db.findOrg(ctx, db.read, id, false)
}

// FindOrgs returns every organization, oldest first.
func (db *DB) FindOrgs(ctx context.Context) ([]*redirects.Org, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+orgColumns+` FROM orgs ORDER BY created_at, `+db.d.Seq())
	return collect(db, "find organizations", rows, err, scanOrg)
}

const orgColumns = `id, name, tier, rate_limit_override, quota_override, created_at`

// findOrg returns one organization; with forUpdate, its row stays locked
// to the end of the transaction. The lock is NO KEY UPDATE: the ID never
// changes, so the foreign-key checks of new projects need not wait.
func (db *DB) findOrg(ctx context.Context, q querier, id string, forUpdate bool) (*redirects.Org, error) {
	query := `SELECT ` + orgColumns + ` FROM orgs WHERE id = $1`
	if forUpdate {
		query += db.d.Lock("FOR NO KEY UPDATE")
	}
	o, err := scanOrg(q.QueryRowContext(ctx, query, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "organization %q not found", id)
	} else if err != nil {
		return nil, db.wrap("find organization "+id, err)
	}
	return o, nil
}

func scanOrg(s scanner) (*redirects.Org, error) {
	var (
		o           redirects.Org
		tier        string
		rate, quota *int64
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
func nullLimit(l *redirects.Limit) *int64 {
	if l == nil {
		return nil
	}
	n := int64(*l)
	if l.IsUnlimited() {
		n = int64(redirects.Unlimited)
	}
	return &n
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

func limitOf(n *int64) *redirects.Limit {
	if n == nil {
		return nil
	}
	l := redirects.Limit(*n)
	return &l
}

// CreateProject stores p, setting its ID and CreatedAt, and records a
// project event.
func (db *DB) CreateProject(ctx context.Context, p *redirects.Project) error {
	const op = "create project"
	if err := p.Validate(); err != nil {
		return err
	}
	p.Hosts, _ = redirects.NormalizeHosts(p.Hosts) // Validate checked them
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	if _, err := db.findOrg(ctx, tx, p.OrgID, false); err != nil {
		return err
	}
	id, now := redirects.NewProjectID(), db.now()
	retention := cmp.Or(p.ExportRetention, redirects.DefaultExportRetention)
	if _, err := tx.ExecContext(ctx, `INSERT INTO projects (id, org_id, name, created_at, export_retention, hosts, case_sensitive, trailing_slash)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		id, p.OrgID, p.Name, now.UnixNano(), retention, joinHosts(p.Hosts), p.Settings.CaseSensitive(), p.Settings.TrailingSlash()); err != nil {
		return db.wrap(op, err)
	}
	if err := db.audit(ctx, tx, redirects.AuditProjectCreate, p.OrgID, id, "project", id, nil, redirects.ProjectAuditFields(p)); err != nil {
		return db.wrap(op, err)
	}
	if err := db.recordEvent(ctx, tx, redirects.EventProject, p.OrgID, id, 0, now); err != nil {
		return db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap(op, err)
	}
	p.ID, p.CreatedAt, p.ExportRetention, p.ShrinkLimit = id, now, retention, redirects.DefaultShrinkLimit
	return nil
}

// FindProjectByID returns one project.
func (db *DB) FindProjectByID(ctx context.Context, id string) (*redirects.Project, error) {
	return db.findProject(ctx, db.read, id, "")
}

// FindProjects returns the projects of orgID, or of every organization when
// orgID is "", oldest first.
func (db *DB) FindProjects(ctx context.Context, orgID string) ([]*redirects.Project, error) {
	const op = "find projects"
	tx, err := db.beginRead(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()

	var rows *sql.Rows
	if orgID == "" {
		rows, err = tx.QueryContext(ctx, `SELECT `+projectColumns+` FROM projects ORDER BY created_at, `+db.d.Seq())
	} else {
		if _, err := db.findOrg(ctx, tx, orgID, false); err != nil {
			return nil, err
		}
		rows, err = tx.QueryContext(ctx, `SELECT `+projectColumns+` FROM projects WHERE org_id = $1 ORDER BY created_at, `+db.d.Seq(), orgID)
	}
	return collect(db, op, rows, err, scanProject)
}

// projectColumns are what scanProject reads; the last is the newest version
// number handed out, discarded staged versions included.
const projectColumns = `id, org_id, name, created_at, export_retention, shrink_limit, hosts, case_sensitive, trailing_slash, live_version, require_stage,
	(SELECT COALESCE(MAX(version), 0) FROM deployments WHERE deployments.project_id = projects.id)`

// changeProject runs change on project id in a writing transaction, with
// the project's row locked from the read to commit, and commits what
// change did unless it reports no change. An error of change is returned
// as op's (a domain error as it is). It returns the project as change
// left it.
func (db *DB) changeProject(ctx context.Context, op, id string, change func(tx *Tx, p *redirects.Project) (bool, error)) (*redirects.Project, error) {
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	p, err := db.findProject(ctx, tx, id, "FOR NO KEY UPDATE")
	if err != nil {
		return nil, err
	}
	if changed, err := change(tx, p); err != nil {
		return nil, db.wrap(op, err)
	} else if !changed {
		return p, nil
	}
	if err := tx.Commit(); err != nil {
		return nil, db.wrap(op, err)
	}
	return p, nil
}

// findProject returns one project. lock, when not "", is a row-locking
// clause ("FOR NO KEY UPDATE", "FOR SHARE") that holds the row to the end of
// the transaction.
func (db *DB) findProject(ctx context.Context, q querier, id, lock string) (*redirects.Project, error) {
	query := `SELECT ` + projectColumns + ` FROM projects WHERE id = $1`
	if lock != "" {
		query += db.d.Lock(lock)
	}
	p, err := scanProject(q.QueryRowContext(ctx, query, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "project %q not found", id)
	} else if err != nil {
		return nil, db.wrap("find project "+id, err)
	}
	return p, nil
}

func scanProject(s scanner) (*redirects.Project, error) {
	var (
		p       redirects.Project
		created int64
		hosts   string
		cs      bool
		slash   string
	)
	if err := s.Scan(&p.ID, &p.OrgID, &p.Name, &created, &p.ExportRetention, &p.ShrinkLimit, &hosts, &cs, &slash, &p.LiveVersion, &p.RequireStage, &p.NewestVersion); err != nil {
		return nil, err
	}
	p.CreatedAt, p.Hosts = fromNanos(created), splitHosts(hosts)
	p.Settings = settingsOf(cs, slash)
	return &p, nil
}

// settingsOf reads the case_sensitive and trailing_slash columns.
func settingsOf(caseSensitive bool, trailingSlash string) redirects.Settings {
	return redirects.Settings{CaseInsensitive: !caseSensitive, IgnoreTrailingSlash: trailingSlash == redirects.TrailingSlashIgnore}
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
