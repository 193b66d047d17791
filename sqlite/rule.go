package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"redirects"
)

// AddRule validates and stores a draft rule of r.ProjectID, setting its ID
// and CreatedAt. Rule edits record no event: drafts are invisible to edge
// nodes until deployed.
func (db *DB) AddRule(ctx context.Context, r *redirects.Rule) error {
	if err := r.Validate(); err != nil {
		return err
	}
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	if _, err := findProject(ctx, tx, r.ProjectID); err != nil {
		return err
	}
	// The write lock is held, so nothing can insert the same rule between
	// this check and the insert; the UNIQUE constraint still backs it.
	var existing int64
	err = tx.QueryRowContext(ctx, `SELECT id FROM rules WHERE project_id = ? AND match_type = ? AND source = ?`,
		r.ProjectID, r.MatchType.String(), r.Source).Scan(&existing)
	if err == nil {
		return redirects.Errorf(redirects.ECONFLICT, "%s (rule %d)", conflictMessage(r), existing)
	} else if !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("sqlite: add rule: %w", err)
	}
	now := db.now()
	res, err := tx.ExecContext(ctx, insertRuleSQL,
		r.ProjectID, r.Source, r.Destination, r.StatusCode, r.MatchType.String(), r.Priority, now.UnixNano())
	if err != nil {
		return fmt.Errorf("sqlite: add rule: %w", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return fmt.Errorf("sqlite: add rule: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: add rule: %w", err)
	}
	r.ID, r.CreatedAt = id, now
	return nil
}

const insertRuleSQL = `INSERT INTO rules (project_id, source, destination, status_code, match_type, priority, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`

// conflictMessage says that r's match type and source are taken by a
// stored rule.
func conflictMessage(r *redirects.Rule) string {
	return fmt.Sprintf("a%s %s rule for source %q already exists in project %s",
		article(r.MatchType), r.MatchType, r.Source, r.ProjectID)
}

func article(m redirects.MatchType) string {
	if m == redirects.Exact {
		return "n"
	}
	return ""
}

// ruleKey is what must be unique among the rules of a project.
type ruleKey struct {
	matchType redirects.MatchType
	source    string
}

// importProblem is one thing wrong with the rule at a 1-based position.
type importProblem struct {
	pos      int
	msg      string
	conflict bool
}

// ImportRules stores rules as draft rules of projectID, all or nothing, and
// returns how many it stored. With replace, they replace every draft rule of
// the project (an empty slice then clears the draft). The rules' ID,
// ProjectID and CreatedAt are ignored: each rule gets a new ID, in slice
// order, and the clock's time; rules itself is left unchanged.
//
// On failure, nothing changes and the error's message lists every problem,
// one per line, each line "rule N: ..." with N the rule's 1-based position
// in rules, so a caller can translate positions to line numbers. The code is
// ECONFLICT when every problem is a clash with a stored rule, EINVALID when
// any rule is invalid or repeats an earlier one of the same import.
func (db *DB) ImportRules(ctx context.Context, projectID string, rules []redirects.Rule, replace bool) (int, error) {
	// Validation needs no database, so it runs before the write lock is
	// taken: for a million rules it is a good part of the checking.
	var problems []importProblem
	seen := make(map[ruleKey]int, len(rules))
	for i := range rules {
		r := &rules[i]
		if err := r.Validate(); err != nil {
			problems = append(problems, importProblem{pos: i + 1, msg: redirects.ErrorMessage(err)})
			continue
		}
		k := ruleKey{r.MatchType, r.Source}
		if j, ok := seen[k]; ok {
			problems = append(problems, importProblem{pos: i + 1, msg: fmt.Sprintf(
				"a%s %s rule for source %q is already rule %d of this import", article(r.MatchType), r.MatchType, r.Source, j+1)})
			continue
		}
		seen[k] = i
	}

	tx, err := db.beginWrite(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()

	if _, err := findProject(ctx, tx, projectID); err != nil {
		return 0, err
	}
	if !replace {
		conflicts, err := importConflicts(ctx, tx, projectID, rules, seen)
		if err != nil {
			return 0, err
		}
		problems = append(problems, conflicts...)
	}
	if len(problems) > 0 {
		return 0, importError(problems)
	}

	if replace {
		if _, err := tx.ExecContext(ctx, `DELETE FROM rules WHERE project_id = ?`, projectID); err != nil {
			return 0, fmt.Errorf("sqlite: import rules: %w", err)
		}
	}
	if err := insertRules(ctx, tx, projectID, rules, db.now().UnixNano()); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("sqlite: import rules: %w", err)
	}
	return len(rules), nil
}

