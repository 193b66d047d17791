package postgres

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/jackc/pgx/v5"

	"redirects"
)

// AddHits adds the hits edge nodes counted to the rules' totals, in one
// statement. Hits of unknown projects are dropped.
func (db *DB) AddHits(ctx context.Context, hits []redirects.RuleHits) error {
	if err := redirects.ValidateHits(hits); err != nil {
		return err
	}
	// Sum repeated rules (one statement may not upsert a row twice) and
	// upsert in one order, so two nodes' flushes cannot deadlock.
	type key struct{ project, mt, source string }
	sum := map[key]redirects.RuleHits{}
	for _, h := range hits {
		if h.Hits == 0 {
			continue
		}
		k := key{h.ProjectID, h.MatchType.String(), h.Source}
		s := sum[k]
		s.Hits += h.Hits
		if h.LastHit.After(s.LastHit) {
			s.LastHit = h.LastHit
		}
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
		return cmp.Or(cmp.Compare(a.project, b.project), cmp.Compare(a.mt, b.mt), cmp.Compare(a.source, b.source))
	})
	projects, mts, sources := make([]string, len(keys)), make([]string, len(keys)), make([]string, len(keys))
	ns, lasts := make([]int64, len(keys)), make([]int64, len(keys))
	for i, k := range keys {
		projects[i], mts[i], sources[i] = k.project, k.mt, k.source
		ns[i], lasts[i] = sum[k].Hits, sum[k].LastHit.UnixNano()
	}
	if _, err := db.pool.Exec(ctx, `INSERT INTO rule_hits (project_id, match_type, source, hits, last_hit)
		SELECT h.project_id, h.match_type, h.source, h.hits, h.last_hit
		FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[]) WITH ORDINALITY
			AS h (project_id, match_type, source, hits, last_hit, n)
		JOIN projects p ON p.id = h.project_id
		ORDER BY h.n
		ON CONFLICT (project_id, match_type, source) DO UPDATE SET
			hits = rule_hits.hits + excluded.hits, last_hit = greatest(rule_hits.last_hit, excluded.last_hit)`,
		projects, mts, sources, ns, lasts); err != nil {
		return wrap("add hits", err)
	}
	return nil
}

// FindHits returns the hits of every rule of a project that has some.
func (db *DB) FindHits(ctx context.Context, projectID string, sources []string) ([]redirects.RuleHits, error) {
	if len(sources) > redirects.MaxRuleLimit {
		return nil, redirects.Errorf(redirects.EINVALID, "hits of %d sources asked for at once; at most %d", len(sources), redirects.MaxRuleLimit)
	}
	rows, err := db.pool.Query(ctx, `SELECT match_type, source, hits, last_hit FROM rule_hits
		WHERE project_id = $1 AND ($2::text[] IS NULL OR source = ANY($2::text[]))
		ORDER BY match_type, source`, projectID, sources)
	return collect("find hits", rows, err, func(s pgx.Row) (redirects.RuleHits, error) {
		h := redirects.RuleHits{ProjectID: projectID}
		var mt string
		var last int64
		if err := s.Scan(&mt, &h.Source, &h.Hits, &last); err != nil {
			return h, err
		}
		h.LastHit = fromNanos(last)
		var err error
		h.MatchType, err = redirects.ParseMatchType(mt)
		return h, err
	})
}

