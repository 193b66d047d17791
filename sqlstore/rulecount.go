package sqlstore

import (
	"context"
	"database/sql"
)

// rule_counts holds the number of rules of each project, so that the total
// of an unfiltered rule page is one row. On PostgreSQL statement-level
// triggers keep it. On SQLite, whose triggers run once per row (about a
// sixth of a million-rule import's insert), every statement that inserts or
// deletes rules is followed, in the same transaction, by addRuleCount or
// setRuleCount with what it did: AddRule, DeleteRule, DeleteRules, an
// import's delete and insert, UndoImport. A deleted project's row goes with
// it (the trigger projects_count_delete, on both engines).

// addRuleCount adds delta to the number of rules of projectID, in tx,
// where the engine's triggers do not (Dialect.RuleCountTriggers).
func (db *DB) addRuleCount(ctx context.Context, tx *Tx, projectID string, delta int64) error {
	if db.d.RuleCountTriggers() || delta == 0 {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO rule_counts (project_id, n) VALUES ($1, $2)
		ON CONFLICT (project_id) DO UPDATE SET n = rule_counts.n + excluded.n`, projectID, delta)
	return err
}

// setRuleCount sets the number of rules of projectID to n, in tx, where the
// engine's triggers do not keep it: for a statement that deleted every rule
// of the project, and what was inserted after it.
func (db *DB) setRuleCount(ctx context.Context, tx *Tx, projectID string, n int64) error {
	if db.d.RuleCountTriggers() {
		return nil
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO rule_counts (project_id, n) VALUES ($1, $2)
		ON CONFLICT (project_id) DO UPDATE SET n = excluded.n`, projectID, n)
	return err
}

// maxCountHint bounds ruleCountHint, a capacity made before the rows are
// read, so that a count gone wrong never makes a huge allocation (past it,
// the slice grows as rows come).
const maxCountHint = 4 << 20

// ruleCountHint returns the number of rules rule_counts holds for the
// project, as the capacity of a slice about to take them: 0 when it cannot
// be read (a query error is then left to the query that reads the rules).
func (db *DB) ruleCountHint(ctx context.Context, q querier, projectID string) int {
	var n sql.NullInt64
	if err := q.QueryRowContext(ctx, `SELECT n FROM rule_counts WHERE project_id = $1`, projectID).Scan(&n); err != nil || !n.Valid || n.Int64 < 0 {
		return 0
	}
	return int(min(n.Int64, maxCountHint))
}
