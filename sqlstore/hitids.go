package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"sync"

	"redirects"
)

// hitKey names a rule_hits row.
type hitKey struct {
	project, source, host string
	matchType             redirects.MatchType
}

// maxHitIDs bounds the ids a DB remembers: past it, the next flush starts
// over with an empty memory (its rows go through the upsert once more).
const maxHitIDs = 1 << 19

// hitIDs remembers the rule_hits rows this DB flushed: the id of each,
// where the dialect has them (Dialect.HitIDs), or else the id and token
// of each (refs; addHitsByBatch). An id is never reused
// (AUTOINCREMENT), so a remembered id names its row or, once the row is
// gone (its project deleted, by this process or another), no row: an
// update by it then changes nothing, and the row goes through the upsert.
// mu is held for a whole flush, from before its transaction begins to
// after it ends, and the ids of the rows a flush inserts are remembered
// only once it commits: a rolled-back insert's id may be given again.
type hitIDs struct {
	mu sync.Mutex
	// ids holds the id of each row flushed, by its key's 128-bit hash
	// (idKey), not by the key: a lookup by the key hashed its strings and
	// then compared them with the remembered copies, scattered over the
	// heap, which cost a quarter of a flush of 100,000 known rows. Two
	// keys share a 128-bit hash with a probability of about n^2/2^129, 1
	// in 10^27 at maxHitIDs keys; the map holds no pointer for the garbage
	// collector to scan.
	ids map[hitHash]int64
	// refs holds the id and token of each row flushed, by its key's
	// hash, where the dialect has no ids of its own to remember
	// (PostgreSQL: addHitsByBatch). Both were read while
	// rule_hit_generation's row was gen (hasGen; SQLite's generation is
	// gen.token).
	refs   map[hitHash]hitRef
	gen    hitGen
	hasGen bool
	// uncounted and uncountedAppends are the entries and batches
	// appended since an append last counted the entries pending
	// (FoldCheckEntries).
	uncounted, uncountedAppends int
	// buf is the last batch's bytes, reused by the next.
	buf  []byte
	seed maphash.Seed
	// seed2 is idKey's second seed, independent of seed.
	seed2 maphash.Seed
}

// hitHash is a key's hash in hitIDs.ids: two 64-bit hashes of independent
// seeds.
type hitHash [2]uint64

// idKey returns the hash of k that hitIDs.ids holds.
func (m *hitIDs) idKey(k hitKey) hitHash {
	return hitHash{maphash.Comparable(m.seed, k), maphash.Comparable(m.seed2, k)}
}

// forget empties the memory. The caller holds mu.
func (m *hitIDs) forget() { m.ids, m.refs, m.hasGen = nil, nil, false }

// hitByID is SQLite's flush of a row it has flushed before: three
// integers bound, an integer key looked up, and a row of three integers
// rewritten (rule_hit_counts, migration 0023), not the row of the key.
const hitByID = `UPDATE rule_hit_counts SET hits = hits + ?, last_hit = max(last_hit, ?) WHERE id = ?`

// hitFind, hitInsert and hitCountInsert are the flush of a row whose id
// this DB does not know: the key's row is looked up, then its counts are
// updated by its id, or the key and its counts are inserted. An upsert
// would do the key's part in one statement, but to return the id it needs
// RETURNING, which SQLite runs as a trigger, and a statement with a
// trigger writes a statement journal (a page per statement, spilt to a
// file after 64 KiB): four times the CPU per row. The writing transaction
// holds SQLite's write lock, so no row can appear between the two.
const (
	hitFind        = `SELECT id FROM rule_hits WHERE project_id = ? AND match_type = ? AND source = ? AND host = ?`
	hitInsert      = `INSERT INTO rule_hits (project_id, match_type, source, host) VALUES (?, ?, ?, ?)`
	hitCountInsert = `INSERT INTO rule_hit_counts (id, hits, last_hit) VALUES (?, ?, ?)`
)

