package postgres

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"redirects"
)

// ImportRules stores rules as draft rules of projectID, all or nothing, and
// returns how many it stored. With replace, they replace every draft rule of
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
// batch (naming it), or clashes with a stored rule (without replace). The
// code is ECONFLICT when every problem is a clash, EINVALID otherwise.
//
// Repeats within the batch are found in Go on the sorted batch; clashes by
// looking each of the project's stored rules up in it. The
// rows go in with COPY, in index order, so the UNIQUE index grows at its
// end. Validation runs in the background meanwhile, and a problem stops the
// COPY and rolls the transaction back.
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
	// COPY early.
	batch, err := redirects.NewImportBatch(rules)
	if err != nil {
		return nil, err
	}

	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	rep, err := redirects.ImportInTx(ctx, importTx{db, tx}, projectID, batch, opts, db.now())
	if err != nil {
		return nil, err
	}
	if opts.DryRun {
		return rep, nil
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, wrap(op, err)
	}
	return rep, nil
}

// importTx is the redirects.ImportTx of a write transaction.
type importTx struct {
	db *DB
	tx pgx.Tx
}

func (t importTx) RecordAudit(ctx context.Context, e *redirects.AuditEntry) error {
	return t.db.recordAudit(ctx, t.tx, e)
}

// updateBatch is how many rules one UPDATE statement of UpdateRules
// changes, its values sent as arrays.
const updateBatch = 10_000

// UpdateRules updates the rules by ID, updateBatch at a time, each batch
// one UPDATE joined to the arrays of its values.
func (t importTx) UpdateRules(ctx context.Context, projectID string, updates []redirects.StoredMatch) error {
	for start := 0; start < len(updates); start += updateBatch {
		part := updates[start:min(start+updateBatch, len(updates))]
		ids := make([]int64, len(part))
		dests := make([]string, len(part))
		codes := make([]int32, len(part))
		prios := make([]int32, len(part))
		for i, u := range part {
			ids[i], dests[i], codes[i], prios[i] = u.ID, u.Destination, int32(u.StatusCode), int32(u.Priority)
		}
		if _, err := t.tx.Exec(ctx, `UPDATE rules AS r SET destination = u.d, status_code = u.s, priority = u.p, revision = r.revision + 1
			FROM unnest($1::bigint[], $2::text[], $3::int[], $4::int[]) AS u(id, d, s, p)
			WHERE r.id = u.id AND r.project_id = $5`, ids, dests, codes, prios, projectID); err != nil {
			return wrap("import rules", err)
		}
	}
	return nil
}

// FindProject locks the project's row FOR KEY SHARE, which stands in for
// the foreign key that rules lacks (see the schema): the project cannot be
// deleted until this commits. It then takes the draft lock, which keeps
// another import or AddRule from storing a rule between the clash check and
// the COPY.
func (t importTx) FindProject(ctx context.Context, id string) (*redirects.Project, error) {
	p, err := findProject(ctx, t.tx, id, "FOR KEY SHARE")
	if err != nil {
		return nil, err
	}
	if err := lockDraft(ctx, t.tx, id); err != nil {
		return nil, wrap("import rules", err)
	}
	return p, nil
}

func (t importTx) DeleteRules(ctx context.Context, projectID string) error {
	if _, err := t.tx.Exec(ctx, `DELETE FROM rules WHERE project_id = $1`, projectID); err != nil {
		return wrap("import rules", err)
	}
	return nil
}

// FindStored returns the project's stored rules whose key the batch has,
// and how many rules the project stores. It looks each stored rule up in
// the sorted batch, so the stored rules may come in any order (see
// findRules for why they are not sorted by the database).
func (t importTx) FindStored(ctx context.Context, projectID string, keys []redirects.ImportKey) ([]redirects.StoredMatch, int, error) {
	var n int
	if len(keys) == 0 {
		if err := t.tx.QueryRow(ctx, `SELECT count(*) FROM rules WHERE project_id = $1`, projectID).Scan(&n); err != nil {
			return nil, 0, wrap("import rules", err)
		}
		return nil, n, nil
	}
	rows, err := t.tx.Query(ctx, `SELECT id, match_type = 'starts_with', source, destination, status_code, priority FROM rules WHERE project_id = $1`, projectID)
	if err != nil {
		return nil, 0, wrap("import rules", err)
	}
	defer rows.Close()
	var (
		matches []redirects.StoredMatch
		m       redirects.StoredMatch
		prefix  bool
		dest    []byte
		stored  = redirects.ImportKey{Pos: -1} // before every batch key with the same rule
	)
	for rows.Next() {
		if err := rows.Scan(&m.ID, &prefix, &stored.Source, &dest, &m.StatusCode, &m.Priority); err != nil {
			return nil, 0, wrap("import rules", err)
		}
		n++
		stored.Match = redirects.Exact
		if prefix {
			stored.Match = redirects.StartsWith
		}
		k, _ := slices.BinarySearchFunc(keys, stored, redirects.CompareImportKeys)
		if k < len(keys) && keys[k].SameRule(stored) {
			m.Pos = keys[k].Pos
			m.Destination = string(dest)
			matches = append(matches, m)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, wrap("import rules", err)
	}
	return matches, n, nil
}

// errStopped ends a COPY that validation has already doomed.
var errStopped = errors.New("stopped: the batch has invalid rules")

// InsertRules stores the rules of the batch that keys name with COPY, in
// index order (keys, a subsequence of batch.Keys: the "C" collation is Go's string order, and 'exact' <
// 'starts_with' as Exact < StartsWith), so the rules table's UNIQUE index
// grows at one end instead of at random places; the ID sequence numbers
// them in the same order. It stops with errStopped once the batch's
// validation has failed.
func (t importTx) InsertRules(ctx context.Context, projectID string, batch *redirects.ImportBatch, keys []redirects.ImportKey, now time.Time) error {
	if len(keys) == 0 {
		return nil
	}
	src := &ruleSource{projectID: projectID, batch: batch, keys: keys, now: now.UnixNano(), k: -1}
	if _, err := t.tx.CopyFrom(ctx, pgx.Identifier{"rules"},
		[]string{"project_id", "match_type", "source", "destination", "status_code", "priority", "created_at"}, src); err != nil {
		return wrap("import rules", err)
	}
	return nil
}

// ruleSource is the pgx.CopyFromSource of InsertRules. Values reuses one
// slice: pgx encodes a row before it asks for the next.
type ruleSource struct {
	projectID string
	batch     *redirects.ImportBatch
	keys      []redirects.ImportKey
	now       int64
	k         int
	row       [7]any
	err       error
}

func (s *ruleSource) Next() bool {
	s.k++
	if s.k%1024 == 0 && s.batch.Failed() {
		s.err = errStopped
		return false
	}
	return s.k < len(s.keys)
}

func (s *ruleSource) Values() ([]any, error) {
	r := &s.batch.Rules[s.keys[s.k].Pos]
	s.row = [7]any{s.projectID, r.MatchType.String(), r.Source, r.Destination, r.StatusCode, r.Priority, s.now}
	return s.row[:], nil
}

func (s *ruleSource) Err() error { return s.err }
