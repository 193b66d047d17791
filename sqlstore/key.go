package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"redirects"
)

// CreateKey stores a key made by redirects.NewKey and records a key event.
// Only the key's hash is stored. A zero CreatedAt is set from the clock.
func (db *DB) CreateKey(ctx context.Context, k *redirects.Key) error {
	const op = "create key"
	if k.ID == "" || len(k.Hash) != 64 {
		return redirects.Errorf(redirects.EINVALID, "key has no ID or no SHA-256 hash: make it with redirects.NewKey")
	}
	if len(k.Name) > 200 {
		return redirects.Errorf(redirects.EINVALID, "key name is %d bytes long, more than the 200 allowed", len(k.Name))
	}
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	p, err := db.findProject(ctx, tx, k.ProjectID, "")
	if err != nil {
		return err
	}
	now := db.now()
	created := now
	if !k.CreatedAt.IsZero() {
		created = fromNanos(k.CreatedAt.UnixNano())
	}
	var revoked *int64
	if k.RevokedAt != nil {
		n := k.RevokedAt.UnixNano()
		revoked = &n
	}
	// ON CONFLICT DO NOTHING covers both unique columns, id and hash, and
	// turns a clash into zero rows instead of an aborted transaction.
	tag, err := tx.ExecContext(ctx, `INSERT INTO keys (id, project_id, name, test, hash, last4, created_at, revoked_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
		k.ID, k.ProjectID, k.Name, k.Test, k.Hash, k.Last4, created.UnixNano(), revoked)
	if err != nil {
		return db.wrap(op, err)
	}
	if affected(tag) == 0 {
		return redirects.Errorf(redirects.ECONFLICT, "key %s already exists", k.ID)
	}
	if err := db.audit(ctx, tx, redirects.AuditKeyCreate, p.OrgID, p.ID, "key", k.ID, nil, redirects.KeyAuditFields(k)); err != nil {
		return db.wrap(op, err)
	}
	if err := db.recordEvent(ctx, tx, redirects.EventKey, p.OrgID, p.ID, 0, now); err != nil {
		return db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap(op, err)
	}
	k.CreatedAt = created
	return nil
}

// FindKeys returns the keys of a project, or of every project when
// projectID is "", oldest first.
func (db *DB) FindKeys(ctx context.Context, projectID string) ([]*redirects.Key, error) {
	const op = "find keys"
	tx, err := db.beginRead(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()

	var rows *sql.Rows
	if projectID == "" {
		rows, err = tx.QueryContext(ctx, `SELECT `+keyColumns+` FROM keys ORDER BY created_at, `+db.d.Seq())
	} else {
		if _, err := db.findProject(ctx, tx, projectID, ""); err != nil {
			return nil, err
		}
		rows, err = tx.QueryContext(ctx, `SELECT `+keyColumns+` FROM keys WHERE project_id = $1 ORDER BY created_at, `+db.d.Seq(), projectID)
	}
	return collect(db, op, rows, err, scanKey)
}

// RevokeKey revokes a key of the project, named by its ID ("key_...") or
// its full secret, records a key event, and returns the key. Revoking a
// revoked key changes nothing and records no event. A key of another
// project is reported as not found, like an unknown one, and the error
// never repeats a secret. The key's row is locked from the read to commit,
// so two concurrent revocations record one event and one time.
func (db *DB) RevokeKey(ctx context.Context, projectID, ref string) (*redirects.Key, error) {
	const op = "revoke key"
	var (
		query, arg string
		name       string // how the error message names the key
	)
	switch {
	case strings.HasPrefix(ref, redirects.LiveKeyPrefix), strings.HasPrefix(ref, redirects.TestKeyPrefix):
		query, arg = `SELECT `+keyColumns+` FROM keys WHERE hash = $1`+db.d.Lock("FOR UPDATE"), redirects.HashKey(ref)
		name = "the given secret"
		if len(ref) >= 4 {
			name = fmt.Sprintf("the key ending in %q", ref[len(ref)-4:])
		}
	default:
		query, arg = `SELECT `+keyColumns+` FROM keys WHERE id = $1`+db.d.Lock("FOR UPDATE"), ref
		name = fmt.Sprintf("key %q", ref)
	}

	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()

	p, err := db.findProject(ctx, tx, projectID, "")
	if err != nil {
		return nil, err
	}
	k, err := scanKey(tx.QueryRowContext(ctx, query, arg))
	if errors.Is(err, sql.ErrNoRows) || err == nil && k.ProjectID != projectID {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "%s is not a key of project %s", name, projectID)
	} else if err != nil {
		return nil, db.wrap(op, err)
	}
	if k.RevokedAt != nil {
		return k, nil
	}
	now := db.now()
	if _, err := tx.ExecContext(ctx, `UPDATE keys SET revoked_at = $1 WHERE id = $2`, now.UnixNano(), k.ID); err != nil {
		return nil, db.wrap(op, err)
	}
	if err := db.audit(ctx, tx, redirects.AuditKeyRevoke, p.OrgID, p.ID, "key", k.ID,
		map[string]any{"revokedAt": nil}, map[string]any{"revokedAt": now.Format(time.RFC3339Nano)}); err != nil {
		return nil, db.wrap(op, err)
	}
	if err := db.recordEvent(ctx, tx, redirects.EventKey, p.OrgID, p.ID, 0, now); err != nil {
		return nil, db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, db.wrap(op, err)
	}
	k.RevokedAt = &now
	return k, nil
}

const keyColumns = `id, project_id, name, test, hash, last4, created_at, revoked_at`

func scanKey(s scanner) (*redirects.Key, error) {
	var (
		k       redirects.Key
		created int64
		revoked *int64
	)
	if err := s.Scan(&k.ID, &k.ProjectID, &k.Name, &k.Test, &k.Hash, &k.Last4, &created, &revoked); err != nil {
		return nil, err
	}
	k.CreatedAt = fromNanos(created)
	if revoked != nil {
		t := fromNanos(*revoked)
		k.RevokedAt = &t
	}
	return &k, nil
}