// addHitsByID adds hits (of known projects, in any order, a rule maybe
// named more than once) in tx, a row at a time on the driver's
// connection: database/sql's locks and argument conversion cost as much
// per row as the row. Rows with a remembered id are updated by it; the
// others are looked up by their key, updated or inserted, and their ids
// returned in fresh, to remember once tx commits. A rule named again
// finds the row its first mention inserted. The caller holds
// db.hitIDs.mu.
func (db *DB) addHitsByID(ctx context.Context, tx *Tx, hits []redirects.RuleHits) (fresh map[hitHash]int64, err error) {
	known := db.hitIDs.ids
	fresh = map[hitHash]int64{}
	err = tx.Raw(func(dc any) error {
		conn, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("add hits: driver connection %T cannot prepare", dc)
		}
		// Each run goes without ctx's cancellation, which ctx.Err() checks
		// between the runs instead: modernc.org/sqlite watches a
		// cancellable context with a goroutine per statement.
		quiet := context.WithoutCancel(ctx)
		var upd, find, ins, insCount driver.Stmt
		defer func() {
			for _, s := range []driver.Stmt{upd, find, ins, insCount} {
				if s != nil {
					s.Close()
				}
			}
		}()
		args := make([]driver.NamedValue, 4)
		for i := range args {
			args[i].Ordinal = i + 1
		}
		for i, h := range hits {
			if i%256 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			k := db.hitIDs.idKey(hitKey{h.ProjectID, h.Source, h.Host, h.MatchType})
			if id, ok := known[k]; ok {
				if upd == nil {
					if upd, err = conn.PrepareContext(quiet, hitByID); err != nil {
						return err
					}
				}
				args[0].Value, args[1].Value, args[2].Value = h.Hits, h.LastHit.UnixNano(), id
				n, err := execStmt(quiet, upd, args[:3])
				if err != nil {
					return err
				}
				if n > 0 {
					continue
				}
				delete(known, k)
			}
			if find == nil {
				if find, err = conn.PrepareContext(quiet, hitFind); err != nil {
					return err
				}
			}
			args[0].Value, args[1].Value, args[2].Value, args[3].Value = h.ProjectID, h.MatchType.String(), h.Source, h.Host
			id, found, err := queryID(quiet, find, args[:4])
			if err != nil {
				return err
			}
			if found {
				if upd == nil {
					if upd, err = conn.PrepareContext(quiet, hitByID); err != nil {
						return err
					}
				}
				args[0].Value, args[1].Value, args[2].Value = h.Hits, h.LastHit.UnixNano(), id
				n, err := execStmt(quiet, upd, args[:3])
				if err != nil {
					return err
				}
				if n > 0 {
					fresh[k] = id
					continue
				}
				// A key without counts: none is written so, but one
				// inserted by hand would otherwise take no hit.
			} else {
				if ins == nil {
					if ins, err = conn.PrepareContext(quiet, hitInsert); err != nil {
						return err
					}
				}
				if id, err = insertID(quiet, ins, args[:4]); err != nil {
					return err
				}
			}
			if insCount == nil {
				if insCount, err = conn.PrepareContext(quiet, hitCountInsert); err != nil {
					return err
				}
			}
			args[0].Value, args[1].Value, args[2].Value = id, h.Hits, h.LastHit.UnixNano()
			if _, err := execStmt(quiet, insCount, args[:3]); err != nil {
				return err
			}
			fresh[k] = id
		}
		return nil
	})
	return fresh, err
}

// rememberHitIDs keeps the ids of a committed flush. The caller holds
// db.hitIDs.mu.
func (db *DB) rememberHitIDs(fresh map[hitHash]int64) {
	if db.hitIDs.ids == nil || len(db.hitIDs.ids)+len(fresh) > maxHitIDs {
		db.hitIDs.ids = make(map[hitHash]int64, min(len(fresh), maxHitIDs))
	}
	for k, id := range fresh {
		if len(db.hitIDs.ids) >= maxHitIDs {
			break
		}
		db.hitIDs.ids[k] = id
	}
}

