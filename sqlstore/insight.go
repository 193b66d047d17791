package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strings"

	"redirects"
)

// AddHits adds the hits edge nodes counted to the rules' totals, in one
// transaction. Hits of unknown projects are dropped.
func (db *DB) AddHits(ctx context.Context, hits []redirects.RuleHits) error {
	if err := redirects.ValidateHits(hits); err != nil {
		return err
	}
	rows := make([]redirects.RuleHits, 0, len(hits))
	for _, h := range hits {
		if h.Hits != 0 {
			rows = append(rows, h)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	db.hitIDs.mu.Lock()
	defer db.hitIDs.mu.Unlock()
	if !db.d.HitIDs() {
		// PostgreSQL: batches appended by id, folded now and then.
		return db.addHitsByBatch(ctx, rows)
	}
	// SQLite, which remembers the ids of its rows (db.hitIDs): a flush
	// whose every row it remembers is a batch (appendHitsByID). Otherwise
	// it needs no order: its writer holds the whole database, and it
	// writes a row at a time, so a rule named twice is added to twice;
	// the sort was a tenth of its flush.
	if done, err := db.appendHitsByID(ctx, rows); done {
		return err
	}
	tx, err := db.beginWrite(ctx, "add hits")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// The generation tells whether a row went since this DB read its ids
	// (then it forgets them all); a flush by key after a row went folds
	// the pending batches first, so that none of their entries adds to a
	// row this flush writes in place of one gone.
	var gen int64
	if err := tx.QueryRowContext(ctx, hitGenerationByID).Scan(&gen); err != nil {
		return db.wrap("add hits", err)
	}
	m := &db.hitIDs
	if !m.hasGen || gen != m.gen.token {
		m.forget()
		if err := db.foldBatchesByID(ctx, tx); err != nil {
			return err
		}
	}
	kept, err := db.keptHits(ctx, tx, rows)
	if err != nil {
		return err
	}
	fresh, err := db.addHitsByID(ctx, tx, kept)
	if err != nil {
		return db.wrap("add hits", err)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap("add hits", err)
	}
	db.rememberHitIDs(fresh)
	m.gen, m.hasGen = hitGen{token: gen}, true
	return nil
}

// keptHits returns the hits of projects that exist, locked in tx so
// they stay until it ends (knownProjects): hits of a project that is
// gone are dropped. Most flushes name known projects only, and get hits
// as it is.
func (db *DB) keptHits(ctx context.Context, tx *Tx, hits []redirects.RuleHits) ([]redirects.RuleHits, error) {
	var projects []string
	for i, h := range hits {
		if i == 0 || h.ProjectID != hits[i-1].ProjectID {
			projects = append(projects, h.ProjectID)
		}
	}
	slices.Sort(projects)
	projects = slices.Compact(projects)
	known, err := db.knownProjects(ctx, tx, projects)
	if err != nil {
		return nil, err
	}
	if len(known) == len(projects) {
		return hits, nil
	}
	kept := make([]redirects.RuleHits, 0, len(hits))
	for _, h := range hits {
		if known[h.ProjectID] {
			kept = append(kept, h)
		}
	}
	return kept, nil
}

// sumHits sums, in place, the hits of each rule that sorted hits name
// more than once, and returns the rows left, one a rule.
func sumHits(hits []redirects.RuleHits) []redirects.RuleHits {
	out := hits[:0]
	for i := 0; i < len(hits); {
		h := hits[i]
		for i++; i < len(hits) && hits[i].ProjectID == h.ProjectID && hits[i].MatchType == h.MatchType && hits[i].Source == h.Source && hits[i].Host == h.Host; i++ {
			h.Hits += hits[i].Hits
			if hits[i].LastHit.After(h.LastHit) {
				h.LastHit = hits[i].LastHit
			}
		}
		out = append(out, h)
	}
	return out
}

// compareHits orders hits by their rule_hits key: project, match type
// (by its name), source, host. It compares a field only when those before
// it are equal (cmp.Or would compare them all): most rows of a flush
// share their project, and a sort compares n log n times.
func compareHits(a, b redirects.RuleHits) int {
	if c := strings.Compare(a.ProjectID, b.ProjectID); c != 0 {
		return c
	}
	if a.MatchType != b.MatchType {
		return strings.Compare(a.MatchType.String(), b.MatchType.String())
	}
	if c := strings.Compare(a.Source, b.Source); c != 0 {
		return c
	}
	return strings.Compare(a.Host, b.Host)
}

// FindHits returns the hits of every rule of a project that has some.
func (db *DB) FindHits(ctx context.Context, projectID string, sources []string) ([]redirects.RuleHits, error) {
	if len(sources) > redirects.MaxRuleLimit {
		return nil, redirects.Errorf(redirects.EINVALID, "hits of %d sources asked for at once; at most %d", len(sources), redirects.MaxRuleLimit)
	}
	if sources != nil && len(sources) == 0 {
		return nil, nil
	}
	query, args := `SELECT id, match_type, host, source, hits, last_hit FROM `+db.d.HitRows()+` WHERE project_id = $1`, []any{projectID}
	for i, src := range sources {
		if i == 0 {
			query += ` AND source IN (` + placeholders(2, len(sources)) + `)`
		}
		args = append(args, src)
	}
	query += ` ORDER BY match_type, source, host`
	scan := func(pending map[int64]foldRow) func(scanner) (redirects.RuleHits, error) {
		return func(s scanner) (redirects.RuleHits, error) {
			h := redirects.RuleHits{ProjectID: projectID}
			var mt string
			var id, last int64
			if err := s.Scan(&id, &mt, &h.Host, &h.Source, &h.Hits, &last); err != nil {
				return h, err
			}
			if p, ok := pending[id]; ok {
				h.Hits += p.hits
				last = max(last, p.last)
			}
			h.LastHit = fromNanos(last)
			var err error
			h.MatchType, err = redirects.ParseMatchType(mt)
			return h, err
		}
	}
	if !db.d.HitIDs() {
		// PostgreSQL's flushes leave batches that rule_hits does not
		// count yet: they are folded into it first.
		if err := db.FoldHits(ctx); err != nil {
			return nil, err
		}
		rows, err := db.read.QueryContext(ctx, query, args...)
		return collect(db, "find hits", rows, err, scan(nil))
	}
	// SQLite's: a read does not fold them (a fold takes the write lock,
	// which a deploy may hold for seconds, and readers never wait for
	// it); it reads the pending batches and the counts in one read
	// transaction and adds the batches' entries to their rows.
	tx, err := db.beginRead(ctx, "find hits")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, hitPendingByID)
	if err != nil {
		return nil, db.wrap("find hits", err)
	}
	entries, err := readBatches(rows, 0, func(n *int, entries *sql.RawBytes) error { return rows.Scan(n, entries) })
	if err != nil {
		return nil, db.wrap("find hits", err)
	}
	var pending map[int64]foldRow
	if len(entries) > 0 {
		entries = sumEntries(entries)
		pending = make(map[int64]foldRow, len(entries))
		for _, e := range entries {
			pending[e.id] = e
		}
	}
	rows, err = tx.QueryContext(ctx, query, args...)
	return collect(db, "find hits", rows, err, scan(pending))
}

// AddMisses adds the misses edge nodes counted to the projects' totals and
// keeps each project's redirects.MaxStoredMisses most frequent paths, in one
// transaction. Misses of unknown projects are dropped.
func (db *DB) AddMisses(ctx context.Context, misses []redirects.Miss) error {
	if err := redirects.ValidateMisses(misses); err != nil {
		return err
	}
	type key struct{ project, path, host string }
	sum := map[key]redirects.Miss{}
	for _, m := range misses {
		if m.Count == 0 {
			continue
		}
		k := key{m.ProjectID, m.Path, m.Host}
		s, ok := sum[k]
		if !ok || m.FirstSeen.Before(s.FirstSeen) {
			s.FirstSeen = m.FirstSeen
		}
		if m.LastSeen.After(s.LastSeen) {
			s.LastSeen = m.LastSeen
		}
		s.Count += m.Count
		sum[k] = s
	}
	if len(sum) == 0 {
		return nil
	}
	keys := make([]key, 0, len(sum))
	for k := range sum {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.project, b.project), cmp.Compare(a.path, b.path), cmp.Compare(a.host, b.host))
	})
	tx, err := db.beginWrite(ctx, "add misses")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// Space-saving beyond the cap (Store.AddMisses): in a project whose
	// table is full, a path it does not hold yet inherits the least count
	// it holds. Two nodes flushing the same new path at once may both add
	// that count; beyond the cap counts are upper bounds anyway.
	rows := make([][]any, len(keys))
	for start := 0; start < len(keys); {
		project := keys[start].project
		end := start
		for end < len(keys) && keys[end].project == project {
			end++
		}
		var n, least int64
		if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(min(count), 0) FROM misses WHERE project_id = $1`, project).Scan(&n, &least); err != nil {
			return db.wrap("add misses", err)
		}
		held := map[[2]string]bool{} // path and host
		if n >= redirects.MaxStoredMisses {
			for s := start; s < end; s += bulkRows {
				part := keys[s:min(s+bulkRows, end)]
				args := []any{project}
				for _, k := range part {
					args = append(args, k.path)
				}
				res, err := tx.QueryContext(ctx, `SELECT path, host FROM misses WHERE project_id = $1 AND path IN (`+placeholders(2, len(part))+`)`, args...)
				known, err := collect(db, "add misses", res, err, func(s scanner) ([2]string, error) {
					var p [2]string
					return p, s.Scan(&p[0], &p[1])
				})
				if err != nil {
					return err
				}
				for _, p := range known {
					held[p] = true
				}
			}
		}
		for i := start; i < end; i++ {
			m := sum[keys[i]]
			if n >= redirects.MaxStoredMisses && !held[[2]string{keys[i].path, keys[i].host}] {
				m.Count += least
			}
			rows[i] = []any{project, keys[i].path, m.Count, m.FirstSeen.UnixNano(), m.LastSeen.UnixNano(), keys[i].host}
		}
		start = end
	}
	// Misses of a project that is gone are dropped.
	var projects []string
	for i, k := range keys {
		if i == 0 || k.project != keys[i-1].project {
			projects = append(projects, k.project)
		}
	}
	known, err := db.knownProjects(ctx, tx, projects)
	if err != nil {
		return err
	}
	rows = slices.DeleteFunc(rows, func(row []any) bool { return !known[row[0].(string)] })
	if err := db.batch(ctx, tx, `INSERT INTO misses AS m (project_id, path, count, first_seen, last_seen, host) %s
		ON CONFLICT (project_id, path, host) DO UPDATE SET count = m.count + excluded.count,
			first_seen = CASE WHEN excluded.first_seen < m.first_seen THEN excluded.first_seen ELSE m.first_seen END,
			last_seen = CASE WHEN excluded.last_seen > m.last_seen THEN excluded.last_seen ELSE m.last_seen END`,
		`UPDATE misses SET count = count + $3, first_seen = CASE WHEN $4 < first_seen THEN $4 ELSE first_seen END,
			last_seen = CASE WHEN $5 > last_seen THEN $5 ELSE last_seen END
		WHERE project_id = $1 AND path = $2 AND host = $6`,
		[]string{"TEXT", "TEXT", "BIGINT", "BIGINT", "BIGINT", "TEXT"}, rows); err != nil {
		return db.wrap("add misses", err)
	}
	for i, k := range keys {
		if i > 0 && keys[i-1].project == k.project {
			continue
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM misses WHERE project_id = $1 AND (path, host) IN (
			SELECT path, host FROM (
				SELECT path, host, row_number() OVER (ORDER BY count DESC, last_seen DESC, path, host) AS r
				FROM misses WHERE project_id = $1) ranked
			WHERE r > $2)`, k.project, redirects.MaxStoredMisses); err != nil {
			return db.wrap("add misses", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return db.wrap("add misses", err)
	}
	return nil
}

