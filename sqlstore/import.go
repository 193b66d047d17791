package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"redirects"
)

// ImportRules stores rules as draft rules of projectID, all or nothing, and
// returns how many rules the batch holds (a rule the draft already has as
// it is stays as it is, and is counted). With replace, they replace every draft rule of
// the project (an empty slice then clears the draft). The rules' ID,
// ProjectID and CreatedAt are ignored and rules itself is left unchanged:
// every stored rule gets the clock's time and a new ID from the rules
// sequence. The new IDs follow the order of (match type, source), not the
// order of rules; IDs never decide which rule a lookup picks, since two
// prefix sources of one path that have the same length are the same source.
//
// On failure, nothing changes and the error's message lists every problem,
// one per line, each line "rule N: ..." with N the rule's 1-based position
// in rules, so a caller can translate positions to line numbers. A rule is
// invalid, or repeats the match type and source of an earlier rule of the
// batch (naming it), or clashes with a stored rule that it does not repeat
// as it is (without replace). The
// code is ECONFLICT when every problem is a clash, EINVALID otherwise.
//
// Repeats within the batch are found in Go on the sorted batch; clashes by
// looking each of the project's stored rules up in it. The rows go in in
// index order, so the UNIQUE index grows at its end (with COPY on
// PostgreSQL). Validation runs in the background meanwhile, and a problem
// stops the insert and rolls the transaction back.
func (db *DB) ImportRules(ctx context.Context, projectID string, rules []redirects.Rule, replace bool) (int, error) {
	opts := redirects.ImportOptions{Mode: redirects.ImportAppend}
	if replace {
		opts.Mode = redirects.ImportReplace
	}
	if _, err := db.Import(ctx, projectID, rules, opts); err != nil {
		return 0, err
	}
	return len(rules), nil
}

// Import stores rules in the draft as opts.Mode says, all or nothing, in
// one transaction (see redirects.ImportInTx), and reports what it did; a
// dry run rolls its transaction back. Errors are as ImportRules'.
func (db *DB) Import(ctx context.Context, projectID string, rules []redirects.Rule, opts redirects.ImportOptions) (*redirects.ImportReport, error) {
	const op = "import rules"
	// The batch is validated beside the database work. A problem stops the
	// insert early.
	batch, err := redirects.NewImportBatch(rules)
	if err != nil {
		return nil, err
	}

	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	itx := importTx{db: db, tx: tx}
	if !opts.DryRun {
		// An applied import keeps the draft as it was, for UndoImport,
		// read under the locks the import takes (FindProject takes them
		// again in ImportInTx).
		p, err := itx.FindProject(ctx, projectID)
		if err != nil {
			return nil, err
		}
		// The same scan finds the stored rules the batch matches, under
		// the project's settings (ImportInTx rekeys the batch again, to
		// the same keys).
		batch.Rekey(p.Settings)
		if itx.before, err = db.snapshotDraft(ctx, tx, projectID, batch.Keys); err != nil {
			return nil, db.wrap(op, err)
		}
	}
	rep, err := redirects.ImportInTx(ctx, itx, projectID, batch, opts, db.now())
	if err != nil {
		return nil, err
	}
	if opts.DryRun {
		return rep, nil
	}
	if err := tx.Commit(); err != nil {
		return nil, db.wrap(op, err)
	}
	return rep, nil
}

// importTx is the redirects.ImportTx of a write transaction, and its
// redirects.ImportUndoTx when before holds the draft as it was.
type importTx struct {
	db     *DB
	tx     *Tx
	before *draftSnapshot
}

// draftSnapshot is a draft as snapshotDraft encodes it, and the digest of
// the draft as the import's writes change it: the draft's digest before,
// less the rules an update changes and plus them changed, plus the rules
// inserted, read back from the transaction, so that the undo record needs
// no second scan of the whole draft. stale says that a write could not
// be followed so: the undo record then digests the whole draft again.
type draftSnapshot struct {
	data  []byte
	rules int
	after draftDigest
	stale bool
	// keys are the batch's keys the scan looked the stored rules up in,
	// and found the stored rules they match, by ID.
	keys  []redirects.ImportKey
	found map[int64]storedShare
	// matches, when matched is set, are the stored rules the keys match,
	// as FindStored returns them: the draft was read whole already
	// (DB.RewriteDraft).
	matches []redirects.StoredMatch
	matched bool
}

