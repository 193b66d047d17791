package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"redirects"
)

// hitColumns are the columns of a rule_hits row a flush sends by key, in
// the order of hitUpsert's values.
var hitColumns = []string{"TEXT", "TEXT", "TEXT", "BIGINT", "BIGINT", "TEXT"}

// hitUpsert adds the hits of rows this DB has no id of (not flushed
// before, or forgotten): it inserts the keys not in rule_hits yet (a key
// that is there is locked and kept as it is), adds the hits to their
// counts (rule_hit_counts, migration 0025) or inserts them, and returns
// each row's key with its id and token, to remember. Its %s stands for
// the dialect's rows (Dialect.Rows).
const hitUpsert = `WITH u (project_id, match_type, source, hits, last_hit, host) AS (%s),
	k AS (INSERT INTO rule_hits AS r (project_id, match_type, source, host)
			SELECT project_id, match_type, source, host FROM u
		ON CONFLICT (project_id, match_type, source, host) DO UPDATE SET host = r.host
		RETURNING r.project_id, r.match_type, r.source, r.host, r.id, r.token),
	c AS (INSERT INTO rule_hit_counts AS c (id, token, hits, last_hit)
			SELECT k.id, k.token, u.hits, u.last_hit FROM k JOIN u USING (project_id, match_type, source, host)
		ON CONFLICT (id) DO UPDATE SET hits = c.hits + excluded.hits,
			last_hit = CASE WHEN excluded.last_hit > c.last_hit THEN excluded.last_hit ELSE c.last_hit END)
	SELECT project_id, match_type, source, host, id, token FROM k`

// hitAppend appends a batch of hits of rows this DB remembers ($3, $2
// entries: hitBatch) if rule_hit_generation's row is still the one read
// when they were remembered (hitGen: $1 its token, $4 its version): no
// row of rule_hits has gone since, nor has a restore written the table
// again, so every id names the row it named then. It also refuses if
// the largest id in the batch ($5) is above what rule_hits' id sequence
// has given: a physical restore (point-in-time recovery, a snapshot of
// the files, a promoted standby) took the database back to before that
// id, and kept rule_hit_generation's row as it was. It returns the
// number of entries pending before it, and no row if it refused.
const hitAppend = hitAppendInsert + `
	RETURNING (SELECT coalesce(sum(n), 0) FROM rule_hit_batches)`

// hitAppendBlind is hitAppend without the count of the entries pending,
// which reads every pending batch's row: it returns -1.
const hitAppendBlind = hitAppendInsert + `
	RETURNING -1`

const hitAppendInsert = `INSERT INTO rule_hit_batches (n, entries)
	SELECT $2, $3 FROM rule_hit_generation WHERE token = $1 AND xmin::TEXT::BIGINT = $4
		AND $5 <= (SELECT last_value FROM rule_hits_id_seq)`

// FoldCheckEntries and foldCheckAppends are how often the appends of a DB
// count the entries pending (hitAppend; hitAppendBlind otherwise): once
// it appended FoldCheckEntries entries since it last counted, or at its
// foldCheckAppends-th append since, whichever comes first. The count
// reads a row per pending batch (4 ms with 25,000 batches of 10); counted
// every 64th append of small batches, it costs each append a sixty-fourth.
// A fold may thus come after FoldEntries by what each DB appended since it
// last counted: under FoldCheckEntries entries and foldCheckAppends
// batches a DB.
const (
	FoldCheckEntries = FoldEntries / 16
	foldCheckAppends = 64
)

