package sqlstore

import (
	"cmp"
	"context"
	"slices"

	"redirects"
)

// FindEvents returns the events recorded after the event afterID, oldest
// first, at most limit of them; a limit of 0 or less means no limit.
func (db *DB) FindEvents(ctx context.Context, afterID int64, limit int) ([]redirects.Event, error) {
	query, args := `SELECT id, kind, org_id, project_id, version, created_at FROM events WHERE id > $1 ORDER BY id`, []any{afterID}
	if limit > 0 {
		query += ` LIMIT $2`
		args = append(args, limit)
	}
	rows, err := db.read.QueryContext(ctx, query, args...)
	return collect(db, "find events", rows, err, scanEvent)
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
		return 0, db.wrap("last event", err)
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
	return db.addUsage(ctx, db.write, period, counts)
}

// AddUsageTogether writes monthly usage and keys' daily usage in one
// transaction, so the two add up after any kill.
func (db *DB) AddUsageTogether(ctx context.Context, monthly map[string]map[string]int64, daily []redirects.DailyUsage) error {
	periods := make([]string, 0, len(monthly))
	for period, counts := range monthly {
		if err := redirects.ValidateUsage(period, counts); err != nil {
			return err
		}
		periods = append(periods, period)
	}
	if err := redirects.ValidateDailyUsage(daily); err != nil {
		return err
	}
	slices.Sort(periods)
	tx, err := db.beginWrite(ctx, "add usage")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, period := range periods {
		if err := db.addUsage(ctx, tx, period, monthly[period]); err != nil {
			return err
		}
	}
	if err := db.addKeyUsage(ctx, tx, daily); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return db.wrap("add usage", err)
	}
	return nil
}

func (db *DB) addUsage(ctx context.Context, q querier, period string, counts map[string]int64) error {
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
	rows := make([][]any, len(orgs))
	for i, org := range orgs {
		rows[i] = []any{org, period, counts[org]}
	}
	// The join with orgs drops unknown organizations instead of failing the
	// whole batch on the foreign key.
	if err := bulk(ctx, q, `INSERT INTO usage (org_id, period, count)
		SELECT v.column1, v.column2, v.column3 FROM (VALUES %s) AS v
		JOIN orgs ON orgs.id = v.column1
		WHERE true ORDER BY v.column4
		ON CONFLICT (org_id, period) DO UPDATE SET count = usage.count + excluded.count`,
		[]string{"TEXT", "TEXT", "BIGINT"}, rows); err != nil {
		return db.wrap("add usage", err)
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
	rows, err := db.read.QueryContext(ctx, `SELECT org_id, count FROM usage WHERE period = $1`, period)
	list, err := collect(db, "find usage", rows, err, func(s scanner) (orgUsage, error) {
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
	return db.addKeyUsage(ctx, db.write, counts)
}

func (db *DB) addKeyUsage(ctx context.Context, q querier, counts []redirects.DailyUsage) error {
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
	rows := make([][]any, len(pairs))
	for i, p := range pairs {
		rows[i] = []any{p.key, p.day, sum[p]}
	}
	// The join finds the key's organization and drops unknown keys.
	if err := bulk(ctx, q, `INSERT INTO usage_daily (org_id, day, key_id, count)
		SELECT p.org_id, v.column2, v.column1, v.column3 FROM (VALUES %s) AS v
		JOIN keys k ON k.id = v.column1
		JOIN projects p ON p.id = k.project_id
		WHERE true ORDER BY v.column4
		ON CONFLICT (org_id, day, key_id) DO UPDATE SET count = usage_daily.count + excluded.count`,
		[]string{"TEXT", "TEXT", "BIGINT"}, rows); err != nil {
		return db.wrap("add key usage", err)
	}
	return nil
}

// FindDailyUsage returns an organization's daily usage per key in month,
// by day then key ID.
func (db *DB) FindDailyUsage(ctx context.Context, orgID, month string) ([]redirects.DailyUsage, error) {
	if err := redirects.ValidatePeriod(month); err != nil {
		return nil, err
	}
	// Byte order, as Go sorts, whatever the database's collation.
	rows, err := db.read.QueryContext(ctx, `SELECT key_id, day, count FROM usage_daily
		WHERE org_id = $1 AND substr(day, 1, 7) = $2 ORDER BY `+db.d.Binary("day")+`, `+db.d.Binary("key_id"), orgID, month)
	if err != nil {
		return nil, db.wrap("find daily usage", err)
	}
	defer rows.Close()
	out := []redirects.DailyUsage{}
	for rows.Next() {
		var u redirects.DailyUsage
		if err := rows.Scan(&u.KeyID, &u.Day, &u.Count); err != nil {
			return nil, db.wrap("find daily usage", err)
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("find daily usage", err)
	}
	return out, nil
}
