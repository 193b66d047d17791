package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"redirects"
)

// SetMember adds a member or changes a member's role, and records it in
// the audit log. A demotion revokes the tokens the member created in the
// organization with a role above the new one. The user's row is locked to
// commit, so changes to one user's memberships and tokens run one after
// the other.
func (db *DB) SetMember(ctx context.Context, m *redirects.Membership) error {
	const op = "set member"
	if err := m.Validate(); err != nil {
		return err
	}
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	if _, err := db.findOrg(ctx, tx, m.OrgID, false); err != nil {
		return err
	}
	u, err := db.findUser(ctx, tx, "id", m.UserID, true)
	if err != nil {
		return err
	}
	old, err := db.findMember(ctx, tx, m.OrgID, m.UserID)
	if err != nil && redirects.ErrorCode(err) != redirects.ENOTFOUND {
		return err
	}
	now := db.now()
	switch {
	case old == nil:
		if _, err := tx.ExecContext(ctx, `INSERT INTO members (org_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)`,
			m.OrgID, m.UserID, string(m.Role), now.UnixNano()); err != nil {
			return db.wrap(op, err)
		}
		if err := db.audit(ctx, tx, redirects.AuditMemberAdd, m.OrgID, "", "member", m.UserID, nil,
			map[string]any{"email": u.Email, "role": string(m.Role)}); err != nil {
			return db.wrap(op, err)
		}
		m.CreatedAt = now
	case old.Role != m.Role:
		if _, err := tx.ExecContext(ctx, `UPDATE members SET role = $1 WHERE org_id = $2 AND user_id = $3`,
			string(m.Role), m.OrgID, m.UserID); err != nil {
			return db.wrap(op, err)
		}
		if err := db.revokeTokensAbove(ctx, tx, now, m.OrgID, m.UserID, m.Role); err != nil {
			return db.wrap(op, err)
		}
		if err := db.audit(ctx, tx, redirects.AuditMemberUpdate, m.OrgID, "", "member", m.UserID,
			map[string]any{"role": string(old.Role)}, map[string]any{"role": string(m.Role)}); err != nil {
			return db.wrap(op, err)
		}
		m.CreatedAt = old.CreatedAt
	default:
		m.CreatedAt = old.CreatedAt
	}
	if err := tx.Commit(); err != nil {
		return db.wrap(op, err)
	}
	m.Email = u.Email
	return nil
}

// RemoveMember removes a user from an organization, revokes the tokens they
// created in it, and records it in the audit log.
func (db *DB) RemoveMember(ctx context.Context, orgID, userID string) error {
	const op = "remove member"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	if _, err := db.findOrg(ctx, tx, orgID, false); err != nil {
		return err
	}
	if _, err := db.findUser(ctx, tx, "id", userID, true); err != nil && redirects.ErrorCode(err) != redirects.ENOTFOUND {
		return err
	}
	old, err := db.findMember(ctx, tx, orgID, userID)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM members WHERE org_id = $1 AND user_id = $2`, orgID, userID); err != nil {
		return db.wrap(op, err)
	}
	if err := db.revokeTokensWhere(ctx, tx, db.now(), `org_id = $1 AND created_by = $2`, orgID, userID); err != nil {
		return db.wrap(op, err)
	}
	if err := db.audit(ctx, tx, redirects.AuditMemberRemove, orgID, "", "member", userID,
		map[string]any{"email": old.Email, "role": string(old.Role)}, nil); err != nil {
		return db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap(op, err)
	}
	return nil
}

// FindMembers returns the members of an organization, oldest first.
func (db *DB) FindMembers(ctx context.Context, orgID string) ([]*redirects.Membership, error) {
	tx, err := db.beginRead(ctx, "find members")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := db.findOrg(ctx, tx, orgID, false); err != nil {
		return nil, err
	}
	return db.findMembers(ctx, tx, `m.org_id = $1`, orgID)
}

// FindMemberships returns a user's memberships, oldest first.
func (db *DB) FindMemberships(ctx context.Context, userID string) ([]*redirects.Membership, error) {
	tx, err := db.beginRead(ctx, "find memberships")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := db.findUser(ctx, tx, "id", userID, false); err != nil {
		return nil, err
	}
	return db.findMembers(ctx, tx, `m.user_id = $1`, userID)
}

const memberSelect = `SELECT m.org_id, m.user_id, u.email, m.role, m.created_at FROM members m JOIN users u ON u.id = m.user_id`

func (db *DB) findMember(ctx context.Context, q querier, orgID, userID string) (*redirects.Membership, error) {
	m, err := scanMember(q.QueryRowContext(ctx, memberSelect+` WHERE m.org_id = $1 AND m.user_id = $2`, orgID, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "user %q is no member of organization %q", userID, orgID)
	} else if err != nil {
		return nil, db.wrap("find member", err)
	}
	return m, nil
}

func (db *DB) findMembers(ctx context.Context, q querier, where string, arg string) ([]*redirects.Membership, error) {
	const op = "find members"
	rows, err := q.QueryContext(ctx, memberSelect+` WHERE `+where+` ORDER BY m.created_at, m.`+db.d.Seq(), arg)
	return collect(db, op, rows, err, scanMember)
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
