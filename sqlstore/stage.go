package sqlstore

// Staged deploys (docs/contract.md#staged-deploys): the project's live
// pointer, promote, discard and the require-stage setting. A staged
// version is stored by the deploy (deploy.go) like any other, without
// moving the pointer.

import (
	"context"
	"strconv"

	"redirects"
)

// setLive moves the project's live pointer to version.
func (db *DB) setLive(ctx context.Context, q querier, projectID string, version int) error {
	_, err := q.ExecContext(ctx, `UPDATE projects SET live_version = $1 WHERE id = $2`, version, projectID)
	return err
}

// PromoteDeployment moves the project's live pointer to version, in a write
// transaction that holds the project's row (as a deploy does, so a promote
// and a deploy of one project run one after the other), and records the
// deploy event edge nodes reload on and the deployment.promote audit entry.
// The version's content is not touched; it is no longer staged.
func (db *DB) PromoteDeployment(ctx context.Context, projectID string, version int) (*redirects.Deployment, error) {
	const op = "promote deployment"
	if version <= 0 {
		return nil, redirects.Errorf(redirects.EINVALID, "deployment version %d is not a positive number", version)
	}
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	p, err := db.findProject(ctx, tx, projectID, "FOR NO KEY UPDATE")
	if err != nil {
		return nil, err
	}
	d, _, err := db.findDeployment(ctx, tx, projectID, version, false)
	if err != nil {
		return nil, err
	}
	if d.Live {
		return d, nil // already live: nothing changes, nothing is recorded
	}
	now := db.now()
	if err := db.setLive(ctx, tx, projectID, version); err != nil {
		return nil, db.wrap(op, err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE deployments SET staged = $1, promoted_at = $2 WHERE project_id = $3 AND version = $4`,
		false, now.UnixNano(), projectID, version); err != nil {
		return nil, db.wrap(op, err)
	}
	if err := db.recordEvent(ctx, tx, redirects.EventDeploy, p.OrgID, projectID, version, now); err != nil {
		return nil, db.wrap(op, err)
	}
	before := map[string]any{"liveVersion": p.LiveVersion}
	after := map[string]any{"liveVersion": version}
	if d.Staged {
		before["staged"] = true
	}
	if err := db.audit(ctx, tx, redirects.AuditPromote, p.OrgID, p.ID, "deployment", p.ID+"@"+strconv.Itoa(version), before, after); err != nil {
		return nil, db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, db.wrap(op, err)
	}
	d.Live, d.Staged, d.PromotedAt = true, false, now
	return d, nil
}

// DiscardDeployment discards a staged version that is not live: its rules
// are emptied and its exports deleted, and its row stays, marked, so that
// its number is never handed out again. The deploy event it records makes
// edge nodes drop the version from their caches.
func (db *DB) DiscardDeployment(ctx context.Context, projectID string, version int) error {
	const op = "discard deployment"
	if version <= 0 {
		return redirects.Errorf(redirects.EINVALID, "deployment version %d is not a positive number", version)
	}
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	p, err := db.findProject(ctx, tx, projectID, "FOR NO KEY UPDATE")
	if err != nil {
		return err
	}
	d, _, err := db.findDeployment(ctx, tx, projectID, version, false)
	if err != nil {
		return err
	}
	switch {
	case d.Live:
		return redirects.Errorf(redirects.ECONFLICT, "version %d of project %s is live and cannot be discarded; promote another version first", version, projectID)
	case !d.Staged:
		return redirects.Errorf(redirects.ECONFLICT, "version %d of project %s is not staged (only a staged version that was never promoted can be discarded)", version, projectID)
	}
	now := db.now()
	if _, err := tx.ExecContext(ctx, `UPDATE deployments SET discarded_at = $1, rules = $2 WHERE project_id = $3 AND version = $4`,
		now.UnixNano(), []byte{}, projectID, version); err != nil {
		return db.wrap(op, err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM deployment_exports WHERE project_id = $1 AND version = $2`, projectID, version); err != nil {
		return db.wrap(op, err)
	}
	if err := db.recordEvent(ctx, tx, redirects.EventDeploy, p.OrgID, projectID, version, now); err != nil {
		return db.wrap(op, err)
	}
	before := map[string]any{"version": version, "message": d.Message, "exactRules": d.ExactCount, "prefixRules": d.PrefixCount, "staged": true}
	d.AddKindCounts(before)
	if err := db.audit(ctx, tx, redirects.AuditDiscard, p.OrgID, p.ID, "deployment", p.ID+"@"+strconv.Itoa(version), before, nil); err != nil {
		return db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap(op, err)
	}
	return nil
}

// SetProjectRequireStage sets whether the project's deploys must be staged,
// and records a project.update audit entry. Edge nodes need not learn of
// it: no event.
func (db *DB) SetProjectRequireStage(ctx context.Context, id string, require bool) (*redirects.Project, error) {
	return db.changeProject(ctx, "set require stage", id, func(tx *Tx, p *redirects.Project) (bool, error) {
		if p.RequireStage == require {
			return false, nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE projects SET require_stage = $1 WHERE id = $2`, require, id); err != nil {
			return false, err
		}
		p.RequireStage = require
		return true, db.audit(ctx, tx, redirects.AuditProjectUpdate, p.OrgID, p.ID, "project", p.ID,
			map[string]any{"requireStage": !require}, map[string]any{"requireStage": require})
	})
}