// AddMisses adds the misses edge nodes counted to the projects' totals and
// keeps each project's redirects.MaxStoredMisses most frequent paths, in one
// transaction. Misses of unknown projects are dropped.
func (db *DB) AddMisses(ctx context.Context, misses []redirects.Miss) error {
	if err := redirects.ValidateMisses(misses); err != nil {
		return err
	}
	type key struct{ project, path string }
	sum := map[key]redirects.Miss{}
	for _, m := range misses {
		if m.Count == 0 {
			continue
		}
		k := key{m.ProjectID, m.Path}
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
		return cmp.Or(cmp.Compare(a.project, b.project), cmp.Compare(a.path, b.path))
	})
	projects, paths := make([]string, len(keys)), make([]string, len(keys))
	counts, firsts, lasts := make([]int64, len(keys)), make([]int64, len(keys)), make([]int64, len(keys))
	distinct := []string{}
	for i, k := range keys {
		m := sum[k]
		projects[i], paths[i] = k.project, k.path
		counts[i], firsts[i], lasts[i] = m.Count, m.FirstSeen.UnixNano(), m.LastSeen.UnixNano()
		if i == 0 || keys[i-1].project != k.project {
			distinct = append(distinct, k.project)
		}
	}
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return wrap("add misses", err)
	}
	defer tx.Rollback(ctx)
	// Space-saving beyond the cap (Store.AddMisses): in a project whose
	// table is full, a path it does not hold yet inherits the least count
	// it holds. Two nodes flushing the same new path at once may both add
	// that count; beyond the cap counts are upper bounds anyway.
	rows, err := tx.Query(ctx, `SELECT project_id, count(*), coalesce(min(count), 0) FROM misses
		WHERE project_id = ANY($1::text[]) GROUP BY project_id`, distinct)
	fills, err := collect("add misses", rows, err, func(s pgx.Row) (missFill, error) {
		var f missFill
		return f, s.Scan(&f.project, &f.n, &f.least)
	})
	if err != nil {
		return err
	}
	for _, f := range fills {
		if f.n < redirects.MaxStoredMisses {
			continue
		}
		var mine []string
		for i := range keys {
			if projects[i] == f.project {
				mine = append(mine, paths[i])
			}
		}
		rows, err := tx.Query(ctx, `SELECT path FROM misses WHERE project_id = $1 AND path = ANY($2::text[])`, f.project, mine)
		known, err := collect("add misses", rows, err, func(s pgx.Row) (string, error) {
			var p string
			return p, s.Scan(&p)
		})
		if err != nil {
			return err
		}
		held := make(map[string]bool, len(known))
		for _, p := range known {
			held[p] = true
		}
		for i := range keys {
			if projects[i] == f.project && !held[paths[i]] {
				counts[i] += f.least
			}
		}
	}
	if _, err := tx.Exec(ctx, `INSERT INTO misses (project_id, path, count, first_seen, last_seen)
		SELECT m.project_id, m.path, m.count, m.first_seen, m.last_seen
		FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[]) WITH ORDINALITY
			AS m (project_id, path, count, first_seen, last_seen, n)
		JOIN projects p ON p.id = m.project_id
		ORDER BY m.n
		ON CONFLICT (project_id, path) DO UPDATE SET count = misses.count + excluded.count,
			first_seen = least(misses.first_seen, excluded.first_seen),
			last_seen = greatest(misses.last_seen, excluded.last_seen)`,
		projects, paths, counts, firsts, lasts); err != nil {
		return wrap("add misses", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM misses d USING (
			SELECT project_id, path FROM (
				SELECT project_id, path, row_number() OVER (PARTITION BY project_id ORDER BY count DESC, last_seen DESC, path) AS r
				FROM misses WHERE project_id = ANY($1::text[])) ranked
			WHERE r > $2) gone
		WHERE d.project_id = gone.project_id AND d.path = gone.path`, distinct, redirects.MaxStoredMisses); err != nil {
		return wrap("add misses", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return wrap("add misses", err)
	}
	return nil
}

// missFill is how full a project's misses are: rows and least count.
type missFill struct {
	project  string
	n, least int64
}

// FindMisses returns a project's most frequent missed paths.
func (db *DB) FindMisses(ctx context.Context, projectID string, limit int) ([]redirects.Miss, error) {
	rows, err := db.pool.Query(ctx, `SELECT path, count, first_seen, last_seen FROM misses
		WHERE project_id = $1 ORDER BY count DESC, path LIMIT $2`, projectID, limit)
	return collect("find misses", rows, err, func(s pgx.Row) (redirects.Miss, error) {
		m := redirects.Miss{ProjectID: projectID}
		var first, last int64
		err := s.Scan(&m.Path, &m.Count, &first, &last)
		m.FirstSeen, m.LastSeen = fromNanos(first), fromNanos(last)
		return m, err
	})
}

// DeleteMiss forgets a missed path of a project and records a miss.delete
// audit entry.
func (db *DB) DeleteMiss(ctx context.Context, projectID, path string) error {
	const op = "delete miss"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	p, err := findProject(ctx, tx, projectID, "")
	if err != nil {
		return err
	}
	var count int64
	err = tx.QueryRow(ctx, `DELETE FROM misses WHERE project_id = $1 AND path = $2 RETURNING count`, projectID, path).Scan(&count)
	if errors.Is(err, pgx.ErrNoRows) {
		return redirects.Errorf(redirects.ENOTFOUND, "path %q is not among the misses of project %s", path, projectID)
	} else if err != nil {
		return wrap(op, err)
	}
	if err := db.audit(ctx, tx, redirects.AuditMissDelete, p.OrgID, p.ID, "miss", path, map[string]any{"path": path, "count": count}, nil); err != nil {
		return wrap(op, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return wrap(op, err)
	}
	return nil
}
