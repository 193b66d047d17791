package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"redirects"
)

// AddHits adds the hits edge nodes counted to the rules' totals, in one
// transaction. Hits of unknown projects are dropped.
func (db *DB) AddHits(ctx context.Context, hits []redirects.RuleHits) error {
	if err := redirects.ValidateHits(hits); err != nil {
		return err
	}
	if len(hits) == 0 {
		return nil
	}
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// The SELECT drops hits of a project that is gone.
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO rule_hits (project_id, match_type, source, hits, last_hit)
		SELECT id, ?2, ?3, ?4, ?5 FROM projects WHERE id = ?1
		ON CONFLICT (project_id, match_type, source) DO UPDATE SET
			hits = hits + excluded.hits, last_hit = max(last_hit, excluded.last_hit)`)
	if err != nil {
		return wrap("add hits", err)
	}
	defer stmt.Close()
	for _, h := range hits {
		if h.Hits == 0 {
			continue
		}
		if _, err := stmt.ExecContext(ctx, h.ProjectID, h.MatchType.String(), h.Source, h.Hits, h.LastHit.UnixNano()); err != nil {
			return wrap("add hits", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return wrap("add hits", err)
	}
	return nil
}

// FindHits returns the hits of every rule of a project that has some.
func (db *DB) FindHits(ctx context.Context, projectID string, sources []string) ([]redirects.RuleHits, error) {
	if len(sources) > redirects.MaxRuleLimit {
		return nil, redirects.Errorf(redirects.EINVALID, "hits of %d sources asked for at once; at most %d", len(sources), redirects.MaxRuleLimit)
	}
	q := `SELECT match_type, source, hits, last_hit FROM rule_hits WHERE project_id = ?`
	args := []any{projectID}
	if sources != nil {
		q += ` AND source IN (SELECT value FROM json_each(?))`
		b, err := json.Marshal(sources)
		if err != nil {
			return nil, wrap("find hits", err)
		}
		args = append(args, string(b))
	}
	rows, err := db.read.QueryContext(ctx, q+` ORDER BY match_type, source`, args...)
	return collect("find hits", rows, err, func(s scanner) (redirects.RuleHits, error) {
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
// transaction, as Store.AddMisses says (space-saving beyond the cap).
// Misses of unknown projects are dropped.
func (db *DB) AddMisses(ctx context.Context, misses []redirects.Miss) error {
	if err := redirects.ValidateMisses(misses); err != nil {
		return err
	}
	if len(misses) == 0 {
		return nil
	}
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO misses (project_id, path, count, first_seen, last_seen)
		SELECT id, ?2, ?3, ?4, ?5 FROM projects WHERE id = ?1
		ON CONFLICT (project_id, path) DO UPDATE SET count = count + excluded.count,
			first_seen = min(first_seen, excluded.first_seen), last_seen = max(last_seen, excluded.last_seen)`)
	if err != nil {
		return wrap("add misses", err)
	}
	defer stmt.Close()
	// floor is, per project whose table is full, the least count it holds:
	// what a new path inherits.
	floor := map[string]int64{}
	projects := map[string]bool{}
	for _, m := range misses {
		if m.Count == 0 {
			continue
		}
		if !projects[m.ProjectID] {
			projects[m.ProjectID] = true
			var n, least int64
			if err := tx.QueryRowContext(ctx, `SELECT count(*), coalesce(min(count), 0) FROM misses WHERE project_id = ?`, m.ProjectID).Scan(&n, &least); err != nil {
				return wrap("add misses", err)
			}
			if n >= redirects.MaxStoredMisses {
				floor[m.ProjectID] = least
			}
		}
		if least, full := floor[m.ProjectID]; full {
			var known int
			err := tx.QueryRowContext(ctx, `SELECT 1 FROM misses WHERE project_id = ? AND path = ?`, m.ProjectID, m.Path).Scan(&known)
			if errors.Is(err, sql.ErrNoRows) {
				m.Count += least
			} else if err != nil {
				return wrap("add misses", err)
			}
		}
		if _, err := stmt.ExecContext(ctx, m.ProjectID, m.Path, m.Count, m.FirstSeen.UnixNano(), m.LastSeen.UnixNano()); err != nil {
			return wrap("add misses", err)
		}
	}
	for p := range projects {
		if _, err := tx.ExecContext(ctx, `DELETE FROM misses WHERE project_id = ?1 AND path IN (
			SELECT path FROM misses WHERE project_id = ?1 ORDER BY count DESC, last_seen DESC, path LIMIT -1 OFFSET ?2)`,
			p, redirects.MaxStoredMisses); err != nil {
			return wrap("add misses", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return wrap("add misses", err)
	}
	return nil
}

// FindMisses returns a project's most frequent missed paths.
func (db *DB) FindMisses(ctx context.Context, projectID string, limit int) ([]redirects.Miss, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT path, count, first_seen, last_seen FROM misses
		WHERE project_id = ? ORDER BY count DESC, path LIMIT ?`, projectID, limit)
	return collect("find misses", rows, err, func(s scanner) (redirects.Miss, error) {
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
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	p, err := findProject(ctx, tx, projectID)
	if err != nil {
		return err
	}
	var count int64
	err = tx.QueryRowContext(ctx, `DELETE FROM misses WHERE project_id = ? AND path = ? RETURNING count`, projectID, path).Scan(&count)
	if errors.Is(err, sql.ErrNoRows) {
		return redirects.Errorf(redirects.ENOTFOUND, "path %q is not among the misses of project %s", path, projectID)
	} else if err != nil {
		return wrap("delete miss", err)
	}
	if err := db.audit(ctx, tx, redirects.AuditMissDelete, p.OrgID, p.ID, "miss", path, map[string]any{"path": path, "count": count}, nil); err != nil {
		return wrap("delete miss", err)
	}
	if err := tx.Commit(); err != nil {
		return wrap("delete miss", err)
	}
	return nil
}