// hitUnmatched counts the entries of a fold's chunk that matched no row
// of rule_hit_counts (their id gone, or now another row's), their hits,
// and how many of them a delete does not explain: an id above what the
// id sequence has given, or an id whose row is there with another token.
// An id is never given twice, so only a physical restore, which takes the
// sequence back, makes those.
const hitUnmatched = `SELECT count(*), coalesce(sum(u.hits), 0)::BIGINT,
		count(*) FILTER (WHERE u.id > (SELECT last_value FROM rule_hits_id_seq)
			OR EXISTS (SELECT 1 FROM rule_hit_counts r WHERE r.id = u.id))
	FROM (SELECT unnest($1::BIGINT[]) AS id, unnest($2::BIGINT[]) AS token, unnest($3::BIGINT[]) AS hits) AS u
	WHERE NOT EXISTS (SELECT 1 FROM rule_hit_counts r WHERE r.id = u.id AND r.token = u.token)`

// hitRenew gives rule_hit_generation a new token: every DB then refuses
// to append by the ids it remembers and flushes by key (hitUpsert), which
// creates the rows a restore took away.
const hitRenew = `UPDATE rule_hit_generation SET token = (floor(random() * 9.2e18))::BIGINT`

// hitGeneration reads hitGen.
const hitGeneration = `SELECT token, xmin::TEXT::BIGINT FROM rule_hit_generation`

// hitGen is rule_hit_generation's row as a DB read it: its token, which
// the delete trigger of rule_hits changes (migration 0025), and its
// version, the transaction that wrote it (xmin), which changes with the
// token and also when a restore (pg_restore) writes the row again with
// the token of its dump.
type hitGen struct{ token, version int64 }

// hitPending counts the entries pending.
const hitPending = `SELECT coalesce(sum(n), 0) FROM rule_hit_batches`

// hitTake deletes the pending batches and returns them. A fold running
// at once holds the batches it took until it commits; this one waits for
// them (in seq order, so no two folds wait on each other) and then finds
// them gone, so a reader that folds first sees every batch committed
// before it.
const hitTake = `DELETE FROM rule_hit_batches WHERE seq IN (SELECT seq FROM rule_hit_batches ORDER BY seq FOR UPDATE)
	RETURNING n, entries`

// hitFold adds summed batch entries to rule_hit_counts, each row once; a
// row whose id or token no longer matches (its project deleted since the
// batch was appended) takes nothing. $5 and $6 are the least and the
// greatest id of the entries: without them PostgreSQL joined the chunk's
// entries, sorted, with the whole primary key from its first row, so a
// fold of 100,000 rows in ten chunks read the index over half a million
// rows, and the chunk of the greatest ids took about twice the first's time.
const hitFold = `UPDATE rule_hit_counts AS r SET hits = r.hits + u.hits,
		last_hit = CASE WHEN u.last_hit > r.last_hit THEN u.last_hit ELSE r.last_hit END
	FROM (SELECT unnest($1::BIGINT[]) AS id, unnest($2::BIGINT[]) AS token, unnest($3::BIGINT[]) AS hits, unnest($4::BIGINT[]) AS last_hit) AS u
	WHERE r.id = u.id AND r.token = u.token AND r.id BETWEEN $5 AND $6`

// FoldEntries is how many batch entries may wait before the flush that
// appends past it folds them. A reader of hits folds what is pending
// first (FindHits), so it bounds what a read may wait for; a fold
// updates each row once for all the batches that name it, so the more it
// folds at once, the less a flushed row costs. At a million, a node that
// flushes 100,000 distinct rules a second folds every ten flushes (its
// rows' update about 0.3 us of a flushed row's CPU, against 1.4 us at a
// fold every three), and a read waits for at most a million
// entries (32 MB) summed and each of their rows updated once: about 0.7 s
// when they name 100,000 rules (BENCHMARKS.md, BenchmarkReadAfterFlushes).
const FoldEntries = 1_000_000

// maxHitBuf bounds the bytes of a batch a DB keeps for the next flush.
const maxHitBuf = 16 << 20

// hitRef is what a DB remembers of a rule_hits row for the batches: its
// id and token.
type hitRef struct{ id, token int64 }

