package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"redirects"
)

var _ redirects.AccountStore = (*DB)(nil)

// CreateUser stores u, setting its ID and CreatedAt, and records it in the
// audit log (never its password hash).
func (db *DB) CreateUser(ctx context.Context, u *redirects.User) error {
	const op = "create user"
	if err := u.Validate(); err != nil {
		return err
	}
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	id, now := redirects.NewUserID(), db.now()
	// ON CONFLICT DO NOTHING turns a taken email into zero rows instead of
	// an aborted transaction.
	tag, err := tx.ExecContext(ctx, `INSERT INTO users (id, email, password_hash, operator, created_at, must_change_password) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (email) DO NOTHING`, id, u.Email, u.PasswordHash, u.Operator, now.UnixNano(), u.MustChangePassword)
	if err != nil {
		return db.wrap(op, err)
	}
	if affected(tag) == 0 {
		return redirects.Errorf(redirects.ECONFLICT, "a user with email %s exists", u.Email)
	}
	stored := *u
	stored.DisabledAt = nil
	if err := db.audit(ctx, tx, redirects.AuditUserCreate, "", "", "user", id, nil, redirects.UserAuditFields(&stored)); err != nil {
		return db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap(op, err)
	}
	u.ID, u.CreatedAt, u.DisabledAt = id, now, nil
	return nil
}

// FindUserByID returns one user.
func (db *DB) FindUserByID(ctx context.Context, id string) (*redirects.User, error) {
	return db.findUser(ctx, db.read, "id", id, false)
}

// FindUserByEmail returns the user with an email address, normalized first.
func (db *DB) FindUserByEmail(ctx context.Context, email string) (*redirects.User, error) {
	e, err := redirects.NormalizeEmail(email)
	if err != nil {
		return nil, err
	}
	return db.findUser(ctx, db.read, "email", e, false)
}

// FindUsers returns every user, oldest first.
func (db *DB) FindUsers(ctx context.Context) ([]*redirects.User, error) {
	const op = "find users"
	rows, err := db.read.QueryContext(ctx, `SELECT `+userColumns+` FROM users ORDER BY created_at, `+db.d.Seq())
	return collect(db, op, rows, err, scanUser)
}

// DisableUser disables a user, deletes their sessions and revokes the
// tokens they created, recording each revocation in the audit log. The
// user's row is locked to commit, as by every account write about a user,
// so a token cannot be created by a user being disabled.
func (db *DB) DisableUser(ctx context.Context, id string) (*redirects.User, error) {
	const op = "disable user"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()

	u, err := db.findUser(ctx, tx, "id", id, true)
	if err != nil {
		return nil, err
	}
	if u.Disabled() {
		return u, nil
	}
	before, now := redirects.UserAuditFields(u), db.now()
	if _, err := tx.ExecContext(ctx, `UPDATE users SET disabled_at = $1 WHERE id = $2`, now.UnixNano(), id); err != nil {
		return nil, db.wrap(op, err)
	}
	if _, err := deleteSessions(ctx, tx, id); err != nil {
		return nil, db.wrap(op, err)
	}
	if err := db.revokeTokensWhere(ctx, tx, now, `created_by = $1`, id); err != nil {
		return nil, db.wrap(op, err)
	}
	u.DisabledAt = &now
	b, a := redirects.AuditDiff(before, redirects.UserAuditFields(u))
	if err := db.audit(ctx, tx, redirects.AuditUserDisable, "", "", "user", id, b, a); err != nil {
		return nil, db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, db.wrap(op, err)
	}
	return u, nil
}

// SetUserPassword replaces a user's password hash and deletes their
// sessions. The audit entry says that the password changed, not what to.
func (db *DB) SetUserPassword(ctx context.Context, id, passwordHash string) error {
	const op = "set password"
	if err := redirects.CheckPasswordHash(passwordHash); err != nil {
		return err
	}
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	if _, err := db.findUser(ctx, tx, "id", id, true); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = $1, must_change_password = FALSE WHERE id = $2`, passwordHash, id); err != nil {
		return db.wrap(op, err)
	}
	ended, err := deleteSessions(ctx, tx, id)
	if err != nil {
		return db.wrap(op, err)
	}
	if err := db.audit(ctx, tx, redirects.AuditUserPassword, "", "", "user", id, nil,
		map[string]any{"password": "changed", "sessionsEnded": ended}); err != nil {
		return db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap(op, err)
	}
	return nil
}

const userColumns = `id, email, password_hash, operator, created_at, disabled_at, must_change_password`

// findUser returns the user whose column (id or email) has value; with
// forUpdate, its row stays locked to the end of the transaction.
func (db *DB) findUser(ctx context.Context, q querier, column, value string, forUpdate bool) (*redirects.User, error) {
	query := `SELECT ` + userColumns + ` FROM users WHERE ` + column + ` = $1`
	if forUpdate {
		query += db.d.Lock("FOR NO KEY UPDATE")
	}
	u, err := scanUser(q.QueryRowContext(ctx, query, value))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "user %q not found", value)
	} else if err != nil {
		return nil, db.wrap("find user "+value, err)
	}
	return u, nil
}

func scanUser(s scanner) (*redirects.User, error) {
	var (
		u        redirects.User
		created  int64
		disabled *int64
	)
	if err := s.Scan(&u.ID, &u.Email, &u.PasswordHash, &u.Operator, &created, &disabled, &u.MustChangePassword); err != nil {
		return nil, err
	}
	u.CreatedAt = fromNanos(created)
	u.DisabledAt = timeOf(disabled)
	return &u, nil
}

// RequirePasswordChange marks the user's password as one they must change
// at their next sign-in.
func (db *DB) RequirePasswordChange(ctx context.Context, id string) error {
	const op = "require password change"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	tag, err := tx.ExecContext(ctx, `UPDATE users SET must_change_password = TRUE WHERE id = $1`, id)
	if err != nil {
		return db.wrap(op, err)
	}
	if affected(tag) == 0 {
		return redirects.Errorf(redirects.ENOTFOUND, "user %q not found", id)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap(op, err)
	}
	return nil
}
