package sqlstore

import (
	"context"
	"errors"

	"redirects"
)

// UpdateProject renames a project and records a project event. The row is
// locked from the read to commit, so two renames cannot interleave.
func (db *DB) UpdateProject(ctx context.Context, id, name string) (*redirects.Project, error) {
	return db.changeProject(ctx, "update project", id, func(tx *Tx, p *redirects.Project) (bool, error) {
		before := redirects.ProjectAuditFields(p)
		p.Name = name
		if err := p.Validate(); err != nil {
			return false, err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE projects SET name = $1 WHERE id = $2`, name, id); err != nil {
			return false, err
		}
		b, a := redirects.AuditDiff(before, redirects.ProjectAuditFields(p))
		if err := db.audit(ctx, tx, redirects.AuditProjectUpdate, p.OrgID, p.ID, "project", p.ID, b, a); err != nil {
			return false, err
		}
		return true, db.recordEvent(ctx, tx, redirects.EventProject, p.OrgID, id, 0, db.now())
	})
}

// DeleteProject deletes a project and records a project event. The foreign
// keys' ON DELETE CASCADE deletes its keys, deployments and exports, and the
// trigger projects_delete_rules its rules, in the same statement. The
// project's row lock (taken by the DELETE) waits for a deploy, an import or
// a rule edit of the project in progress, and they for it.
//
// The cascade deletes the project's rule_hit_counts rows in the order they
// lie in, while a fold of hit batches (FoldHits) locks them in id order:
// PostgreSQL may end one of the two as deadlocked. A delete so ended
// changed nothing and is tried again, up to three times in all.
func (db *DB) DeleteProject(ctx context.Context, id string) error {
	return retryDeadlock(ctx, func() error { return db.deleteProject(ctx, id) })
}

// retryDeadlock runs try up to three times while it fails as a deadlock
// (SQLSTATE 40P01: the database rolled its transaction back).
func retryDeadlock(ctx context.Context, try func() error) error {
	var err error
	for range 3 {
		if err = try(); err == nil || !isDeadlock(err) || ctx.Err() != nil {
			break
		}
	}
	return err
}

// isDeadlock reports whether err is PostgreSQL's deadlock_detected.
func isDeadlock(err error) bool {
	var s interface{ SQLState() string }
	return errors.As(err, &s) && s.SQLState() == "40P01"
}

// deleteProject is one try of DeleteProject.
func (db *DB) deleteProject(ctx context.Context, id string) error {
	const op = "delete project"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	p, err := db.findProject(ctx, tx, id, "FOR UPDATE")
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM projects WHERE id = $1`, id); err != nil {
		return db.wrap(op, err)
	}
	if err := db.audit(ctx, tx, redirects.AuditProjectDelete, p.OrgID, p.ID, "project", p.ID, redirects.ProjectAuditFields(p), nil); err != nil {
		return db.wrap(op, err)
	}
	if err := db.recordEvent(ctx, tx, redirects.EventProject, p.OrgID, id, 0, db.now()); err != nil {
		return db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap(op, err)
	}
	return nil
}

// DeleteOrg deletes an organization and records an org event. The foreign
// keys cascade to its projects (and, through them and the trigger, to
// everything of theirs) and its usage. Like DeleteProject it is tried
// again if it deadlocks with a fold of hit batches.
func (db *DB) DeleteOrg(ctx context.Context, id string) error {
	return retryDeadlock(ctx, func() error { return db.deleteOrg(ctx, id) })
}

// deleteOrg is one try of DeleteOrg.
func (db *DB) deleteOrg(ctx context.Context, id string) error {
	const op = "delete organization"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	o, err := db.findOrg(ctx, tx, id, true)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM orgs WHERE id = $1`, id); err != nil {
		return db.wrap(op, err)
	}
	if err := db.audit(ctx, tx, redirects.AuditOrgDelete, id, "", "org", id, redirects.OrgAuditFields(o), nil); err != nil {
		return db.wrap(op, err)
	}
	if err := db.recordEvent(ctx, tx, redirects.EventOrg, id, "", 0, db.now()); err != nil {
		return db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap(op, err)
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
	return db.changeProject(ctx, "set project hosts", id, func(tx *Tx, p *redirects.Project) (bool, error) {
		before := redirects.ProjectAuditFields(p)
		p.Hosts = hosts
		if _, err := tx.ExecContext(ctx, `UPDATE projects SET hosts = $1 WHERE id = $2`, joinHosts(hosts), id); err != nil {
			return false, err
		}
		if b, a := redirects.AuditDiff(before, redirects.ProjectAuditFields(p)); len(a) > 0 {
			return true, db.audit(ctx, tx, redirects.AuditProjectUpdate, p.OrgID, p.ID, "project", p.ID, b, a)
		}
		return true, nil
	})
}
