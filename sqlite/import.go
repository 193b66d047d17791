package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"redirects"
)

// ImportRules stores rules as draft rules of projectID, all or nothing, and
// returns how many it stored. With replace, they replace every draft rule of
// the project (an empty slice then clears the draft). The rules' ID,
// ProjectID and CreatedAt are ignored and rules itself is left unchanged:
// every stored rule gets the clock's time and a new ID. The new IDs are
// above every ID handed out before and follow the order of (match type,
// source), not the order of rules (see InsertRules); IDs never decide
// which rule a lookup picks, since two prefix sources of one path that
// have the same length are the same source.
//
// On failure, nothing changes and the error's message lists every problem,
// one per line, each line "rule N: ..." with N the rule's 1-based position
// in rules, so a caller can translate positions to line numbers. A rule is
// invalid, or repeats the match type and source of an earlier rule of the
// batch (naming it), or clashes with a stored rule (without replace). The
// code is ECONFLICT when every problem is a clash, EINVALID otherwise.
//
// A million rules take a few seconds, most of it SQLite's own work, so the
// steps that need no database overlap with it: rules are validated in the
// background while they are inserted, and the transaction is rolled back
// if validation finds a problem.
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
// one IMMEDIATE transaction (see redirects.ImportInTx), and reports what it
// did; a dry run rolls its transaction back. Errors are as ImportRules'.
func (db *DB) Import(ctx context.Context, projectID string, rules []redirects.Rule, opts redirects.ImportOptions) (*redirects.ImportReport, error) {
	// The batch is validated beside the database work, on the CPUs the
	// inserting goroutine leaves free. A problem stops the insert early.
	batch, err := redirects.NewImportBatch(rules)
	if err != nil {
		return nil, err
	}

	tx, err := db.beginWrite(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	rep, err := redirects.ImportInTx(ctx, importTx{db, tx}, projectID, batch, opts, db.now())
	if err != nil {
		return nil, err
	}
	if opts.DryRun {
		return rep, nil
	}
	if err := tx.Commit(); err != nil {
		return nil, wrap("import rules", err)
	}
	return rep, nil
}

// importTx is the redirects.ImportTx of a write transaction, whose
// IMMEDIATE write lock keeps out every other writer.
type importTx struct {
	db *DB
	tx *sql.Tx
}

func (t importTx) RecordAudit(ctx context.Context, e *redirects.AuditEntry) error {
	return t.db.recordAudit(ctx, t.tx, e)
}

// UpdateRules updates each rule by its ID with one prepared statement.
func (t importTx) UpdateRules(ctx context.Context, projectID string, updates []redirects.StoredMatch) error {
	stmt, err := t.tx.PrepareContext(ctx, `UPDATE rules SET destination = ?, status_code = ?, priority = ?, revision = revision + 1
		WHERE id = ? AND project_id = ?`)
	if err != nil {
		return wrap("import rules", err)
	}
	defer stmt.Close()
	for _, u := range updates {
		if _, err := stmt.ExecContext(ctx, u.Destination, u.StatusCode, u.Priority, u.ID, projectID); err != nil {
			return wrap("import rules", err)
		}
	}
	return nil
}

func (t importTx) FindProject(ctx context.Context, id string) (*redirects.Project, error) {
	return findProject(ctx, t.tx, id)
}

func (t importTx) DeleteRules(ctx context.Context, projectID string) error {
	if _, err := t.tx.ExecContext(ctx, `DELETE FROM rules WHERE project_id = ?`, projectID); err != nil {
		return wrap("import rules", err)
	}
	return nil
}

// FindStored returns the project's stored rules whose key the batch has,
// and how many rules the project stores. It walks the stored keys and the
// batch's side by side, both in index order: SQLite's BINARY collation is
// Go's string order, and 'exact' < 'starts_with' as Exact < StartsWith, so
// the index orders as redirects.CompareImportKeys.
func (t importTx) FindStored(ctx context.Context, projectID string, keys []redirects.ImportKey) ([]redirects.StoredMatch, int, error) {
	// The UNIQUE index on (project_id, match_type, source) gives this
	// query's order, so SQLite sorts nothing.
	rows, err := t.tx.QueryContext(ctx, `SELECT id, match_type, source, destination, status_code, priority FROM rules WHERE project_id = ? ORDER BY match_type, source`, projectID)
	if err != nil {
		return nil, 0, wrap("import rules", err)
	}
	defer rows.Close()
	var (
		matches []redirects.StoredMatch
		stored  int
		k       int
		m       redirects.StoredMatch
		mt      string
		key     redirects.ImportKey
		dest    sql.RawBytes
	)
	for rows.Next() {
		if err := rows.Scan(&m.ID, &mt, &key.Source, &dest, &m.StatusCode, &m.Priority); err != nil {
			return nil, 0, wrap("import rules", err)
		}
		stored++
		if key.Match, err = redirects.ParseMatchType(mt); err != nil {
			return nil, 0, fmt.Errorf("sqlite: import rules: stored rule %d: %w", m.ID, err)
		}
		key.Pos = -1 // before every batch key with the same rule
		for k < len(keys) && redirects.CompareImportKeys(keys[k], key) < 0 {
			k++
		}
		if k < len(keys) && keys[k].SameRule(key) {
			m.Pos = keys[k].Pos
			m.Destination = string(dest)
			matches = append(matches, m)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, wrap("import rules", err)
	}
	return matches, stored, nil
}

// insertBatch is how many rules one INSERT statement stores. Fewer
// statements mean fewer trips through database/sql and the driver, which
// cost about as much as SQLite's own work per row; 64 rows of 8 values stay
// far below SQLite's limit of 32766 bound values.
const insertBatch = 64

// errStopped ends an insert that validation has already doomed.
var errStopped = errors.New("stopped: the batch has invalid rules")

// InsertRules inserts the rules of the batch that keys name, in index
// order (keys, a subsequence of batch.Keys), with
// explicit IDs that follow the same order, starting above every ID handed
// out before. Both B-trees of the rules table, the table by ID and the
// UNIQUE index by key, then grow at one place instead of at random ones,
// which makes a large import about twice as fast as inserting in the order
// of rules. It stops with errStopped once the batch's validation has failed.
func (t importTx) InsertRules(ctx context.Context, projectID string, batch *redirects.ImportBatch, keys []redirects.ImportKey, now time.Time) error {
	tx, rules := t.tx, batch.Rules
	if len(keys) == 0 {
		return nil
	}
	// sqlite_sequence holds the largest ID the AUTOINCREMENT table ever
	// had, deleted rules included; explicit IDs above it keep IDs unique
	// for ever, and SQLite moves the sequence past them.
	var next int64
	if err := tx.QueryRowContext(ctx, `SELECT MAX(
		COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'rules'), 0),
		COALESCE((SELECT MAX(id) FROM rules), 0)) + 1`).Scan(&next); err != nil {
		return wrap("import rules", err)
	}

	const row = "(?, ?, ?, ?, ?, ?, ?, ?)"
	prepare := func(n int) (*sql.Stmt, error) {
		return tx.PrepareContext(ctx, `INSERT INTO rules (id, project_id, source, destination, status_code, match_type, priority, created_at) VALUES `+
			strings.Repeat(row+", ", n-1)+row)
	}
	full, err := prepare(min(insertBatch, len(keys)))
	if err != nil {
		return wrap("import rules", err)
	}
	defer full.Close()
	args := make([]any, 0, 8*insertBatch)
	for start := 0; start < len(keys); start += insertBatch {
		if batch.Failed() {
			return errStopped
		}
		end := min(start+insertBatch, len(keys))
		args = args[:0]
		for k := start; k < end; k++ {
			r := &rules[keys[k].Pos]
			args = append(args, next+int64(k), projectID, r.Source, r.Destination, r.StatusCode, r.MatchType.String(), r.Priority, now.UnixNano())
		}
		stmt := full
		if end-start < insertBatch {
			if stmt, err = prepare(end - start); err != nil {
				return wrap("import rules", err)
			}
			defer stmt.Close()
		}
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return wrap("import rules", err)
		}
	}
	return nil
}
