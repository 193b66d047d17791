package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"redirects"
)

// recordAudit appends an audit entry in the caller's transaction, so the
// change and its record commit together. A zero Time is the clock's.
//
// Every store method that changes something calls it before it commits;
// Deploy and Import record theirs through service.DeployInTx and
// redirects.ImportInTx (the RecordAudit of deployTx and importTx).
func (db *DB) recordAudit(ctx context.Context, tx querier, e *redirects.AuditEntry) error {
	if e.Time.IsZero() {
		e.Time = db.now()
	}
	if err := tx.QueryRowContext(ctx, `INSERT INTO audit_log (at, org_id, project_id, actor_kind, actor_id, actor_label, remote_addr,
		action, object_type, object_id, before, after) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
		e.Time.UnixNano(), e.OrgID, e.ProjectID, string(e.Actor.Kind), e.Actor.ID, e.Actor.Label, e.Actor.RemoteAddr,
		e.Action, e.ObjectType, e.ObjectID, nullJSON(e.Before), nullJSON(e.After)).Scan(&e.ID); err != nil {
		return fmt.Errorf("record audit entry %s: %w", e.Action, err)
	}
	// The entry's webhook deliveries commit with it (the outbox).
	return db.enqueueWebhooks(ctx, tx, e)
}

// audit records the entry of a change by the actor in ctx at the clock's
// time, in the caller's transaction.
func (db *DB) audit(ctx context.Context, tx querier, action, orgID, projectID, objectType, objectID string, before, after map[string]any) error {
	return db.recordAudit(ctx, tx, redirects.NewAuditEntry(ctx, db.now(), action, orgID, projectID, objectType, objectID, before, after))
}

func nullJSON(m json.RawMessage) any {
	if m == nil {
		return nil
	}
	return string(m)
}

// FindAudit returns the audit entries that f selects, newest first.
func (db *DB) FindAudit(ctx context.Context, f redirects.AuditFilter) ([]*redirects.AuditEntry, error) {
	const op = "find audit entries"
	if err := f.Validate(); err != nil {
		return nil, err
	}
	var (
		where []string
		args  []any
	)
	add := func(cond string, arg any) {
		args = append(args, arg)
		where = append(where, fmt.Sprintf(cond, len(args)))
	}
	if f.OrgID != "" {
		add("org_id = $%d", f.OrgID)
	}
	if f.ProjectID != "" {
		add("project_id = $%d", f.ProjectID)
	}
	if f.Actor != "" {
		add("(actor_id = $%[1]d OR actor_label = $%[1]d)", f.Actor)
	}
	if p := f.ActionPrefix(); p != "" {
		// Validate allows only [a-z._] in actions, so p needs no escaping
		// but "_", which LIKE reads as any one character.
		add(`action LIKE $%d ESCAPE '\'`, strings.ReplaceAll(p, "_", `\_`)+"%")
	} else if f.Action != "" {
		add("action = $%d", f.Action)
	}
	if !f.Since.IsZero() {
		add("at >= $%d", f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		add("at < $%d", f.Until.UnixNano())
	}
	if f.BeforeID > 0 {
		add("id < $%d", f.BeforeID)
	}
	query := `SELECT id, at, org_id, project_id, actor_kind, actor_id, actor_label, remote_addr, action, object_type, object_id, before, after FROM audit_log`
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	args = append(args, f.Limit)
	query += fmt.Sprintf(" ORDER BY id DESC LIMIT $%d", len(args))

	rows, err := db.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, db.wrap(op, err)
	}
	defer rows.Close()
	var out []*redirects.AuditEntry
	for rows.Next() {
		var (
			e             redirects.AuditEntry
			at            int64
			kind          string
			before, after sql.NullString
		)
		if err := rows.Scan(&e.ID, &at, &e.OrgID, &e.ProjectID, &kind, &e.Actor.ID, &e.Actor.Label, &e.Actor.RemoteAddr,
			&e.Action, &e.ObjectType, &e.ObjectID, &before, &after); err != nil {
			return nil, db.wrap(op, err)
		}
		e.Time, e.Actor.Kind = fromNanos(at), redirects.ActorKind(kind)
		if before.Valid {
			e.Before = json.RawMessage(before.String)
		}
		if after.Valid {
			e.After = json.RawMessage(after.String)
		}
		out = append(out, &e)
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap(op, err)
	}
	return out, nil
}