// storedShare is a stored rule an import batch matches: the position of
// the batch's rule, the stored rule's share of the digest (rowSum), and
// what an update of the rule keeps (its key, creation time and revision),
// from which its share after the update follows (updatedRow).
type storedShare struct {
	pos          int32
	hi, lo       uint64
	matchType    redirects.MatchType
	host, source string
	created, rev int64
}

// updatedRow returns the stored rule sh after Dialect.UpdateRules gave it
// u's answer: its key and creation time as stored, the answer's columns
// (RuleAnswer) from u, the revision one more.
func (sh *storedShare) updatedRow(id int64, u *redirects.Rule) *draftRow {
	return &draftRow{
		id:                 id,
		matchType:          sh.matchType,
		host:               []byte(sh.host),
		source:             []byte(sh.source),
		destination:        []byte(u.Destination),
		status:             int64(u.StatusCode),
		priority:           int64(u.Priority),
		created:            sh.created,
		revision:           sh.rev + 1,
		preservePath:       u.PreservePath,
		preserveQuery:      u.PreserveQuery,
		queryAfterFragment: u.QueryAfterFragment,
		mergeQuery:         u.MergeQuery,
		exceptHosts:        []byte(JoinHosts(u.ExceptHosts)),
	}
}

// digestIDs adds to (or with remove, takes from) s.after the stored rules
// of the project with the given IDs, and returns how many it found.
func (t importTx) digestIDs(ctx context.Context, projectID string, ids []int64, remove bool) (int, error) {
	const chunk = 500
	n := 0
	var args []any
	for start := 0; start < len(ids); start += chunk {
		end := min(start+chunk, len(ids))
		args = args[:0]
		var in strings.Builder
		for k, id := range ids[start:end] {
			if k > 0 {
				in.WriteString(", ")
			}
			in.WriteString("$" + strconv.Itoa(k+2))
			args = append(args, id)
		}
		err := t.db.scanDraftWhere(ctx, t.tx, projectID, "id IN ("+in.String()+")", args, func(r *draftRow) {
			n++
			if remove {
				t.before.after.remove(r)
			} else {
				t.before.after.add(r)
			}
		})
		if err != nil {
			return 0, err
		}
	}
	return n, nil
}

// SaveImportUndo stores the undo record of the import (see
// DB.saveImportUndo).
func (t importTx) SaveImportUndo(ctx context.Context, p *redirects.Project, mode redirects.ImportMode) (int64, error) {
	if t.before == nil {
		return 0, nil
	}
	var after []byte
	if !t.before.stale {
		after = t.before.after.sum(p.Settings)
	}
	id, err := t.db.saveImportUndo(ctx, t.tx, p, mode, t.before.data, t.before.rules, after)
	if err != nil {
		return 0, t.db.wrap("import rules", err)
	}
	return id, nil
}

func (t importTx) RecordAudit(ctx context.Context, e *redirects.AuditEntry) error {
	return t.db.recordAudit(ctx, t.tx, e)
}

// UpdateRules gives rules, by ID, the destination, status code and
// priority of an upsert import (see Dialect.UpdateRules).
func (t importTx) UpdateRules(ctx context.Context, projectID string, updates []redirects.StoredMatch) error {
	var ids []int64
	if t.before != nil && len(updates) > sparseStored {
		// Read back by ID, so many rules cost more than the one scan of
		// the whole draft the undo record then makes.
		t.before.stale = true
	}
	if t.before != nil && !t.before.stale {
		ids = make([]int64, len(updates))
		shared := true
		for k := range updates {
			ids[k] = updates[k].ID
			_, ok := t.before.found[ids[k]]
			shared = shared && ok
		}
		switch {
		case shared:
			// Each rule's share as the snapshot read it goes, and its
			// share as the update leaves it comes: the rows need not be
			// read back.
			for k, id := range ids {
				sh := t.before.found[id]
				t.before.after.removeSum(sh.hi, sh.lo)
				t.before.after.add(sh.updatedRow(id, &updates[k].Rule))
			}
			ids = nil
		default:
			if n, err := t.digestIDs(ctx, projectID, ids, true); err != nil {
				return t.db.wrap("import rules", err)
			} else if n != len(ids) {
				t.before.stale = true
			}
		}
	}
	if err := t.db.d.UpdateRules(ctx, t.tx, projectID, updates); err != nil {
		return t.db.wrap("import rules", err)
	}
	if t.before != nil && !t.before.stale && ids != nil {
		if n, err := t.digestIDs(ctx, projectID, ids, false); err != nil {
			return t.db.wrap("import rules", err)
		} else if n != len(ids) {
			t.before.stale = true
		}
	}
	return nil
}

