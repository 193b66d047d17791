package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"redirects"
)

// CreateSession stores a session made by redirects.NewSession (only its
// hash) for a user who is not disabled. The user's row is locked to
// commit, so a concurrent DisableUser waits and then deletes the session.
func (db *DB) CreateSession(ctx context.Context, s *redirects.Session) error {
	const op = "create session"
	if err := s.Validate(); err != nil {
		return err
	}
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	u, err := db.findUser(ctx, tx, "id", s.UserID, true)
	if err != nil {
		return err
	}
	if u.Disabled() {
		return redirects.Errorf(redirects.ENOTFOUND, "user %q not found", s.UserID)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, hash, user_id, csrf_token, created_at, expires_at, last_seen_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, s.ID, s.Hash, s.UserID, s.CSRFToken,
		s.CreatedAt.UnixNano(), s.ExpiresAt.UnixNano(), s.LastSeenAt.UnixNano()); err != nil {
		return db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap(op, err)
	}
	s.CreatedAt, s.ExpiresAt, s.LastSeenAt = fromNanos(s.CreatedAt.UnixNano()), fromNanos(s.ExpiresAt.UnixNano()), fromNanos(s.LastSeenAt.UnixNano())
	return nil
}

// FindSessionByHash returns the unexpired session with a hash, of a user
// who is not disabled.
func (db *DB) FindSessionByHash(ctx context.Context, hash string) (*redirects.Session, error) {
	var (
		s                      redirects.Session
		created, expires, seen int64
	)
	err := db.read.QueryRowContext(ctx, `SELECT s.id, s.hash, s.user_id, s.csrf_token, s.created_at, s.expires_at, s.last_seen_at
		FROM sessions s JOIN users u ON u.id = s.user_id
		WHERE s.hash = $1 AND s.expires_at > $2 AND u.disabled_at IS NULL`, hash, db.now().UnixNano()).
		Scan(&s.ID, &s.Hash, &s.UserID, &s.CSRFToken, &created, &expires, &seen)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "session not found or expired")
	} else if err != nil {
		return nil, db.wrap("find session", err)
	}
	s.CreatedAt, s.ExpiresAt, s.LastSeenAt = fromNanos(created), fromNanos(expires), fromNanos(seen)
	return &s, nil
}

// TouchSession sets a session's LastSeenAt to the clock's time.
func (db *DB) TouchSession(ctx context.Context, id string) error {
	tag, err := db.write.ExecContext(ctx, `UPDATE sessions SET last_seen_at = $1 WHERE id = $2`, db.now().UnixNano(), id)
	if err != nil {
		return db.wrap("touch session", err)
	}
	if affected(tag) == 0 {
		return redirects.Errorf(redirects.ENOTFOUND, "session %q not found", id)
	}
	return nil
}

// DeleteSession deletes a session.
func (db *DB) DeleteSession(ctx context.Context, id string) error {
	if _, err := db.write.ExecContext(ctx, `DELETE FROM sessions WHERE id = $1`, id); err != nil {
		return db.wrap("delete session", err)
	}
	return nil
}

// DeleteUserSessions deletes every session of a user.
func (db *DB) DeleteUserSessions(ctx context.Context, userID string) (int, error) {
	n, err := deleteSessions(ctx, db.write, userID)
	if err != nil {
		return 0, db.wrap("delete sessions", err)
	}
	return int(n), nil
}

// deleteSessions deletes every session of a user and returns how many.
func deleteSessions(ctx context.Context, q querier, userID string) (int64, error) {
	res, err := q.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = $1`, userID)
	if err != nil {
		return 0, err
	}
	return affected(res), nil
}
