package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"redirects"
)

// CreateToken stores a management token made by
// redirects.NewManagementToken (only its hash) and records it in the audit
// log. A token with a creator needs one who is not disabled and whose role
// in the organization is at least the token's; the creator's row is locked
// to commit, so a concurrent demotion or removal waits and then revokes it.
func (db *DB) CreateToken(ctx context.Context, t *redirects.ManagementToken) error {
	const op = "create token"
	if t.CreatedAt.IsZero() {
		t.CreatedAt = db.now()
	}
	if err := t.Validate(); err != nil {
		return err
	}
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	if _, err := db.findOrg(ctx, tx, t.OrgID, false); err != nil {
		return err
	}
	if t.CreatedBy != "" {
		if err := db.checkTokenCreator(ctx, tx, t); err != nil {
			return err
		}
	}
	created := fromNanos(t.CreatedAt.UnixNano())
	var createdBy *string
	if t.CreatedBy != "" {
		createdBy = &t.CreatedBy
	}
	tag, err := tx.ExecContext(ctx, `INSERT INTO management_tokens (id, org_id, role, label, hash, last4, created_by, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
		t.ID, t.OrgID, string(t.Role), t.Label, t.Hash, t.Last4, createdBy, created.UnixNano(), nanosOf(t.ExpiresAt))
	if err != nil {
		return db.wrap(op, err)
	}
	if affected(tag) == 0 {
		return redirects.Errorf(redirects.ECONFLICT, "management token %s already exists", t.ID)
	}
	if err := db.audit(ctx, tx, redirects.AuditTokenCreate, t.OrgID, "", "token", t.ID, nil, redirects.TokenAuditFields(t)); err != nil {
		return db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap(op, err)
	}
	t.CreatedAt, t.LastUsedAt, t.RevokedAt = created, nil, nil
	if t.ExpiresAt != nil {
		e := fromNanos(t.ExpiresAt.UnixNano())
		t.ExpiresAt = &e
	}
	return nil
}

// checkTokenCreator refuses a token whose creator is unknown, disabled, or
// has a role in the token's organization below the token's.
func (db *DB) checkTokenCreator(ctx context.Context, tx querier, t *redirects.ManagementToken) error {
	u, err := db.findUser(ctx, tx, "id", t.CreatedBy, true)
	if err != nil {
		return err
	}
	if u.Disabled() {
		return redirects.Errorf(redirects.EFORBIDDEN, "user %s is disabled and may not create tokens", u.Email)
	}
	m, err := db.findMember(ctx, tx, t.OrgID, u.ID)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND {
		return redirects.Errorf(redirects.EFORBIDDEN, "user %s is no member of organization %s and may not create its tokens", u.Email, t.OrgID)
	} else if err != nil {
		return err
	}
	if !m.Role.AtLeast(t.Role) {
		return redirects.Errorf(redirects.EFORBIDDEN, "user %s is %s of organization %s and may not create a token with role %s",
			u.Email, m.Role, t.OrgID, t.Role)
	}
	return nil
}

// FindTokenByHash returns the active token with a hash, and records its use
// when the last recorded one is older than redirects.TokenLastUsedInterval.
func (db *DB) FindTokenByHash(ctx context.Context, hash string) (*redirects.ManagementToken, error) {
	const op = "find token"
	t, err := scanToken(db.read.QueryRowContext(ctx, `SELECT `+tokenColumns+` FROM management_tokens WHERE hash = $1`, hash))
	now := db.now()
	if errors.Is(err, sql.ErrNoRows) || err == nil && !t.Active(now) {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "management token not found, revoked or expired")
	} else if err != nil {
		return nil, db.wrap(op, err)
	}
	stale := now.Add(-redirects.TokenLastUsedInterval)
	if t.LastUsedAt == nil || !t.LastUsedAt.After(stale) {
		// The condition is repeated in the statement, so of several
		// nodes that see the same stale time, one writes.
		if _, err := db.write.ExecContext(ctx, `UPDATE management_tokens SET last_used_at = $1
			WHERE id = $2 AND (last_used_at IS NULL OR last_used_at <= $3)`, now.UnixNano(), t.ID, stale.UnixNano()); err != nil {
			return nil, db.wrap("record token use", err)
		}
		t.LastUsedAt = &now
	}
	return t, nil
}

// FindTokens returns the tokens of an organization, oldest first.
func (db *DB) FindTokens(ctx context.Context, orgID string) ([]*redirects.ManagementToken, error) {
	tx, err := db.beginRead(ctx, "find tokens")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := db.findOrg(ctx, tx, orgID, false); err != nil {
		return nil, err
	}
	return db.findTokens(ctx, tx, `org_id = $1`, orgID)
}

// RevokeToken revokes a token of an organization, records it in the audit
// log, and returns the token.
func (db *DB) RevokeToken(ctx context.Context, orgID, id string) (*redirects.ManagementToken, error) {
	const op = "revoke token"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()

	if _, err := db.findOrg(ctx, tx, orgID, false); err != nil {
		return nil, err
	}
	t, err := scanToken(tx.QueryRowContext(ctx, `SELECT `+tokenColumns+` FROM management_tokens WHERE id = $1`+db.d.Lock("FOR UPDATE"), id))
	if errors.Is(err, sql.ErrNoRows) || err == nil && t.OrgID != orgID {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "token %q is not a management token of organization %s", id, orgID)
	} else if err != nil {
		return nil, db.wrap(op, err)
	}
	if t.RevokedAt != nil {
		return t, nil
	}
	now := db.now()
	if err := db.revokeTokensWhere(ctx, tx, now, `id = $1`, id); err != nil {
		return nil, db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, db.wrap(op, err)
	}
	t.RevokedAt = &now
	return t, nil
}

// revokeTokensWhere revokes the unrevoked tokens that the condition
// selects at now, recording each in the audit log, in the caller's
// transaction. The condition's parameters are $1, $2, ...
func (db *DB) revokeTokensWhere(ctx context.Context, tx querier, now time.Time, where string, args ...any) error {
	ts, err := db.findTokens(ctx, tx, `revoked_at IS NULL AND `+where, args...)
	if err != nil {
		return err
	}
	for _, t := range ts {
		if _, err := tx.ExecContext(ctx, `UPDATE management_tokens SET revoked_at = $1 WHERE id = $2`, now.UnixNano(), t.ID); err != nil {
			return fmt.Errorf("revoke token %s: %w", t.ID, err)
		}
		if err := db.audit(ctx, tx, redirects.AuditTokenRevoke, t.OrgID, "", "token", t.ID,
			map[string]any{"revokedAt": nil}, map[string]any{"revokedAt": now.Format(time.RFC3339Nano)}); err != nil {
			return err
		}
	}
	return nil
}

// revokeTokensAbove revokes the tokens a member created in an organization
// with a role above role.
func (db *DB) revokeTokensAbove(ctx context.Context, tx querier, now time.Time, orgID, userID string, role redirects.Role) error {
	args := []any{orgID, userID}
	for _, r := range redirects.Roles {
		if !role.AtLeast(r) {
			args = append(args, string(r))
		}
	}
	if len(args) == 2 {
		return nil
	}
	return db.revokeTokensWhere(ctx, tx, now, `org_id = $1 AND created_by = $2 AND role IN (`+placeholders(3, len(args)-2)+`)`, args...)
}

const tokenColumns = `id, org_id, role, label, hash, last4, created_by, created_at, expires_at, last_used_at, revoked_at`

func (db *DB) findTokens(ctx context.Context, q querier, where string, args ...any) ([]*redirects.ManagementToken, error) {
	const op = "find tokens"
	rows, err := q.QueryContext(ctx, `SELECT `+tokenColumns+` FROM management_tokens WHERE `+where+` ORDER BY created_at, `+db.d.Seq(), args...)
	return collect(db, op, rows, err, scanToken)
}

func scanToken(s scanner) (*redirects.ManagementToken, error) {
	var (
		t                          redirects.ManagementToken
		role                       string
		createdBy                  *string
		created                    int64
		expires, lastUsed, revoked *int64
	)
	if err := s.Scan(&t.ID, &t.OrgID, &role, &t.Label, &t.Hash, &t.Last4, &createdBy, &created, &expires, &lastUsed, &revoked); err != nil {
		return nil, err
	}
	t.Role, t.CreatedAt = redirects.Role(role), fromNanos(created)
	if createdBy != nil {
		t.CreatedBy = *createdBy
	}
	t.ExpiresAt, t.LastUsedAt, t.RevokedAt = timeOf(expires), timeOf(lastUsed), timeOf(revoked)
	return &t, nil
}

// nanosOf returns the stored form of an optional time.
func nanosOf(t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	n := t.UnixNano()
	return &n
}

// timeOf returns the time of an optional stored time.
func timeOf(n *int64) *time.Time {
	if n == nil {
		return nil
	}
	t := fromNanos(*n)
	return &t
}
