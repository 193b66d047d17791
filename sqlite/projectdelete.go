package sqlite

import (
	"context"
	"fmt"

	"redirects"
)

// UpdateProject renames a project and records a project event.
func (db *DB) UpdateProject(ctx context.Context, id, name string) (*redirects.Project, error) {
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	p, err := findProject(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	before := redirects.ProjectAuditFields(p)
	p.Name = name
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE projects SET name = ? WHERE id = ?`, name, id); err != nil {
		return nil, fmt.Errorf("sqlite: update project: %w", err)
	}
	b, a := redirects.AuditDiff(before, redirects.ProjectAuditFields(p))
	if err := db.audit(ctx, tx, redirects.AuditProjectUpdate, p.OrgID, p.ID, "project", p.ID, b, a); err != nil {
		return nil, fmt.Errorf("sqlite: update project: %w", err)
	}
	if err := recordEvent(ctx, tx, redirects.EventProject, p.OrgID, id, 0, db.now()); err != nil {
		return nil, fmt.Errorf("sqlite: update project: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("sqlite: update project: %w", err)
	}
	return p, nil
}

// DeleteProject deletes a project and records a project event. The foreign
// keys' ON DELETE CASCADE deletes its rules, keys, deployments and exports
// in the same statement.
func (db *DB) DeleteProject(ctx context.Context, id string) error {
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	p, err := findProject(ctx, tx, id)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM projects WHERE id = ?`, id); err != nil {
		return fmt.Errorf("sqlite: delete project: %w", err)
	}
	if err := db.audit(ctx, tx, redirects.AuditProjectDelete, p.OrgID, p.ID, "project", p.ID, redirects.ProjectAuditFields(p), nil); err != nil {
		return fmt.Errorf("sqlite: delete project: %w", err)
	}
	if err := recordEvent(ctx, tx, redirects.EventProject, p.OrgID, id, 0, db.now()); err != nil {
		return fmt.Errorf("sqlite: delete project: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: delete project: %w", err)
	}
	return nil
}

// DeleteOrg deletes an organization and records an org event. The foreign
// keys' ON DELETE CASCADE deletes its projects, with everything of theirs,
// and its usage in the same statement.
func (db *DB) DeleteOrg(ctx context.Context, id string) error {
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	o, err := findOrg(ctx, tx, id)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM orgs WHERE id = ?`, id); err != nil {
		return fmt.Errorf("sqlite: delete organization: %w", err)
	}
	if err := db.audit(ctx, tx, redirects.AuditOrgDelete, id, "", "org", id, redirects.OrgAuditFields(o), nil); err != nil {
		return fmt.Errorf("sqlite: delete organization: %w", err)
	}
	if err := recordEvent(ctx, tx, redirects.EventOrg, id, "", 0, db.now()); err != nil {
		return fmt.Errorf("sqlite: delete organization: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: delete organization: %w", err)
	}
	return nil
}

// SetProjectHosts sets the hosts a project declares and records the change
// in the audit log. Edge nodes never read hosts, so no event is recorded.
func (db *DB) SetProjectHosts(ctx context.Context, id string, hosts []string) (*redirects.Project, error) {
	hosts, err := redirects.NormalizeHosts(hosts)
	if err != nil {
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
	before := redirects.ProjectAuditFields(p)
	p.Hosts = hosts
	if _, err := tx.ExecContext(ctx, `UPDATE projects SET hosts = ? WHERE id = ?`, joinHosts(hosts), id); err != nil {
		return nil, fmt.Errorf("sqlite: set project hosts: %w", err)
	}
	if b, a := redirects.AuditDiff(before, redirects.ProjectAuditFields(p)); len(a) > 0 {
		if err := db.audit(ctx, tx, redirects.AuditProjectUpdate, p.OrgID, p.ID, "project", p.ID, b, a); err != nil {
			return nil, fmt.Errorf("sqlite: set project hosts: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("sqlite: set project hosts: %w", err)
	}
	return p, nil
}