// addHitsByBatch adds hits where the dialect has no row ids (PostgreSQL).
// When this DB remembers every row (their ids and tokens, read under the
// generation token it holds), the flush is one statement: hitAppend,
// appending the batch (no row lock, one row written). Otherwise, in one
// transaction, it reads the generation, appends the rows it remembers and
// upserts the others by key, and remembers them once it commits. If the
// generation changed, rows may be gone: the DB forgets every row and
// flushes by key. The caller holds db.hitIDs.mu.
func (db *DB) addHitsByBatch(ctx context.Context, hits []redirects.RuleHits) error {
	m := &db.hitIDs
	if m.hasGen {
		// The batch's bytes reuse the last flush's (m.buf): a flush of
		// 100,000 rows is 3.2 MB, which the garbage collector would
		// otherwise sweep up after each.
		b := &hitBatch{slices.Grow(m.buf[:0], len(hits)*hitEntrySize)}
		if cap(b.entries) <= maxHitBuf {
			defer func() { m.buf = b.entries[:0] }()
		}
		all := true
		var maxID int64
		for _, h := range hits {
			ref, ok := m.refs[m.idKey(hitKey{h.ProjectID, h.Source, h.Host, h.MatchType})]
			if !ok {
				all = false
				break
			}
			b.add(ref, h)
			maxID = max(maxID, ref.id)
		}
		if all {
			count := m.uncounted+len(hits) >= FoldCheckEntries || m.uncountedAppends+1 >= foldCheckAppends
			pending, err := b.append(ctx, db.write, m.gen, maxID, count)
			if err == nil {
				if !count {
					m.uncounted += len(hits)
					m.uncountedAppends++
					return nil
				}
				m.uncounted, m.uncountedAppends = 0, 0
				if pending+int64(len(hits)) >= FoldEntries {
					// The batch is stored: a fold that fails (two folds
					// waiting on each other's rows) leaves the batches for
					// the next.
					_ = db.FoldHits(ctx)
				}
				return nil
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return db.wrap("add hits", err)
			}
			m.forget()
		}
	}
	// The upsert locks rows in key order, a fold in id order and a
	// project's delete in the order its rows lie in: PostgreSQL may end
	// the flush's transaction as deadlocked, which changed nothing, and
	// it is tried again.
	var vanished, fold bool
	err := retryDeadlock(ctx, func() (err error) {
		vanished, fold, err = db.addHitsInTx(ctx, hits)
		return err
	})
	if err == nil && vanished {
		m.forget()
		err = retryDeadlock(ctx, func() (err error) {
			_, fold, err = db.addHitsInTx(ctx, hits)
			return err
		})
	}
	if err == nil && fold {
		// As on the append alone: a flush whose rows are partly new
		// (every flush, once more rules are hit than maxHitIDs) folds
		// past the same bound.
		_ = db.FoldHits(ctx)
	}
	return err
}

