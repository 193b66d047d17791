package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"redirects"
)

// ruleColumns are the columns scanRule reads, in its order.
const ruleColumns = `id, project_id, source, destination, status_code, match_type, priority, created_at, revision`

func scanRule(s scanner, r *redirects.Rule) error {
	var (
		match   string
		created int64
	)
	if err := s.Scan(&r.ID, &r.ProjectID, &r.Source, &r.Destination, &r.StatusCode, &match, &r.Priority, &created, &r.Revision); err != nil {
		return err
	}
	r.MatchType = redirects.Exact
	if match == "starts_with" {
		r.MatchType = redirects.StartsWith
	}
	r.CreatedAt = fromNanos(created)
	return nil
}

// FindRule returns one draft rule of a project.
func (db *DB) FindRule(ctx context.Context, projectID string, id int64) (*redirects.Rule, error) {
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := findProject(ctx, tx, projectID); err != nil {
		return nil, err
	}
	return findRule(ctx, tx, projectID, id)
}

func findRule(ctx context.Context, tx querier, projectID string, id int64) (*redirects.Rule, error) {
	var r redirects.Rule
	err := scanRule(tx.QueryRowContext(ctx, `SELECT `+ruleColumns+` FROM rules WHERE project_id = ? AND id = ?`, projectID, id), &r)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "rule %d not found in project %s", id, projectID)
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: find rule %d: %w", id, err)
	}
	return &r, nil
}

// filterSQL returns the WHERE clause (without WHERE) and its arguments that
// select the rules of a project that f selects, as f.Match defines.
//
// A substring search is instr() on both columns, a scan of the project's
// rows (SQLite has no index for substrings), which a page ends as soon as it
// has its rules; a prefix search is a range of the source index.
func filterSQL(projectID string, f *redirects.RuleFilter) (string, []any) {
	var b strings.Builder
	args := []any{projectID}
	b.WriteString(`project_id = ?`)
	if f.MatchType != nil {
		b.WriteString(` AND match_type = ?`)
		args = append(args, f.MatchType.String())
	}
	if f.StatusCode != 0 {
		b.WriteString(` AND status_code = ?`)
		args = append(args, f.StatusCode)
	}
	if p, ok := f.Prefix(); ok {
		if f.MatchType == nil {
			// Both match types, named, so the UNIQUE index (project_id,
			// match_type, source) serves the source range once per type.
			b.WriteString(` AND match_type IN ('exact', 'starts_with')`)
		}
		if p != "" {
			b.WriteString(` AND source >= ?`)
			args = append(args, p)
			if upper, ok := prefixEnd(p); ok {
				b.WriteString(` AND source < ?`)
				args = append(args, upper)
			}
		}
	} else if f.Query != "" {
		b.WriteString(` AND (instr(source, ?) > 0 OR instr(destination, ?) > 0)`)
		args = append(args, f.Query, f.Query)
	}
	return b.String(), args
}

// prefixEnd returns the least string that is greater than every string
// starting with p, in byte order, and false when there is none (p is all
// 0xff bytes). SQLite compares TEXT of the BINARY collation as bytes, so the
// range [p, prefixEnd(p)) is exactly the strings that start with p.
func prefixEnd(p string) (string, bool) {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1]), true
		}
	}
	return "", false
}

