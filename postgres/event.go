package postgres

import (
	"cmp"
	"context"
	"slices"

	"github.com/jackc/pgx/v5"

	"redirects"
)

// FindEvents returns the events recorded after the event afterID, oldest
// first, at most limit of them; a limit of 0 or less means no limit.
func (db *DB) FindEvents(ctx context.Context, afterID int64, limit int) ([]redirects.Event, error) {
	var lim *int64 // NULL: PostgreSQL's "no limit"
	if limit > 0 {
		n := int64(limit)
		lim = &n
	}
	rows, err := db.pool.Query(ctx, `SELECT id, kind, org_id, project_id, version, created_at
		FROM events WHERE id > $1 ORDER BY id LIMIT $2`, afterID, lim)
	return collect("find events", rows, err, scanEvent)
}

func scanEvent(s pgx.Row) (redirects.Event, error) {
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
	if err := db.pool.QueryRow(ctx, `SELECT COALESCE(MAX(id), 0) FROM events`).Scan(&id); err != nil {
		return 0, wrap("last event", err)
	}
	return id, nil
}

// AddUsage adds counted live lookups to organizations' monthly usage, in
// one statement. Counts of unknown organizations are dropped, and zero
// counts store nothing.
func (db *DB) AddUsage(ctx context.Context, period string, counts map[string]int64) error {
	if err := redirects.ValidateUsage(period, counts); err != nil {
		return err
	}
	orgs := make([]string, 0, len(counts))
	for org, n := range counts {
		if n > 0 {
			orgs = append(orgs, org)
		}
	}
	if len(orgs) == 0 {
		return nil
	}
	// Rows are upserted in org ID order, so two flushes that touch the same
	// organizations lock their rows in the same order and cannot deadlock.
	slices.Sort(orgs)
	ns := make([]int64, len(orgs))
	for i, org := range orgs {
		ns[i] = counts[org]
	}
	// The join with orgs drops unknown organizations instead of failing the
	// whole batch on the foreign key.
	if _, err := db.pool.Exec(ctx, `INSERT INTO usage (org_id, period, count)
		SELECT c.org_id, $1, c.n
		FROM unnest($2::text[], $3::bigint[]) AS c (org_id, n)
		JOIN orgs ON orgs.id = c.org_id
		ORDER BY c.org_id
		ON CONFLICT (org_id, period) DO UPDATE SET count = usage.count + excluded.count`,
		period, orgs, ns); err != nil {
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
	rows, err := db.pool.Query(ctx, `SELECT org_id, count FROM usage WHERE period = $1`, period)
	list, err := collect("find usage", rows, err, func(s pgx.Row) (orgUsage, error) {
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

// AddKeyUsage adds counted live lookups to keys' daily usage, in one
// statement, each under its key's organization. Counts of unknown keys are
// dropped, and zero counts store nothing.
func (db *DB) AddKeyUsage(ctx context.Context, counts []redirects.DailyUsage) error {
	if err := redirects.ValidateDailyUsage(counts); err != nil {
		return err
	}
	// Sum repeated (key, day) pairs: one statement may not upsert a row
	// twice.
	type kd struct{ key, day string }
	sum := map[kd]int64{}
	for _, c := range counts {
		if c.Count > 0 {
			sum[kd{c.KeyID, c.Day}] += c.Count
		}
	}
	if len(sum) == 0 {
		return nil
	}
	pairs := make([]kd, 0, len(sum))
	for p := range sum {
		pairs = append(pairs, p)
	}
	// Rows are upserted in one order, so two flushes that touch the same
	// rows lock them in the same order and cannot deadlock.
	slices.SortFunc(pairs, func(a, b kd) int { return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.day, b.day)) })
	keys, days, ns := make([]string, len(pairs)), make([]string, len(pairs)), make([]int64, len(pairs))
	for i, p := range pairs {
		keys[i], days[i], ns[i] = p.key, p.day, sum[p]
	}
	// The join finds the key's organization and drops unknown keys.
	if _, err := db.pool.Exec(ctx, `INSERT INTO usage_daily (org_id, day, key_id, count)
		SELECT p.org_id, c.day, c.key_id, c.n
		FROM unnest($1::text[], $2::text[], $3::bigint[]) AS c (key_id, day, n)
		JOIN keys k ON k.id = c.key_id
		JOIN projects p ON p.id = k.project_id
		ORDER BY p.org_id, c.day, c.key_id
		ON CONFLICT (org_id, day, key_id) DO UPDATE SET count = usage_daily.count + excluded.count`,
		keys, days, ns); err != nil {
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
	// Byte order ("C"), as SQLite and Go sort, whatever the database's
	// collation.
	rows, err := db.pool.Query(ctx, `SELECT key_id, day, count FROM usage_daily
		WHERE org_id = $1 AND left(day, 7) = $2 ORDER BY day COLLATE "C", key_id COLLATE "C"`, orgID, month)
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