// FindProject locks the project's row FOR KEY SHARE, which stands in for
// the foreign key that rules lacks (see the schema): the project cannot be
// deleted until this commits. It then takes the draft lock, which keeps
// another import or AddRule from storing a rule between the clash check and
// the insert.
func (t importTx) FindProject(ctx context.Context, id string) (*redirects.Project, error) {
	db := t.db
	p, err := db.findProject(ctx, t.tx, id, "FOR KEY SHARE")
	if err != nil {
		return nil, err
	}
	if err := db.d.LockDraft(ctx, t.tx, id); err != nil {
		return nil, db.wrap("import rules", err)
	}
	return p, nil
}

func (t importTx) DeleteRules(ctx context.Context, projectID string) error {
	db := t.db
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM rules WHERE project_id = $1`, projectID); err != nil {
		return db.wrap("import rules", err)
	}
	if err := db.setRuleCount(ctx, t.tx, projectID, 0); err != nil {
		return db.wrap("import rules", err)
	}
	if t.before != nil {
		t.before.after = draftDigest{} // the digest of no rule
	}
	return nil
}

// FindStored returns the project's stored rules whose key the batch has,
// and how many rules the project stores. It looks each stored rule up in
// the sorted batch, so the stored rules may come in any order (see
// findRules for why they are not sorted by the database).
func (t importTx) FindStored(ctx context.Context, projectID string, keys []redirects.ImportKey) ([]redirects.StoredMatch, int, error) {
	db := t.db
	var n int
	if len(keys) == 0 {
		if err := t.tx.QueryRowContext(ctx, `SELECT count(*) FROM rules WHERE project_id = $1`, projectID).Scan(&n); err != nil {
			return nil, 0, db.wrap("import rules", err)
		}
		return nil, n, nil
	}
	// The key compared is match_key, the source as the project's settings
	// compare it; under the default settings it is NULL and the source is
	// the key (see ImportBatch.Rekey).
	if b := t.before; b != nil && b.matched && sameKeys(keys, b.keys) {
		return b.matches, b.rules, nil
	}
	if b := t.before; b != nil && b.found != nil && sameKeys(keys, b.keys) {
		ids := make([]int64, 0, len(b.found))
		pos := make(map[int64]int32, len(b.found))
		for id, sh := range b.found {
			ids = append(ids, id)
			pos[id] = sh.pos
		}
		slices.Sort(ids)
		matches, err := t.readMatches(ctx, projectID, ids, pos)
		return matches, b.rules, err
	}
	if len(keys) <= sparseStored {
		return t.findStoredSparse(ctx, projectID, keys)
	}
	rows, err := t.tx.QueryContext(ctx, `SELECT id, COALESCE(match_key, source), `+RuleSelect("")+` FROM rules WHERE project_id = $1`, projectID)
	if err != nil {
		return nil, 0, db.wrap("import rules", err)
	}
	defer rows.Close()
	var (
		matches []redirects.StoredMatch
		w       RuleRow
		stored  = redirects.ImportKey{Pos: -1} // before every batch key with the same rule
	)
	dests := w.Dests(&w.Rule.ID, &stored.Source)
	for rows.Next() {
		if err := rows.Scan(dests...); err != nil {
			return nil, 0, db.wrap("import rules", err)
		}
		n++
		w.Done()
		stored.Match, stored.Host = w.Rule.MatchType, w.Rule.Host
		k, _ := slices.BinarySearchFunc(keys, stored, redirects.CompareImportKeys)
		if k < len(keys) && keys[k].SameRule(stored) {
			matches = append(matches, redirects.StoredMatch{ID: w.Rule.ID, Rule: w.Rule, Pos: keys[k].Pos})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, db.wrap("import rules", err)
	}
	return matches, n, nil
}

// sparseStored is the largest batch whose stored rules FindStored reads in
// two steps (findStoredSparse), the most stored matches an applied
// import's snapshot keeps (more are found by reading every stored rule
// whole), and the most updated rules whose digest is read back by ID
// (more, and the undo record digests the whole draft again).
var sparseStored = 200_000

// SetSparseStored sets the batch size past which an import takes the paths
// of large batches (every stored rule read whole, the undo record's digest
// taken again from the whole draft) to n, and returns the function that
// puts it back: the store suites run their import tests with 0 so that
// small batches prove those paths too. Not for use beside other imports.
func SetSparseStored(n int) (restore func()) {
	old := sparseStored
	sparseStored = n
	return func() { sparseStored = old }
}

// findStoredSparse is FindStored for a batch of up to sparseStored keys,
// such as the rules lint --fix chains rewrites in a large draft: it reads
// only the key of every stored rule (ID, match type, key and host, without
// the destination and the other columns a match needs), looks each up in
// the batch as FindStored does, then reads the whole rules of the IDs
// that matched. The result is FindStored's.
func (t importTx) findStoredSparse(ctx context.Context, projectID string, keys []redirects.ImportKey) ([]redirects.StoredMatch, int, error) {
	db := t.db
	rows, err := t.tx.QueryContext(ctx, `SELECT id, `+matchTypeCase("match_type")+`, COALESCE(match_key, source), host FROM rules WHERE project_id = $1`, projectID)
	if err != nil {
		return nil, 0, db.wrap("import rules", err)
	}
	defer rows.Close()
	var (
		n         int
		id, mt    int64
		key, host string // the driver's strings, not copies
		pos       = map[int64]int32{}
		ids       []int64
	)
	for rows.Next() {
		if err := rows.Scan(&id, &mt, &key, &host); err != nil {
			return nil, 0, db.wrap("import rules", err)
		}
		n++
		stored := redirects.ImportKey{Match: ScanMatchType(mt), Source: key, Host: host, Pos: -1}
		k, _ := slices.BinarySearchFunc(keys, stored, redirects.CompareImportKeys)
		if k < len(keys) && keys[k].SameRule(stored) {
			pos[id] = keys[k].Pos
			ids = append(ids, id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, db.wrap("import rules", err)
	}
	rows.Close()
	matches, err := t.readMatches(ctx, projectID, ids, pos)
	return matches, n, err
}

// sameKeys reports whether a and b are the same keys, in the same order.
func sameKeys(a, b []redirects.ImportKey) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0] || slices.Equal(a, b))
}

// readMatches reads the stored rules with the given IDs, each paired with
// the batch position pos gives it.
func (t importTx) readMatches(ctx context.Context, projectID string, ids []int64, pos map[int64]int32) ([]redirects.StoredMatch, error) {
	db := t.db
	matches := make([]redirects.StoredMatch, 0, len(ids))
	const chunk = 500
	var (
		args []any
		w    RuleRow
	)
	dests := w.Dests(&w.Rule.ID)
	for start := 0; start < len(ids); start += chunk {
		end := min(start+chunk, len(ids))
		args = append(args[:0], projectID)
		var in strings.Builder
		for k, id := range ids[start:end] {
			if k > 0 {
				in.WriteString(", ")
			}
			in.WriteString("$" + strconv.Itoa(k+2))
			args = append(args, id)
		}
		rows, err := t.tx.QueryContext(ctx, `SELECT id, `+RuleSelect("")+` FROM rules WHERE project_id = $1 AND id IN (`+in.String()+`)`, args...)
		if err != nil {
			return nil, db.wrap("import rules", err)
		}
		for rows.Next() {
			if err := rows.Scan(dests...); err != nil {
				rows.Close()
				return nil, db.wrap("import rules", err)
			}
			w.Done()
			matches = append(matches, redirects.StoredMatch{ID: w.Rule.ID, Rule: w.Rule, Pos: pos[w.Rule.ID]})
		}
		if err := rows.Err(); err != nil {
			rows.Close()
			return nil, db.wrap("import rules", err)
		}
		rows.Close()
	}
	if len(matches) != len(ids) {
		return nil, db.wrap("import rules", fmt.Errorf("%d of %d stored rules read again", len(matches), len(ids)))
	}
	return matches, nil
}

// CountRegexRules returns how many regex rules the project stores.
func (t importTx) CountRegexRules(ctx context.Context, projectID string) (int, error) {
	var n int
	if err := t.tx.QueryRowContext(ctx, `SELECT count(*) FROM rules WHERE project_id = $1 AND match_type = 'regex'`, projectID).Scan(&n); err != nil {
		return 0, t.db.wrap("import rules", err)
	}
	return n, nil
}

// ErrStopped ends an insert that validation has already doomed.
var ErrStopped = errors.New("stopped: the batch has invalid rules")

// InsertRules stores the rules of the batch that keys name, in index order
// (keys, a subsequence of batch.Keys): the engines' collations of source
// and host are Go's string order, so within a match type the rules table's
// UNIQUE index grows at one end instead of at random places, and the IDs
// follow the same order (see Dialect.InsertRules). ('exact' <
// 'starts_with' as Exact < StartsWith; the pattern and regex rules, fewer,
// come between them in the index.) It stops with ErrStopped once the batch's
// validation has failed.
func (t importTx) InsertRules(ctx context.Context, projectID string, batch *redirects.ImportBatch, keys []redirects.ImportKey, now time.Time) error {
	if len(keys) == 0 {
		return nil
	}
	p, err := t.db.findProject(ctx, t.tx, projectID, "")
	if err != nil {
		return err
	}
	// Every rule inserted gets an ID above every ID handed out before, so
	// above the project's largest: those are the rules the digest adds.
	// Should the count say otherwise, the undo record digests the draft.
	var above int64
	if t.before != nil && !t.before.stale {
		if err := t.tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) FROM rules WHERE project_id = $1`, projectID).Scan(&above); err != nil {
			return t.db.wrap("import rules", err)
		}
	}
	rows := &NewRules{ProjectID: projectID, CreatedAt: now.UnixNano(), Settings: p.Settings, batch: batch, keys: keys}
	if err := t.db.d.InsertRules(ctx, t.tx, rows); err != nil {
		return t.db.wrap("import rules", err)
	}
	if err := t.db.addRuleCount(ctx, t.tx, projectID, int64(len(keys))); err != nil {
		return t.db.wrap("import rules", err)
	}
	if t.before != nil && !t.before.stale && rows.FirstID > above {
		// The dialect gave the rules the IDs FirstID, FirstID+1, ...: each
		// stored row is the rule as inserted, at revision 1, so the digest
		// adds them as they are, without reading them back.
		for k := range keys {
			t.before.after.add(rows.draftRow(k))
		}
	} else if t.before != nil && !t.before.stale {
		n := 0
		if err := t.db.scanDraftWhere(ctx, t.tx, projectID, "id > $2", []any{above}, func(r *draftRow) {
			n++
			t.before.after.add(r)
		}); err != nil {
			return t.db.wrap("import rules", err)
		}
		if n != len(keys) {
			t.before.stale = true
		}
	}
	return nil
}