// execStmt runs s with args and returns how many rows it changed.
func execStmt(ctx context.Context, s driver.Stmt, args []driver.NamedValue) (int64, error) {
	x, ok := s.(driver.StmtExecContext)
	if !ok {
		return 0, fmt.Errorf("add hits: driver statement %T cannot run with a context", s)
	}
	res, err := x.ExecContext(ctx, args)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// insertID runs s, an INSERT of one row, with args and returns the row's
// id.
func insertID(ctx context.Context, s driver.Stmt, args []driver.NamedValue) (int64, error) {
	x, ok := s.(driver.StmtExecContext)
	if !ok {
		return 0, fmt.Errorf("add hits: driver statement %T cannot run with a context", s)
	}
	res, err := x.ExecContext(ctx, args)
	if err != nil {
		return 0, err
	}
	return res.LastInsertId()
}

// queryID runs s with args and returns the one integer of its first row,
// and false if it has none.
func queryID(ctx context.Context, s driver.Stmt, args []driver.NamedValue) (int64, bool, error) {
	q, ok := s.(driver.StmtQueryContext)
	if !ok {
		return 0, false, fmt.Errorf("add hits: driver statement %T cannot query with a context", s)
	}
	rows, err := q.QueryContext(ctx, args)
	if err != nil {
		return 0, false, err
	}
	defer rows.Close()
	dest := make([]driver.Value, 1)
	if err := rows.Next(dest); err != nil {
		if err == io.EOF {
			return 0, false, nil
		}
		return 0, false, err
	}
	id, ok := dest[0].(int64)
	if !ok {
		return 0, false, fmt.Errorf("add hits: a rule_hits id of type %T", dest[0])
	}
	return id, true, nil
}

// SQLite's batches (migration 0029): a flush whose every row this DB
// remembers appends one row to rule_hit_batches under the generation it
// read its ids in (hitAppendByID); a fold adds the pending batches to
// rule_hit_counts by id (foldHitsByID). Rewriting a row of rule_hit_counts
// per rule and flush cost 2.6-3.4 us of CPU a row (B-tree descents and
// page writes scattered over the table); an append costs the row's
// entry, and a fold updates each row once for every batch that names it.
const (
	hitAppendByID = `INSERT INTO rule_hit_batches (n, entries)
	SELECT $1, $2 FROM rule_hit_generation WHERE gen = $3`
	hitGenerationByID = `SELECT gen FROM rule_hit_generation`
	hitBatchesByID    = `SELECT seq, n, entries FROM rule_hit_batches ORDER BY seq`
	hitTakenByID      = `DELETE FROM rule_hit_batches WHERE seq <= $1`
	hitAnyBatchByID   = `SELECT EXISTS (SELECT 1 FROM rule_hit_batches)`
	hitPendingByID    = `SELECT n, entries FROM rule_hit_batches`
)

// appendHitsByID appends hits as a batch when this DB remembers the id of
// every row they name, read under the generation it holds: done is false,
// and nothing was written, when it does not, or when the generation
// changed since (a row went: every id is forgotten, and the flush goes by
// key). A million entries pending are folded. The caller holds
// db.hitIDs.mu.
func (db *DB) appendHitsByID(ctx context.Context, hits []redirects.RuleHits) (done bool, err error) {
	m := &db.hitIDs
	if !m.hasGen || len(m.ids) == 0 {
		return false, nil
	}
	// The batch's bytes reuse the last flush's (m.buf).
	b := &hitBatch{slices.Grow(m.buf[:0], len(hits)*hitEntrySize)}
	if cap(b.entries) <= maxHitBuf {
		defer func() { m.buf = b.entries[:0] }()
	}
	for _, h := range hits {
		id, ok := m.ids[m.idKey(hitKey{h.ProjectID, h.Source, h.Host, h.MatchType})]
		if !ok {
			return false, nil
		}
		b.add(hitRef{id: id}, h)
	}
	// Without ctx's cancellation: a statement that commits as ctx ends
	// would be reported failed (the driver returns ctx's error), and the
	// caller would flush the same hits again.
	res, err := db.write.ExecContext(context.WithoutCancel(ctx), hitAppendByID, b.len(), b.entries, m.gen.token)
	if err != nil {
		return true, db.wrap("add hits", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return true, db.wrap("add hits", err)
	} else if n == 0 {
		m.forget()
		return false, nil
	}
	m.uncounted += len(hits)
	m.uncountedAppends++
	if m.uncounted < FoldCheckEntries && m.uncountedAppends < foldCheckAppends {
		return true, nil
	}
	m.uncounted, m.uncountedAppends = 0, 0
	var pending int64
	if err := db.write.QueryRowContext(ctx, hitPending).Scan(&pending); err != nil {
		return true, nil // the batch is stored; the next count decides
	}
	if pending >= FoldEntries {
		// The batch is stored: a fold that fails leaves the batches for
		// the next.
		_ = db.FoldHits(ctx)
	}
	return true, nil
}

// foldHitsByID is FoldHits on SQLite: when a batch is pending, one write
// transaction folds them all (foldBatchesByID).
func (db *DB) foldHitsByID(ctx context.Context) error {
	var pending bool
	if err := db.read.QueryRowContext(ctx, hitAnyBatchByID).Scan(&pending); err != nil {
		return db.wrap("fold hits", err)
	}
	if !pending {
		return nil
	}
	tx, err := db.beginWrite(ctx, "fold hits")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := db.foldBatchesByID(ctx, tx); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return db.wrap("fold hits", err)
	}
	return nil
}

// foldBatchesByID adds the pending batches to rule_hit_counts in tx, a row
// at a time by id in id order, and deletes them. An entry whose row is
// gone (its project deleted, or the row by hand) is dropped: ids are never
// given twice, and the counts of a row deleted since its batch was
// appended are not written again before this runs (the flush by key folds
// first when the generation changed).
func (db *DB) foldBatchesByID(ctx context.Context, tx *Tx) error {
	rows, err := tx.QueryContext(ctx, hitBatchesByID)
	if err != nil {
		return db.wrap("fold hits", err)
	}
	var last int64
	sums, err := readBatches(rows, 0, func(n *int, entries *sql.RawBytes) error { return rows.Scan(&last, n, entries) })
	if err != nil {
		return db.wrap("fold hits", err)
	}
	if len(sums) == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, hitTakenByID, last); err != nil {
		return db.wrap("fold hits", err)
	}
	sums = sumEntries(sums)
	var dropped int64
	err = tx.Raw(func(dc any) error {
		conn, ok := dc.(driver.ConnPrepareContext)
		if !ok {
			return fmt.Errorf("fold hits: driver connection %T cannot prepare", dc)
		}
		quiet := context.WithoutCancel(ctx)
		upd, err := conn.PrepareContext(quiet, hitByID)
		if err != nil {
			return err
		}
		defer upd.Close()
		args := make([]driver.NamedValue, 3)
		for i := range args {
			args[i].Ordinal = i + 1
		}
		for i, r := range sums {
			if i%256 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			args[0].Value, args[1].Value, args[2].Value = r.hits, r.last, r.id
			n, err := execStmt(quiet, upd, args)
			if err != nil {
				return err
			}
			if n == 0 {
				dropped++
			}
		}
		return nil
	})
	if err != nil {
		return db.wrap("fold hits", err)
	}
	db.droppedHits.Add(dropped)
	return nil
}
