package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"redirects"
)

// CreateSession stores a session made by redirects.NewSession (only its
// hash) for a user who is not disabled.
func (db *DB) CreateSession(ctx context.Context, s *redirects.Session) error {
	if err := s.Validate(); err != nil {
		return err
	}
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	u, err := findUser(ctx, tx, "id", s.UserID)
	if err != nil {
		return err
	}
	if u.Disabled() {
		return redirects.Errorf(redirects.ENOTFOUND, "user %q not found", s.UserID)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, hash, user_id, csrf_token, created_at, expires_at, last_seen_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, s.ID, s.Hash, s.UserID, s.CSRFToken,
		s.CreatedAt.UnixNano(), s.ExpiresAt.UnixNano(), s.LastSeenAt.UnixNano()); err != nil {
		return fmt.Errorf("sqlite: create session: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: create session: %w", err)
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
		WHERE s.hash = ? AND s.expires_at > ? AND u.disabled_at IS NULL`, hash, db.now().UnixNano()).
		Scan(&s.ID, &s.Hash, &s.UserID, &s.CSRFToken, &created, &expires, &seen)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "session not found or expired")
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: find session: %w", err)
	}
	s.CreatedAt, s.ExpiresAt, s.LastSeenAt = fromNanos(created), fromNanos(expires), fromNanos(seen)
	return &s, nil
}

// TouchSession sets a session's LastSeenAt to the clock's time.
func (db *DB) TouchSession(ctx context.Context, id string) error {
	res, err := db.write.ExecContext(ctx, `UPDATE sessions SET last_seen_at = ? WHERE id = ?`, db.now().UnixNano(), id)
	if err != nil {
		return fmt.Errorf("sqlite: touch session: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: touch session: %w", err)
	} else if n == 0 {
		return redirects.Errorf(redirects.ENOTFOUND, "session %q not found", id)
	}
	return nil
}

// DeleteSession deletes a session.
func (db *DB) DeleteSession(ctx context.Context, id string) error {
	if _, err := db.write.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id); err != nil {
		return fmt.Errorf("sqlite: delete session: %w", err)
	}
	return nil
}

// DeleteUserSessions deletes every session of a user.
func (db *DB) DeleteUserSessions(ctx context.Context, userID string) (int, error) {
	res, err := db.write.ExecContext(ctx, `DELETE FROM sessions WHERE user_id = ?`, userID)
	if err != nil {
		return 0, fmt.Errorf("sqlite: delete sessions: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("sqlite: delete sessions: %w", err)
	}
	return int(n), nil
}
