package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"redirects"
)

var _ redirects.AccountStore = (*DB)(nil)

// CreateUser stores u, setting its ID and CreatedAt, and records it in the
// audit log (never its password hash).
func (db *DB) CreateUser(ctx context.Context, u *redirects.User) error {
	if err := u.Validate(); err != nil {
		return err
	}
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM users WHERE email = ?`, u.Email).Scan(&n); err != nil {
		return fmt.Errorf("sqlite: create user: %w", err)
	} else if n > 0 {
		return redirects.Errorf(redirects.ECONFLICT, "a user with email %s exists", u.Email)
	}
	id, now := redirects.NewUserID(), db.now()
	if _, err := tx.ExecContext(ctx, `INSERT INTO users (id, email, password_hash, operator, created_at, must_change_password) VALUES (?, ?, ?, ?, ?, ?)`,
		id, u.Email, u.PasswordHash, u.Operator, now.UnixNano(), u.MustChangePassword); err != nil {
		return fmt.Errorf("sqlite: create user: %w", err)
	}
	stored := *u
	stored.DisabledAt = nil
	if err := db.audit(ctx, tx, redirects.AuditUserCreate, "", "", "user", id, nil, redirects.UserAuditFields(&stored)); err != nil {
		return fmt.Errorf("sqlite: create user: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: create user: %w", err)
	}
	u.ID, u.CreatedAt, u.DisabledAt = id, now, nil
	return nil
}

// FindUserByID returns one user.
func (db *DB) FindUserByID(ctx context.Context, id string) (*redirects.User, error) {
	return findUser(ctx, db.read, "id", id)
}

// FindUserByEmail returns the user with an email address, normalized first.
func (db *DB) FindUserByEmail(ctx context.Context, email string) (*redirects.User, error) {
	e, err := redirects.NormalizeEmail(email)
	if err != nil {
		return nil, err
	}
	return findUser(ctx, db.read, "email", e)
}

// FindUsers returns every user, oldest first.
func (db *DB) FindUsers(ctx context.Context) ([]*redirects.User, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT `+userColumns+` FROM users ORDER BY created_at, rowid`)
	return collect("find users", rows, err, scanUser)
}

// DisableUser disables a user, deletes their sessions and revokes the
// tokens they created, recording each revocation in the audit log.
func (db *DB) DisableUser(ctx context.Context, id string) (*redirects.User, error) {
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()

	u, err := findUser(ctx, tx, "id", id)
	if err != nil {
		return nil, err
	}
	if u.Disabled() {
		return u, nil
	}
	before, now := redirects.UserAuditFields(u), db.now()
	if _, err := tx.ExecContext(ctx, `UPDATE users SET disabled_at = ? WHERE id = ?`, now.UnixNano(), id); err != nil {
		return nil, fmt.Errorf("sqlite: disable user: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ?`, id); err != nil {
		return nil, fmt.Errorf("sqlite: disable user: %w", err)
	}
	if err := db.revokeTokensWhere(ctx, tx, now, `created_by = ?`, id); err != nil {
		return nil, fmt.Errorf("sqlite: disable user: %w", err)
	}
	u.DisabledAt = &now
	b, a := redirects.AuditDiff(before, redirects.UserAuditFields(u))
	if err := db.audit(ctx, tx, redirects.AuditUserDisable, "", "", "user", id, b, a); err != nil {
		return nil, fmt.Errorf("sqlite: disable user: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("sqlite: disable user: %w", err)
	}
	return u, nil
}

// SetUserPassword replaces a user's password hash and deletes their
// sessions. The audit entry says that the password changed, not what to.
func (db *DB) SetUserPassword(ctx context.Context, id, passwordHash string) error {
	if err := redirects.CheckPasswordHash(passwordHash); err != nil {
		return err
	}
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	if _, err := findUser(ctx, tx, "id", id); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = ?, must_change_password = 0 WHERE id = ?`, passwordHash, id); err != nil {
		return fmt.Errorf("sqlite: set password: %w", err)
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ?`, id)
	if err != nil {
		return fmt.Errorf("sqlite: set password: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("sqlite: set password: %w", err)
	}
	if err := db.audit(ctx, tx, redirects.AuditUserPassword, "", "", "user", id, nil,
		map[string]any{"password": "changed", "sessionsEnded": n}); err != nil {
		return fmt.Errorf("sqlite: set password: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: set password: %w", err)
	}
	return nil
}

const userColumns = `id, email, password_hash, operator, created_at, disabled_at, must_change_password`

// findUser returns the user whose column (id or email) has value.
func findUser(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, column, value string) (*redirects.User, error) {
	u, err := scanUser(q.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE `+column+` = ?`, value))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "user %q not found", value)
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: find user %s: %w", value, err)
	}
	return u, nil
}

func scanUser(s scanner) (*redirects.User, error) {
	var (
		u        redirects.User
		created  int64
		disabled sql.NullInt64
	)
	if err := s.Scan(&u.ID, &u.Email, &u.PasswordHash, &u.Operator, &created, &disabled, &u.MustChangePassword); err != nil {
		return nil, err
	}
	u.CreatedAt = fromNanos(created)
	if disabled.Valid {
		t := fromNanos(disabled.Int64)
		u.DisabledAt = &t
	}
	return &u, nil
}

// RequirePasswordChange marks the user's password as one they must change
// at their next sign-in.
func (db *DB) RequirePasswordChange(ctx context.Context, id string) error {
	res, err := db.write.ExecContext(ctx, `UPDATE users SET must_change_password = 1 WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("sqlite: require password change: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: require password change: %w", err)
	} else if n == 0 {
		return redirects.Errorf(redirects.ENOTFOUND, "user %q not found", id)
	}
	return nil
}