// FindRulePage returns one page of a project's draft rules and the number
// of rules the filter selects, read in one snapshot.
func (db *DB) FindRulePage(ctx context.Context, projectID string, q redirects.RulePageQuery) (*redirects.RulePage, error) {
	cursor, err := q.Normalize()
	if err != nil {
		return nil, err
	}
	tx, err := db.beginRead(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := findProject(ctx, tx, projectID); err != nil {
		return nil, err
	}
	from := `rules`
	_, prefix := q.Filter.Prefix()
	substring := q.Filter.Query != "" && !prefix
	if substring {
		// A substring search reads every row of the project. Through the
		// index of the order it would visit the table in that order, one
		// random seek per row; through (project_id, id) it reads the table
		// in storage order, several times faster, and sorts the matches.
		from = `rules INDEXED BY rules_project_id`
	}
	// One row more than the page shows says whether a next page exists.
	want := q.Limit + 1
	page := &redirects.RulePage{}
	if q.Sort.Key() == "source" && q.Filter.MatchType == nil && !substring {
		// The source order is read from the UNIQUE index (project_id,
		// match_type, source), once per match type, and merged: an index of
		// its own made large imports much slower.
		var lists [2][]redirects.Rule
		for i, m := range []redirects.MatchType{redirects.Exact, redirects.StartsWith} {
			f := q.Filter
			f.MatchType = &m
			if lists[i], err = readPage(ctx, tx, from, projectID, &f, q.Sort, cursor, want); err != nil {
				return nil, err
			}
		}
		page.Rules = redirects.MergeRules(q.Sort, want, lists[0], lists[1])
	} else if page.Rules, err = readPage(ctx, tx, from, projectID, &q.Filter, q.Sort, cursor, want); err != nil {
		return nil, err
	}
	if len(page.Rules) > q.Limit {
		page.Rules = page.Rules[:q.Limit]
		page.Next = redirects.CursorAfter(q.Sort, &page.Rules[q.Limit-1])
	}
	where, args := filterSQL(projectID, &q.Filter)
	count := `SELECT count(*) FROM ` + from + ` WHERE ` + where
	if q.Filter == (redirects.RuleFilter{}) {
		// The triggers of the rules table keep this count.
		count, args = `SELECT COALESCE((SELECT n FROM rule_counts WHERE project_id = ?), 0)`, []any{projectID}
	}
	if err := tx.QueryRowContext(ctx, count, args...).Scan(&page.Total); err != nil {
		return nil, fmt.Errorf("sqlite: count rules: %w", err)
	}
	return page, nil
}

// readPage returns the first want rules that f selects after the cursor
// in order o.
func readPage(ctx context.Context, tx querier, from, projectID string, f *redirects.RuleFilter, o redirects.RuleSort, cursor *redirects.RuleCursor, want int) ([]redirects.Rule, error) {
	where, args := filterSQL(projectID, f)
	dir, cmp := "", ">"
	if o.Desc() {
		dir, cmp = " DESC", "<"
	}
	out := make([]redirects.Rule, 0, want)
	read := func(cond string, condArgs []any, order string) error {
		rows, err := tx.QueryContext(ctx, `SELECT `+ruleColumns+` FROM `+from+` WHERE `+where+cond+` ORDER BY `+order+` LIMIT ?`,
			append(append(slices.Clip(args), condArgs...), want-len(out))...)
		if err != nil {
			return fmt.Errorf("sqlite: find rule page: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var r redirects.Rule
			if err := scanRule(rows, &r); err != nil {
				return fmt.Errorf("sqlite: find rule page: %w", err)
			}
			out = append(out, r)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("sqlite: find rule page: %w", err)
		}
		return nil
	}
	key := o.Key()
	var err error
	switch {
	case key == "id":
		cond, condArgs := "", []any(nil)
		if cursor != nil {
			cond, condArgs = ` AND id `+cmp+` ?`, []any{cursor.ID}
		}
		err = read(cond, condArgs, `id`+dir)
	case cursor == nil:
		err = read("", nil, key+dir+`, id`+dir)
	default:
		// After a cursor, first the rest of the rules that share its key,
		// then the rules past it. SQLite seeks an index on a row value's
		// first column only, so (key, id) > (?, ?) would walk every rule
		// that shares the cursor's key (half of them share the default
		// priority); two seeks do not.
		var last any = cursor.Source
		if key == "priority" {
			last = cursor.Priority
		}
		if err = read(` AND `+key+` = ? AND id `+cmp+` ?`, []any{last, cursor.ID}, `id`+dir); err == nil && len(out) < want {
			err = read(` AND `+key+` `+cmp+` ?`, []any{last}, key+dir+`, id`+dir)
		}
	}
	return out, err
}

// UpdateRule changes a draft rule in place and adds one to its revision.
func (db *DB) UpdateRule(ctx context.Context, projectID string, id int64, u redirects.RuleUpdate) (*redirects.Rule, error) {
	if u.Empty() {
		return nil, redirects.Errorf(redirects.EINVALID, "the update of rule %d changes no field", id)
	}
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	p, err := findProject(ctx, tx, projectID)
	if err != nil {
		return nil, err
	}
	r, err := findRule(ctx, tx, projectID, id)
	if err != nil {
		return nil, err
	}
	if err := redirects.CheckRevision(id, r.Revision, u.Revision); err != nil {
		return nil, err
	}
	before := redirects.RuleAuditFields(r)
	u.Apply(r)
	if err := r.Validate(); err != nil {
		return nil, err
	}
	// The write lock is held, so the check stands until the update.
	var existing int64
	err = tx.QueryRowContext(ctx, `SELECT id FROM rules WHERE project_id = ? AND match_type = ? AND source = ? AND id <> ?`,
		projectID, r.MatchType.String(), r.Source, id).Scan(&existing)
	if err == nil {
		return nil, redirects.Errorf(redirects.ECONFLICT, "%s (rule %d)", redirects.ConflictMessage(r), existing)
	} else if !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("sqlite: update rule: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE rules SET source = ?, destination = ?, status_code = ?, match_type = ?, priority = ?, revision = revision + 1
		WHERE id = ?`, r.Source, r.Destination, r.StatusCode, r.MatchType.String(), r.Priority, id); err != nil {
		return nil, fmt.Errorf("sqlite: update rule: %w", err)
	}
	b, a := redirects.AuditDiff(before, redirects.RuleAuditFields(r))
	if err := db.audit(ctx, tx, redirects.AuditRuleUpdate, p.OrgID, p.ID, "rule", strconv.FormatInt(id, 10), b, a); err != nil {
		return nil, fmt.Errorf("sqlite: update rule: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("sqlite: update rule: %w", err)
	}
	r.Revision++
	return r, nil
}

// DeleteRuleRevision deletes a draft rule if it is still at revision (0:
// whatever its revision).
func (db *DB) DeleteRuleRevision(ctx context.Context, projectID string, id, revision int64) error {
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	p, err := findProject(ctx, tx, projectID)
	if err != nil {
		return err
	}
	r, err := findRule(ctx, tx, projectID, id)
	if err != nil {
		return err
	}
	if err := redirects.CheckRevision(id, r.Revision, revision); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM rules WHERE id = ?`, id); err != nil {
		return fmt.Errorf("sqlite: delete rule: %w", err)
	}
	if err := db.audit(ctx, tx, redirects.AuditRuleDelete, p.OrgID, p.ID, "rule", strconv.FormatInt(id, 10), redirects.RuleAuditFields(r), nil); err != nil {
		return fmt.Errorf("sqlite: delete rule: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlite: delete rule: %w", err)
	}
	return nil
}

// DeleteRules deletes every draft rule of a project that f selects, in one
// transaction.
func (db *DB) DeleteRules(ctx context.Context, projectID string, f redirects.RuleFilter) (int, error) {
	if err := f.Validate(); err != nil {
		return 0, err
	}
	tx, err := db.beginWrite(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	p, err := findProject(ctx, tx, projectID)
	if err != nil {
		return 0, err
	}
	where, args := filterSQL(projectID, &f)
	res, err := tx.ExecContext(ctx, `DELETE FROM rules WHERE `+where, args...)
	if err != nil {
		return 0, fmt.Errorf("sqlite: delete rules: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("sqlite: delete rules: %w", err)
	}
	if err := db.audit(ctx, tx, redirects.AuditRuleDeleteMany, p.OrgID, p.ID, "project", p.ID, redirects.RuleFilterAuditFields(&f, int(n)), nil); err != nil {
		return 0, fmt.Errorf("sqlite: delete rules: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("sqlite: delete rules: %w", err)
	}
	return int(n), nil
}