// importConflicts returns a problem for every rule of the batch (indexed in
// seen) that a stored rule of the project already claims.
func importConflicts(ctx context.Context, tx *sql.Tx, projectID string, rules []redirects.Rule, seen map[ruleKey]int) ([]importProblem, error) {
	// The UNIQUE index on (project_id, match_type, source) covers this
	// query, so it reads the index alone, never the table.
	rows, err := tx.QueryContext(ctx, `SELECT id, match_type, source FROM rules WHERE project_id = ?`, projectID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: import rules: %w", err)
	}
	defer rows.Close()
	var out []importProblem
	for rows.Next() {
		var (
			id        int64
			matchType string
			source    string
		)
		if err := rows.Scan(&id, &matchType, &source); err != nil {
			return nil, fmt.Errorf("sqlite: import rules: %w", err)
		}
		m, err := redirects.ParseMatchType(matchType)
		if err != nil {
			return nil, fmt.Errorf("sqlite: import rules: stored rule %d: %w", id, err)
		}
		if i, ok := seen[ruleKey{m, source}]; ok {
			r := rules[i]
			r.ProjectID = projectID
			// "rule ID", not "rule": callers rewrite "rule N" as a position
			// in the batch, and this N is a stored rule's ID.
			out = append(out, importProblem{pos: i + 1, msg: fmt.Sprintf("%s (rule ID %d)", conflictMessage(&r), id), conflict: true})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: import rules: %w", err)
	}
	return out, nil
}

// importError returns the one error that reports every problem of an
// import, in the order of the rules.
func importError(problems []importProblem) error {
	sort.SliceStable(problems, func(i, j int) bool { return problems[i].pos < problems[j].pos })
	code := redirects.ECONFLICT
	var b strings.Builder
	for i, p := range problems {
		if !p.conflict {
			code = redirects.EINVALID
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "rule %d: %s", p.pos, p.msg)
	}
	return &redirects.Error{Code: code, Message: b.String()}
}

// insertRules inserts rules with one prepared statement, in slice order so
// their IDs follow it.
func insertRules(ctx context.Context, tx *sql.Tx, projectID string, rules []redirects.Rule, now int64) error {
	stmt, err := tx.PrepareContext(ctx, insertRuleSQL)
	if err != nil {
		return fmt.Errorf("sqlite: import rules: %w", err)
	}
	defer stmt.Close()
	for i := range rules {
		r := &rules[i]
		if _, err := stmt.ExecContext(ctx, projectID, r.Source, r.Destination, r.StatusCode, r.MatchType.String(), r.Priority, now); err != nil {
			return fmt.Errorf("sqlite: import rules: rule %d: %w", i+1, err)
		}
	}
	return nil
}

// FindRules returns the draft rules of a project in the order of
// redirects.SortRules.
func (db *DB) FindRules(ctx context.Context, projectID string) ([]redirects.Rule, error) {
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := findProject(ctx, tx, projectID); err != nil {
		return nil, err
	}
	return findRules(ctx, tx, projectID)
}

// findRules returns the draft rules of a project in the order of
// redirects.SortRules.
func findRules(ctx context.Context, tx querier, projectID string) ([]redirects.Rule, error) {
	// Reading in index order hands SortRules exact rules already sorted.
	rows, err := tx.QueryContext(ctx, `SELECT id, source, destination, status_code, match_type, priority, created_at
		FROM rules WHERE project_id = ? ORDER BY match_type, source`, projectID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: find rules: %w", err)
	}
	defer rows.Close()
	var out []redirects.Rule
	for rows.Next() {
		var (
			r         = redirects.Rule{ProjectID: projectID}
			matchType string
			created   int64
		)
		if err := rows.Scan(&r.ID, &r.Source, &r.Destination, &r.StatusCode, &matchType, &r.Priority, &created); err != nil {
			return nil, fmt.Errorf("sqlite: find rules: %w", err)
		}
		if r.MatchType, err = redirects.ParseMatchType(matchType); err != nil {
			return nil, fmt.Errorf("sqlite: find rules: stored rule %d: %w", r.ID, err)
		}
		r.CreatedAt = fromNanos(created)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: find rules: %w", err)
	}
	redirects.SortRules(out)
	return out, nil
}

// DeleteRule deletes a draft rule of a project.
func (db *DB) DeleteRule(ctx context.Context, projectID string, id int64) error {
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := findProject(ctx, tx, projectID); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM rules WHERE project_id = ? AND id = ?`, projectID, id)
	if err != nil {
		return fmt.Errorf("sqlite: delete rule: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("sqlite: delete rule: %w", err)
	} else if n == 0 {
		return redirects.Errorf(redirects.ENOTFOUND, "rule %d not found in project %s", id, projectID)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: delete rule: %w", err)
	}
	return nil
}
