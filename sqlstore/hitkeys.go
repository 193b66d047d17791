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
// DB has flushed before (their keys' hashes in db.hitIDs.rows) go through
// hitUpdate, the others through hitUpsert; fresh are the hashes of the
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
func (db *DB) addHitsByKey(ctx context.Context, tx *Tx, hits []redirects.RuleHits) (fresh []uint64, vanished bool, err error) {
	known, seed := db.hitIDs.rows, db.hitIDs.seed
	// The columns are sized first: growing six slices row by row copies
	// them over and over, which cost a tenth of a flush.
	hashes := make([]uint64, len(hits))
	nAgain := 0
	for i, h := range hits {
		hashes[i] = hashHitKey(seed, hitKey{h.ProjectID, h.Source, h.Host, h.MatchType})
		if _, ok := known[hashes[i]]; ok {
			nAgain++
		}
	}
	again, first := newHitArrays(nAgain), newHitArrays(len(hits)-nAgain)
	for i, h := range hits {
		if _, ok := known[hashes[i]]; ok {
			again.add(h)
		} else {
			first.add(h)
			fresh = append(fresh, hashes[i])
		}
	}
	update := fmt.Sprintf(hitUpdate, db.d.Rows(hitColumns))
	var n int64
	for start := 0; start < len(again.source); start += hitArrayRows {
		res, err := tx.ExecContext(ctx, update, again.args(start)...)
		if err != nil {
			return nil, false, err
		}
		n += affected(res)
	}
	if n != int64(len(again.source)) {
		return nil, true, nil
	}
	upsert := fmt.Sprintf(hitUpsert, db.d.Rows(hitColumns))
	for start := 0; start < len(first.source); start += hitArrayRows {
		if _, err := tx.ExecContext(ctx, upsert, first.args(start)...); err != nil {
			return nil, false, err
		}
	}
	return fresh, false, nil
}

// hitArrayRows is how many rows one statement of addHitsByKey carries:
// a flush of many rows is a few round trips, none of which holds its row
// locks long.
const hitArrayRows = 10_000

// hitArrays are rule_hits rows as one slice per column, in the order of
// hitColumns: the arguments of Dialect.Rows where the dialect does not
// run a row at a time, built without a []any per row (RowArgs) since a
// flush sends many.
type hitArrays struct {
	project, matchType, source, host []string
	hits, lastHit                    []int64
}

func newHitArrays(n int) *hitArrays {
	return &hitArrays{
		project: make([]string, 0, n), matchType: make([]string, 0, n), source: make([]string, 0, n), host: make([]string, 0, n),
		hits: make([]int64, 0, n), lastHit: make([]int64, 0, n),
	}
}

func (a *hitArrays) add(h redirects.RuleHits) {
	a.project = append(a.project, h.ProjectID)
	a.matchType = append(a.matchType, h.MatchType.String())
	a.source = append(a.source, h.Source)
	a.hits = append(a.hits, h.Hits)
	a.lastHit = append(a.lastHit, h.LastHit.UnixNano())
	a.host = append(a.host, h.Host)
}

// args returns the arguments of the hitArrayRows rows from start.
func (a *hitArrays) args(start int) []any {
	end := min(start+hitArrayRows, len(a.source))
	return []any{a.project[start:end], a.matchType[start:end], a.source[start:end], a.hits[start:end], a.lastHit[start:end], a.host[start:end]}
}
