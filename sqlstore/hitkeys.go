package sqlstore

import (
	"context"
	"fmt"

	"redirects"
)

// hitColumns are the columns of a rule_hits row a flush sends, in the
// order of hitUpsert's and hitUpdate's values.
var hitColumns = []string{"TEXT", "TEXT", "TEXT", "BIGINT", "BIGINT", "TEXT"}

// hitUpsert adds the hits of rows that may not exist yet; its %s stands
// for the dialect's rows (Dialect.Rows).
const hitUpsert = `INSERT INTO rule_hits AS r (project_id, match_type, source, hits, last_hit, host) %s
	ON CONFLICT (project_id, match_type, source, host) DO UPDATE SET hits = r.hits + excluded.hits,
		last_hit = CASE WHEN excluded.last_hit > r.last_hit THEN excluded.last_hit ELSE r.last_hit END`

// hitUpdate adds the hits of rows this DB has flushed before, which
// exist unless something deleted them since; its %s stands for the
// dialect's rows (Dialect.Rows), named u's columns. An UPDATE finds its
// row once and writes it once, where an upsert looks the row up for the
// conflict, locks it (a WAL record) and then updates it (another).
const hitUpdate = `UPDATE rule_hits AS r SET hits = r.hits + u.hits,
		last_hit = CASE WHEN u.last_hit > r.last_hit THEN u.last_hit ELSE r.last_hit END
	FROM (%s) AS u (project_id, match_type, source, hits, last_hit, host)
	WHERE r.project_id = u.project_id AND r.match_type = u.match_type AND r.source = u.source AND r.host = u.host`

// addHitsByKey adds hits (summed, sorted, of known projects) in tx where
// the dialect sends many rows per statement (PostgreSQL). The rows this
// DB has flushed before (remembered in db.hitIDs, with no id) go through
// hitUpdate, the others through hitUpsert; fresh are the keys of the
// latter, to remember once tx commits. If hitUpdate changed fewer rows
// than it was sent, a remembered row is gone: it reports vanished, and
// the caller rolls tx back and flushes again with nothing remembered, so
// no hit is lost or counted twice. The caller holds db.hitIDs.mu.
//
// Two nodes flushing at once each lock their rows in key order within a
// statement; a rule one node remembers and the other does not may be in
// different statements of the two, and PostgreSQL then ends one flush
// with a deadlock error: that flush fails, changing nothing, and the node
// keeps its hits for the next.
func (db *DB) addHitsByKey(ctx context.Context, tx *Tx, hits []redirects.RuleHits) (fresh map[hitKey]int64, vanished bool, err error) {
	known := db.hitIDs.ids
	var again, first [][]any
	values := make([]any, 0, 6*len(hits))
	fresh = map[hitKey]int64{}
	for _, h := range hits {
		values = append(values, h.ProjectID, h.MatchType.String(), h.Source, h.Hits, h.LastHit.UnixNano(), h.Host)
		row := values[len(values)-6 : len(values) : len(values)]
		k := hitKey{h.ProjectID, h.Source, h.Host, h.MatchType}
		if _, ok := known[k]; ok {
			again = append(again, row)
		} else {
			first = append(first, row)
			fresh[k] = 0
		}
	}
	if len(again) > 0 {
		lists, err := db.d.RowArgs(hitColumns, again)
		if err != nil {
			return nil, false, err
		}
		update := fmt.Sprintf(hitUpdate, db.d.Rows(hitColumns))
		var n int64
		for _, args := range lists {
			res, err := tx.ExecContext(ctx, update, args...)
			if err != nil {
				return nil, false, err
			}
			n += affected(res)
		}
		if n != int64(len(again)) {
			return nil, true, nil
		}
	}
	if err := db.batch(ctx, tx, hitUpsert, "", hitColumns, first); err != nil {
		return nil, false, err
	}
	return fresh, false, nil
}
