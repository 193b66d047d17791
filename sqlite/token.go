package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"redirects"
)

// CreateToken stores a management token made by
// redirects.NewManagementToken (only its hash) and records it in the audit
// log. A token with a creator needs one who is not disabled and whose role
// in the organization is at least the token's.
func (db *DB) CreateToken(ctx context.Context, t *redirects.ManagementToken) error {
	if t.CreatedAt.IsZero() {
		t.CreatedAt = db.now()
	}
	if err := t.Validate(); err != nil {
		return err
	}
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	if _, err := findOrg(ctx, tx, t.OrgID); err != nil {
		return err
	}
	if t.CreatedBy != "" {
		if err := checkTokenCreator(ctx, tx, t); err != nil {
			return err
		}
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM management_tokens WHERE id = ? OR hash = ?`, t.ID, t.Hash).Scan(&n); err != nil {
		return fmt.Errorf("sqlite: create token: %w", err)
	} else if n > 0 {
		return redirects.Errorf(redirects.ECONFLICT, "management token %s already exists", t.ID)
	}
	created := fromNanos(t.CreatedAt.UnixNano())
	if _, err := tx.ExecContext(ctx, `INSERT INTO management_tokens (id, org_id, role, label, hash, last4, created_by, created_at, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.OrgID, string(t.Role), t.Label, t.Hash, t.Last4, nullString(t.CreatedBy), created.UnixNano(), nullTime(t.ExpiresAt)); err != nil {
		return fmt.Errorf("sqlite: create token: %w", err)
	}
	if err := db.audit(ctx, tx, redirects.AuditTokenCreate, t.OrgID, "", "token", t.ID, nil, redirects.TokenAuditFields(t)); err != nil {
		return fmt.Errorf("sqlite: create token: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: create token: %w", err)
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
func checkTokenCreator(ctx context.Context, tx querier, t *redirects.ManagementToken) error {
	u, err := findUser(ctx, tx, "id", t.CreatedBy)
	if err != nil {
		return err
	}
	if u.Disabled() {
		return redirects.Errorf(redirects.EFORBIDDEN, "user %s is disabled and may not create tokens", u.Email)
	}
	m, err := findMember(ctx, tx, t.OrgID, u.ID)
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
	t, err := scanToken(db.read.QueryRowContext(ctx, `SELECT `+tokenColumns+` FROM management_tokens WHERE hash = ?`, hash))
	now := db.now()
	if errors.Is(err, sql.ErrNoRows) || err == nil && !t.Active(now) {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "management token not found, revoked or expired")
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: find token: %w", err)
	}
	stale := now.Add(-redirects.TokenLastUsedInterval)
	if t.LastUsedAt == nil || !t.LastUsedAt.After(stale) {
		// The condition is repeated in the statement, so of several
		// nodes that see the same stale time, one writes.
		if _, err := db.write.ExecContext(ctx, `UPDATE management_tokens SET last_used_at = ?
			WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)`, now.UnixNano(), t.ID, stale.UnixNano()); err != nil {
			return nil, fmt.Errorf("sqlite: record token use: %w", err)
		}
		t.LastUsedAt = &now
	}
	return t, nil
}

// FindTokens returns the tokens of an organization, oldest first.
func (db *DB) FindTokens(ctx context.Context, orgID string) ([]*redirects.ManagementToken, error) {
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := findOrg(ctx, tx, orgID); err != nil {
		return nil, err
	}
	return findTokens(ctx, tx, `org_id = ?`, orgID)
}

// RevokeToken revokes a token of an organization, records it in the audit
// log, and returns the token.
func (db *DB) RevokeToken(ctx context.Context, orgID, id string) (*redirects.ManagementToken, error) {
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()

	if _, err := findOrg(ctx, tx, orgID); err != nil {
		return nil, err
	}
	t, err := scanToken(tx.QueryRowContext(ctx, `SELECT `+tokenColumns+` FROM management_tokens WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) || err == nil && t.OrgID != orgID {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "token %q is not a management token of organization %s", id, orgID)
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: revoke token: %w", err)
	}
	if t.RevokedAt != nil {
		return t, nil
	}
	now := db.now()
	if err := db.revokeTokensWhere(ctx, tx, now, `id = ?`, id); err != nil {
		return nil, fmt.Errorf("sqlite: revoke token: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("sqlite: revoke token: %w", err)
	}
	t.RevokedAt = &now
	return t, nil
}

// revokeTokensWhere revokes the unrevoked tokens that the condition
// selects at now, recording each in the audit log, in the caller's
// transaction.
func (db *DB) revokeTokensWhere(ctx context.Context, tx querier, now time.Time, where string, args ...any) error {
	ts, err := findTokens(ctx, tx, `revoked_at IS NULL AND `+where, args...)
	if err != nil {
		return err
	}
	for _, t := range ts {
		if _, err := tx.ExecContext(ctx, `UPDATE management_tokens SET revoked_at = ? WHERE id = ?`, now.UnixNano(), t.ID); err != nil {
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
	var above []any
	for _, r := range redirects.Roles {
		if !role.AtLeast(r) {
			above = append(above, string(r))
		}
	}
	if len(above) == 0 {
		return nil
	}
	in := strings.TrimSuffix(strings.Repeat("?, ", len(above)), ", ")
	return db.revokeTokensWhere(ctx, tx, now, `org_id = ? AND created_by = ? AND role IN (`+in+`)`, append([]any{orgID, userID}, above...)...)
}

const tokenColumns = `id, org_id, role, label, hash, last4, created_by, created_at, expires_at, last_used_at, revoked_at`

func findTokens(ctx context.Context, tx querier, where string, args ...any) ([]*redirects.ManagementToken, error) {
	rows, err := tx.QueryContext(ctx, `SELECT `+tokenColumns+` FROM management_tokens WHERE `+where+` ORDER BY created_at, rowid`, args...)
	return collect("find tokens", rows, err, scanToken)
}

func scanToken(s scanner) (*redirects.ManagementToken, error) {
	var (
		t                         redirects.ManagementToken
		role                      string
		createdBy                 sql.NullString
		created                   int64
		expires, lastUsed, revoke sql.NullInt64
	)
	if err := s.Scan(&t.ID, &t.OrgID, &role, &t.Label, &t.Hash, &t.Last4, &createdBy, &created, &expires, &lastUsed, &revoke); err != nil {
		return nil, err
	}
	t.Role, t.CreatedBy, t.CreatedAt = redirects.Role(role), createdBy.String, fromNanos(created)
	t.ExpiresAt, t.LastUsedAt, t.RevokedAt = timeOf(expires), timeOf(lastUsed), timeOf(revoke)
	return &t, nil
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixNano()
}

func timeOf(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := fromNanos(n.Int64)
	return &t
}