// addHitsInTx is addHitsByBatch's transaction. It reports vanished, with
// the transaction rolled back, when the generation changed between its
// read and the append, and fold when its append took the entries pending
// to FoldEntries or past.
func (db *DB) addHitsInTx(ctx context.Context, hits []redirects.RuleHits) (vanished, fold bool, err error) {
	m := &db.hitIDs
	tx, err := db.beginWrite(ctx, "add hits")
	if err != nil {
		return false, false, err
	}
	defer tx.Rollback()
	var gen hitGen
	if err := tx.QueryRowContext(ctx, hitGeneration).Scan(&gen.token, &gen.version); err != nil {
		return false, false, db.wrap("add hits", err)
	}
	if m.hasGen && gen != m.gen {
		m.forget()
	}
	kept, err := db.keptHits(ctx, tx, hits)
	if err != nil {
		return false, false, err
	}
	b := newHitBatch(0)
	var fresh []redirects.RuleHits
	var maxID int64
	for _, h := range kept {
		if ref, ok := m.refs[m.idKey(hitKey{h.ProjectID, h.Source, h.Host, h.MatchType})]; ok {
			b.add(ref, h)
			maxID = max(maxID, ref.id)
		} else {
			fresh = append(fresh, h)
		}
	}
	if b.len() > 0 {
		pending, err := b.append(ctx, tx, gen, maxID, true)
		if err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return true, false, nil
			}
			return false, false, db.wrap("add hits", err)
		}
		fold = pending+int64(b.len()) >= FoldEntries
	}
	// The upsert locks its rows in one order (sorted), so two nodes'
	// flushes lock rows alike, and sums repeated rules (one statement may
	// not upsert a row twice), which sorting puts side by side.
	slices.SortFunc(fresh, compareHits)
	fresh = sumHits(fresh)
	refs := make(map[hitHash]hitRef, len(fresh))
	upsert := fmt.Sprintf(hitUpsert, db.d.Rows(hitColumns))
	for start := 0; start < len(fresh); start += hitArrayRows {
		a := newHitArrays(min(hitArrayRows, len(fresh)-start))
		for _, h := range fresh[start:min(start+hitArrayRows, len(fresh))] {
			a.add(h)
		}
		rows, err := tx.QueryContext(ctx, upsert, a.args(0)...)
		if err != nil {
			return false, false, db.wrap("add hits", err)
		}
		for rows.Next() {
			var k hitKey
			var mt string
			var ref hitRef
			if err := rows.Scan(&k.project, &mt, &k.source, &k.host, &ref.id, &ref.token); err != nil {
				rows.Close()
				return false, false, db.wrap("add hits", err)
			}
			if k.matchType, err = redirects.ParseMatchType(mt); err != nil {
				rows.Close()
				return false, false, db.wrap("add hits", err)
			}
			refs[m.idKey(k)] = ref
		}
		if err := rows.Close(); err != nil {
			return false, false, db.wrap("add hits", err)
		}
		if err := rows.Err(); err != nil {
			return false, false, db.wrap("add hits", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return false, false, db.wrap("add hits", err)
	}
	if m.refs == nil || len(m.refs)+len(refs) > maxHitIDs {
		m.refs = make(map[hitHash]hitRef, min(len(refs), maxHitIDs))
	}
	for k, ref := range refs {
		if len(m.refs) >= maxHitIDs {
			break
		}
		m.refs[k] = ref
	}
	m.gen, m.hasGen = gen, true
	return false, fold, nil
}

// FoldHits adds every pending batch of hits (the flushes of rows a store
// had flushed before) to rule_hit_counts, in one transaction: what
// readers see does not change, and the batches are gone.
//
// A fold that fails changes nothing, and is tried again, up to three
// times in all: PostgreSQL ends one of two transactions that wait on each
// other's rows (a fold's, in id order, and a flush's upsert, in key
// order), and a reader of hits should not fail for it.
func (db *DB) FoldHits(ctx context.Context) error {
	if db.d.HitIDs() {
		return db.foldHitsByID(ctx)
	}
	var err error
	for range 3 {
		if err = db.foldHits(ctx); err == nil || ctx.Err() != nil {
			break
		}
	}
	return err
}

// foldHits is one try of FoldHits.
func (db *DB) foldHits(ctx context.Context) error {
	tx, err := db.beginWrite(ctx, "fold hits")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// The entries are gathered in one slice made at the size of what is
	// pending: grown as batches came, a fold of a million entries spent
	// most of its CPU copying them (and the garbage collector in trying to
	// stop the copy). Batches appended after the count only make it grow;
	// a fold that finds the batches taken by another allocates nothing.
	// (The count's lock on the table, taken before the take's, is the
	// weakest there is: only a statement that locks the whole table, a
	// migration or TRUNCATE, queued between the two, can make the fold
	// wait, or PostgreSQL end it as deadlocked, which FoldHits tries
	// again.)
	var pending int64
	if err := tx.QueryRowContext(ctx, hitPending).Scan(&pending); err != nil {
		return db.wrap("fold hits", err)
	}
	rows, err := tx.QueryContext(ctx, hitTake)
	if err != nil {
		return db.wrap("fold hits", err)
	}
	// Every entry is read, sorted by row and summed, and the rows are
	// updated in id order, so two folds lock the rows they share alike.
	// (A map from row to sum cost twice the sort: a lookup per entry in
	// a map of every row, scattered over memory.) The entries are read
	// in place (RawBytes), not copied.
	sums, err := readBatches(rows, pending, func(n *int, entries *sql.RawBytes) error { return rows.Scan(n, entries) })
	if err != nil {
		return db.wrap("fold hits", err)
	}
	if len(sums) == 0 {
		return nil
	}
	var lost unmatchedHits
	sums = sumEntries(sums)
	ids, tokens, hits, last := make([]int64, 0, hitArrayRows), make([]int64, 0, hitArrayRows), make([]int64, 0, hitArrayRows), make([]int64, 0, hitArrayRows)
	for start := 0; start < len(sums); start += hitArrayRows {
		ids, tokens, hits, last = ids[:0], tokens[:0], hits[:0], last[:0]
		for _, r := range sums[start:min(start+hitArrayRows, len(sums))] {
			ids, tokens, hits, last = append(ids, r.id), append(tokens, r.token), append(hits, r.hits), append(last, r.last)
		}
		// sums are in id order: the chunk's ids lie between its first
		// and its last.
		res, err := tx.ExecContext(ctx, hitFold, ids, tokens, hits, last, ids[0], ids[len(ids)-1])
		if err != nil {
			return db.wrap("fold hits", err)
		}
		matched, err := res.RowsAffected()
		if err != nil {
			return db.wrap("fold hits", err)
		}
		if matched < int64(len(ids)) {
			var u unmatchedHits
			if err := tx.QueryRowContext(ctx, hitUnmatched, ids, tokens, hits).Scan(&u.entries, &u.hits, &u.restored); err != nil {
				return db.wrap("fold hits", err)
			}
			lost.entries, lost.hits, lost.restored = lost.entries+u.entries, lost.hits+u.hits, lost.restored+u.restored
		}
	}
	if lost.entries > 0 {
		// Entries that match no row name rows gone since their batch
		// (a project deleted: the delete trigger changed the token
		// already) or, after a physical restore, ids the restore took
		// back, by which the DBs that remember them would go on
		// appending: a new token makes every DB forget its ids and
		// flush by key.
		if _, err := tx.ExecContext(ctx, hitRenew); err != nil {
			return db.wrap("fold hits", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return db.wrap("fold hits", err)
	}
	if lost.entries > 0 {
		db.droppedHits.Add(lost.entries)
		if lost.restored > 0 {
			db.log().Warn("fold hits: batch entries matched no rule_hits row and were dropped; ids above the id sequence or reused point to a physical restore of the database; every node now flushes by key",
				"entries", lost.entries, "hits", lost.hits, "restored_ids", lost.restored)
		}
	}
	return nil
}

// readBatches reads every batch of rows, each scanned by scan into its
// number of entries and its entries (read in place, not copied), into one
// slice of entries (appendEntries), and closes rows.
func readBatches(rows *sql.Rows, pending int64, scan func(n *int, entries *sql.RawBytes) error) ([]foldRow, error) {
	defer rows.Close()
	var sums []foldRow
	var entries sql.RawBytes
	for rows.Next() {
		var n int
		if err := scan(&n, &entries); err != nil {
			return nil, err
		}
		var err error
		if sums, err = appendEntries(sums, n, entries, pending); err != nil {
			return nil, err
		}
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	return sums, rows.Err()
}

// appendEntries appends the n entries of a batch to sums, which it makes
// at the size of what is pending (pending) when nil: grown as batches
// came, a fold of a million entries spent most of its CPU copying them.
func appendEntries(sums []foldRow, n int, entries []byte, pending int64) ([]foldRow, error) {
	if len(entries) != n*hitEntrySize {
		return sums, fmt.Errorf("a batch of %d entries in %d bytes", n, len(entries))
	}
	if sums == nil {
		sums = make([]foldRow, 0, max(int64(n), min(pending, 4*FoldEntries)))
	} else if cap(sums)-len(sums) < n {
		sums = slices.Grow(sums, max(n, len(sums)))
	}
	for e := entries; len(e) > 0; e = e[hitEntrySize:] {
		sums = append(sums, foldRow{hitRef{int64(binary.LittleEndian.Uint64(e)), int64(binary.LittleEndian.Uint64(e[8:]))},
			int64(binary.LittleEndian.Uint64(e[16:])), int64(binary.LittleEndian.Uint64(e[24:]))})
	}
	return sums, nil
}

// sumEntries sorts entries by row (id, then token) and sums, in place,
// the entries of each row: one a row, in id order.
func sumEntries(sums []foldRow) []foldRow {
	if len(sums) == 0 {
		return sums
	}
	slices.SortFunc(sums, func(a, b foldRow) int {
		if a.id != b.id {
			return cmp.Compare(a.id, b.id)
		}
		return cmp.Compare(a.token, b.token)
	})
	out := sums[:1]
	for _, r := range sums[1:] {
		if prev := &out[len(out)-1]; r.hitRef == prev.hitRef {
			prev.hits += r.hits
			prev.last = max(prev.last, r.last)
		} else {
			out = append(out, r)
		}
	}
	return out
}

// unmatchedHits are the entries of a fold that matched no row: hitUnmatched.
type unmatchedHits struct{ entries, hits, restored int64 }

// DroppedHitEntries returns how many batch entries the folds of this DB
// dropped because they matched no row of rule_hits (PostgreSQL's migration
// 0025, SQLite's 0029): rows deleted since (a project deleted), or ids a
// physical restore of the database took back; on SQLite, rows summed
// from the entries, one a row.
func (db *DB) DroppedHitEntries() int64 { return db.droppedHits.Load() }

// foldRow is a row's sum in a fold.
type foldRow struct {
	hitRef
	hits, last int64
}

// hitEntrySize is the size of a batch entry: four little-endian 64-bit
// integers, a row's id and token, its hits and last hit (migration 0025).
const hitEntrySize = 32

// hitBatch is a batch of hits by row, as rule_hit_batches holds it.
type hitBatch struct{ entries []byte }

func newHitBatch(n int) *hitBatch { return &hitBatch{make([]byte, 0, n*hitEntrySize)} }

func (b *hitBatch) add(ref hitRef, h redirects.RuleHits) {
	b.entries = binary.LittleEndian.AppendUint64(b.entries, uint64(ref.id))
	b.entries = binary.LittleEndian.AppendUint64(b.entries, uint64(ref.token))
	b.entries = binary.LittleEndian.AppendUint64(b.entries, uint64(h.Hits))
	b.entries = binary.LittleEndian.AppendUint64(b.entries, uint64(h.LastHit.UnixNano()))
}

func (b *hitBatch) len() int { return len(b.entries) / hitEntrySize }

// append runs hitAppend on q: sql.ErrNoRows if the generation is no
// longer gen, or the id sequence is below maxID, the largest id of the
// batch. With count false it does not count the entries pending and
// returns -1 (hitAppendBlind).
func (b *hitBatch) append(ctx context.Context, q querier, gen hitGen, maxID int64, count bool) (pending int64, err error) {
	query := hitAppendBlind
	if count {
		query = hitAppend
	}
	err = q.QueryRowContext(ctx, query, gen.token, b.len(), b.entries, gen.version, maxID).Scan(&pending)
	return pending, err
}

// hitArrayRows is how many rows one statement of a flush by key or a
// fold carries: many rows are a few round trips, none of which holds its
// row locks long.
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
