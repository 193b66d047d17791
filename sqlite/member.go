package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"redirects"
)

// SetMember adds a member or changes a member's role, and records it in
// the audit log. A demotion revokes the tokens the member created in the
// organization with a role above the new one.
func (db *DB) SetMember(ctx context.Context, m *redirects.Membership) error {
	if err := m.Validate(); err != nil {
		return err
	}
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	if _, err := findOrg(ctx, tx, m.OrgID); err != nil {
		return err
	}
	u, err := findUser(ctx, tx, "id", m.UserID)
	if err != nil {
		return err
	}
	old, err := findMember(ctx, tx, m.OrgID, m.UserID)
	if err != nil && redirects.ErrorCode(err) != redirects.ENOTFOUND {
		return err
	}
	now := db.now()
	switch {
	case old == nil:
		if _, err := tx.ExecContext(ctx, `INSERT INTO members (org_id, user_id, role, created_at) VALUES (?, ?, ?, ?)`,
			m.OrgID, m.UserID, string(m.Role), now.UnixNano()); err != nil {
			return fmt.Errorf("sqlite: add member: %w", err)
		}
		if err := db.audit(ctx, tx, redirects.AuditMemberAdd, m.OrgID, "", "member", m.UserID, nil,
			map[string]any{"email": u.Email, "role": string(m.Role)}); err != nil {
			return fmt.Errorf("sqlite: add member: %w", err)
		}
		m.CreatedAt = now
	case old.Role != m.Role:
		if _, err := tx.ExecContext(ctx, `UPDATE members SET role = ? WHERE org_id = ? AND user_id = ?`,
			string(m.Role), m.OrgID, m.UserID); err != nil {
			return fmt.Errorf("sqlite: change member: %w", err)
		}
		if err := db.revokeTokensAbove(ctx, tx, now, m.OrgID, m.UserID, m.Role); err != nil {
			return fmt.Errorf("sqlite: change member: %w", err)
		}
		if err := db.audit(ctx, tx, redirects.AuditMemberUpdate, m.OrgID, "", "member", m.UserID,
			map[string]any{"role": string(old.Role)}, map[string]any{"role": string(m.Role)}); err != nil {
			return fmt.Errorf("sqlite: change member: %w", err)
		}
		m.CreatedAt = old.CreatedAt
	default:
		m.CreatedAt = old.CreatedAt
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: set member: %w", err)
	}
	m.Email = u.Email
	return nil
}

// RemoveMember removes a user from an organization, revokes the tokens they
// created in it, and records it in the audit log.
func (db *DB) RemoveMember(ctx context.Context, orgID, userID string) error {
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	if _, err := findOrg(ctx, tx, orgID); err != nil {
		return err
	}
	old, err := findMember(ctx, tx, orgID, userID)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM members WHERE org_id = ? AND user_id = ?`, orgID, userID); err != nil {
		return fmt.Errorf("sqlite: remove member: %w", err)
	}
	if err := db.revokeTokensWhere(ctx, tx, db.now(), `org_id = ? AND created_by = ?`, orgID, userID); err != nil {
		return fmt.Errorf("sqlite: remove member: %w", err)
	}
	if err := db.audit(ctx, tx, redirects.AuditMemberRemove, orgID, "", "member", userID,
		map[string]any{"email": old.Email, "role": string(old.Role)}, nil); err != nil {
		return fmt.Errorf("sqlite: remove member: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: remove member: %w", err)
	}
	return nil
}

// FindMembers returns the members of an organization, oldest first.
func (db *DB) FindMembers(ctx context.Context, orgID string) ([]*redirects.Membership, error) {
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := findOrg(ctx, tx, orgID); err != nil {
		return nil, err
	}
	return findMembers(ctx, tx, `m.org_id = ?`, orgID)
}

// FindMemberships returns a user's memberships, oldest first.
func (db *DB) FindMemberships(ctx context.Context, userID string) ([]*redirects.Membership, error) {
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := findUser(ctx, tx, "id", userID); err != nil {
		return nil, err
	}
	return findMembers(ctx, tx, `m.user_id = ?`, userID)
}

const memberSelect = `SELECT m.org_id, m.user_id, u.email, m.role, m.created_at FROM members m JOIN users u ON u.id = m.user_id`

func findMember(ctx context.Context, tx querier, orgID, userID string) (*redirects.Membership, error) {
	m, err := scanMember(tx.QueryRowContext(ctx, memberSelect+` WHERE m.org_id = ? AND m.user_id = ?`, orgID, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "user %q is no member of organization %q", userID, orgID)
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: find member: %w", err)
	}
	return m, nil
}

func findMembers(ctx context.Context, tx querier, where string, arg string) ([]*redirects.Membership, error) {
	rows, err := tx.QueryContext(ctx, memberSelect+` WHERE `+where+` ORDER BY m.created_at, m.rowid`, arg)
	return collect("find members", rows, err, scanMember)
}

func scanMember(s scanner) (*redirects.Membership, error) {
	var (
		m       redirects.Membership
		role    string
		created int64
	)
	if err := s.Scan(&m.OrgID, &m.UserID, &m.Email, &role, &created); err != nil {
		return nil, err
	}
	m.Role, m.CreatedAt = redirects.Role(role), fromNanos(created)
	return &m, nil
}
