package sqlite

import (
	"context"

	"redirects"
)

// FindEvents returns the events recorded after the event afterID, oldest
// first, at most limit of them; a limit of 0 or less means no limit.
func (db *DB) FindEvents(ctx context.Context, afterID int64, limit int) ([]redirects.Event, error) {
	if limit <= 0 {
		limit = -1 // SQLite's "no limit"
	}
	rows, err := db.read.QueryContext(ctx, `SELECT id, kind, org_id, project_id, version, created_at
		FROM events WHERE id > ? ORDER BY id LIMIT ?`, afterID, limit)
	return collect("find events", rows, err, scanEvent)
}

func scanEvent(s scanner) (redirects.Event, error) {
	var (
		e       redirects.Event
		created int64
	)
	err := s.Scan(&e.ID, &e.Kind, &e.OrgID, &e.ProjectID, &e.Version, &created)
	e.CreatedAt = fromNanos(created)
	return e, err
}

// LastEventID returns the ID of the newest event, or 0.
func (db *DB) LastEventID(ctx context.Context) (int64, error) {
	var id int64
	if err := db.read.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM events`).Scan(&id); err != nil {
		return 0, wrap("last event", err)
	}
	return id, nil
}

// AddUsage adds counted live lookups to organizations' monthly usage, all
// in one transaction. Counts of unknown organizations are dropped, and zero
// counts store nothing.
func (db *DB) AddUsage(ctx context.Context, period string, counts map[string]int64) error {
	if err := redirects.ValidateUsage(period, counts); err != nil {
		return err
	}
	if len(counts) == 0 {
		return nil
	}
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// The WHERE EXISTS drops unknown organizations instead of failing the
	// whole batch on the foreign key; it also lets SQLite parse the upsert
	// after a SELECT.
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO usage (org_id, period, count)
		SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM orgs WHERE id = ?1)
		ON CONFLICT (org_id, period) DO UPDATE SET count = count + excluded.count`)
	if err != nil {
		return wrap("add usage", err)
	}
	defer stmt.Close()
	for org, n := range counts {
		if n == 0 {
			continue
		}
		if _, err := stmt.ExecContext(ctx, org, period, n); err != nil {
			return wrap("add usage", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return wrap("add usage", err)
	}
	return nil
}

// FindUsage returns the monthly usage of every organization that has some
// in period ("2006-01", UTC).
func (db *DB) FindUsage(ctx context.Context, period string) (map[string]int64, error) {
	if err := redirects.ValidatePeriod(period); err != nil {
		return nil, err
	}
	type orgUsage struct {
		org string
		n   int64
	}
	rows, err := db.read.QueryContext(ctx, `SELECT org_id, count FROM usage WHERE period = ?`, period)
	list, err := collect("find usage", rows, err, func(s scanner) (orgUsage, error) {
		var u orgUsage
		return u, s.Scan(&u.org, &u.n)
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(list))
	for _, u := range list {
		out[u.org] = u.n
	}
	return out, nil
}

// AddKeyUsage adds counted live lookups to keys' daily usage, all in one
// transaction, each under its key's organization. Counts of unknown keys
// are dropped, and zero counts store nothing.
func (db *DB) AddKeyUsage(ctx context.Context, counts []redirects.DailyUsage) error {
	if err := redirects.ValidateDailyUsage(counts); err != nil {
		return err
	}
	if len(counts) == 0 {
		return nil
	}
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// The join finds the key's organization and drops unknown keys.
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO usage_daily (org_id, day, key_id, count)
		SELECT p.org_id, ?2, k.id, ?3 FROM keys k JOIN projects p ON p.id = k.project_id WHERE k.id = ?1
		ON CONFLICT (org_id, day, key_id) DO UPDATE SET count = count + excluded.count`)
	if err != nil {
		return wrap("add key usage", err)
	}
	defer stmt.Close()
	for _, c := range counts {
		if c.Count == 0 {
			continue
		}
		if _, err := stmt.ExecContext(ctx, c.KeyID, c.Day, c.Count); err != nil {
			return wrap("add key usage", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return wrap("add key usage", err)
	}
	return nil
}

// FindDailyUsage returns an organization's daily usage per key in month,
// by day then key ID.
func (db *DB) FindDailyUsage(ctx context.Context, orgID, month string) ([]redirects.DailyUsage, error) {
	if err := redirects.ValidatePeriod(month); err != nil {
		return nil, err
	}
	// Days of the month sort between "2006-01-" and "2006-01-~".
	rows, err := db.read.QueryContext(ctx, `SELECT key_id, day, count FROM usage_daily
		WHERE org_id = ? AND day > ? AND day < ? ORDER BY day, key_id`, orgID, month+"-", month+"-~")
	if err != nil {
		return nil, wrap("find daily usage", err)
	}
	defer rows.Close()
	out := []redirects.DailyUsage{}
	for rows.Next() {
		var u redirects.DailyUsage
		if err := rows.Scan(&u.KeyID, &u.Day, &u.Count); err != nil {
			return nil, wrap("find daily usage", err)
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, wrap("find daily usage", err)
	}
	return out, nil
}