// FindMisses returns a project's most frequent missed paths.
func (db *DB) FindMisses(ctx context.Context, projectID string, limit int) ([]redirects.Miss, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT host, path, count, first_seen, last_seen FROM misses
		WHERE project_id = $1 ORDER BY count DESC, path, host LIMIT $2`, projectID, limit)
	return collect(db, "find misses", rows, err, func(s scanner) (redirects.Miss, error) {
		m := redirects.Miss{ProjectID: projectID}
		var first, last int64
		err := s.Scan(&m.Host, &m.Path, &m.Count, &first, &last)
		m.FirstSeen, m.LastSeen = fromNanos(first), fromNanos(last)
		return m, err
	})
}

// DeleteMiss forgets a missed path of a project, on every host it was
// missed on, and records a miss.delete audit entry.
func (db *DB) DeleteMiss(ctx context.Context, projectID, path string) error {
	const op = "delete miss"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	p, err := db.findProject(ctx, tx, projectID, "")
	if err != nil {
		return err
	}
	var count, n int64
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(sum(count), 0), count(*) FROM misses WHERE project_id = $1 AND path = $2`, projectID, path).Scan(&count, &n); err != nil {
		return db.wrap(op, err)
	}
	if n == 0 {
		return redirects.Errorf(redirects.ENOTFOUND, "path %q is not among the misses of project %s", path, projectID)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM misses WHERE project_id = $1 AND path = $2`, projectID, path); err != nil {
		return db.wrap(op, err)
	}
	if err := db.audit(ctx, tx, redirects.AuditMissDelete, p.OrgID, p.ID, "miss", path, map[string]any{"path": path, "count": count}, nil); err != nil {
		return db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap(op, err)
	}
	return nil
}