// NewRules are the rules an import inserts, for Dialect.InsertRules: all of
// one project and one time.
type NewRules struct {
	ProjectID string
	// CreatedAt is the rules' time in unix nanoseconds.
	CreatedAt int64
	// Settings are the project's: MatchKey gives each rule's match_key.
	Settings redirects.Settings
	// FirstID, set by a dialect that chooses the IDs itself, is the ID of
	// the first rule; the others follow it in order. 0 when the engine
	// numbers them (the rules are then read back for the undo record's
	// digest).
	FirstID int64
	batch   *redirects.ImportBatch
	keys    []redirects.ImportKey
	row     draftRow
}

// draftRow returns the k-th rule as stored (see FirstID), in a row reused
// by the next call.
func (n *NewRules) draftRow(k int) *draftRow {
	r := n.Rule(k)
	n.row = draftRow{
		id:                 n.FirstID + int64(k),
		matchType:          r.MatchType,
		host:               append(n.row.host[:0], r.Host...),
		source:             append(n.row.source[:0], r.Source...),
		destination:        append(n.row.destination[:0], r.Destination...),
		status:             int64(r.StatusCode),
		priority:           int64(r.Priority),
		created:            n.CreatedAt,
		revision:           1,
		preservePath:       r.PreservePath,
		preserveQuery:      r.PreserveQuery,
		queryAfterFragment: r.QueryAfterFragment,
		mergeQuery:         r.MergeQuery,
		exceptHosts:        append(n.row.exceptHosts[:0], JoinHosts(r.ExceptHosts)...),
	}
	return &n.row
}

// Len returns the number of rules.
func (n *NewRules) Len() int { return len(n.keys) }

// Rule returns the k-th rule, 0 <= k < Len().
func (n *NewRules) Rule(k int) *redirects.Rule { return &n.batch.Rules[n.keys[k].Pos] }

// Keyed reports whether the rules have a match_key (MatchKey is not nil):
// under settings other than the default ones.
func (n *NewRules) Keyed() bool { return !n.Settings.IsDefault() }

// MatchKey returns the match_key column of the k-th rule: nil under the
// default settings, the source's key otherwise.
func (n *NewRules) MatchKey(k int) any { return matchKey(n.Settings, n.Rule(k)) }

// Stopped reports whether the batch's validation, which runs meanwhile,
// has failed: the insert should then stop with ErrStopped.
func (n *NewRules) Stopped() bool { return n.batch.Failed() }
