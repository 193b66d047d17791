package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"redirects"
)

// ruleColumns are the columns scanRule reads, in its order.
var ruleColumns = `id, project_id, revision, ` + RuleSelect("")

// ruleRow returns a RuleRow for the rows of a query of ruleColumns.
func ruleRow() *RuleRow {
	w := &RuleRow{}
	w.Dests(&w.Rule.ID, &w.Rule.ProjectID, &w.Rule.Revision)
	return w
}

// scanRule scans a row of ruleColumns into w and returns the rule.
func scanRule(s scanner, w *RuleRow) (redirects.Rule, error) {
	if err := s.Scan(w.dests...); err != nil {
		return redirects.Rule{}, err
	}
	w.Done()
	return w.Rule, nil
}

// FindRule returns one draft rule of a project.
func (db *DB) FindRule(ctx context.Context, projectID string, id int64) (*redirects.Rule, error) {
	tx, err := db.beginRead(ctx, "find rule")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := db.findProject(ctx, tx, projectID, ""); err != nil {
		return nil, err
	}
	return db.findRule(ctx, tx, projectID, id, false)
}

// findRule returns one draft rule; with forUpdate, its row stays locked to
// the end of the transaction, so a concurrent update waits and then sees
// the new revision.
func (db *DB) findRule(ctx context.Context, q querier, projectID string, id int64, forUpdate bool) (*redirects.Rule, error) {
	query := `SELECT ` + ruleColumns + ` FROM rules WHERE project_id = $1 AND id = $2`
	if forUpdate {
		query += db.d.Lock("FOR UPDATE")
	}
	r, err := scanRule(q.QueryRowContext(ctx, query, projectID, id), ruleRow())
	if errors.Is(err, sql.ErrNoRows) {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "rule %d not found in project %s", id, projectID)
	} else if err != nil {
		return nil, db.wrap("find rule", err)
	}
	return &r, nil
}

// Args collects the arguments of a statement and names their
// placeholders.
type Args []any

// Add appends v and returns its placeholder.
func (a *Args) Add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// filterSQL returns the WHERE clause (without WHERE) that selects the rules
// of a project that f selects, as f.Match defines, adding its arguments to
// args. The dialect writes the searches (Dialect.Prefix, Dialect.Contains).
func filterSQL(d Dialect, args *Args, projectID string, f *redirects.RuleFilter) string {
	var b strings.Builder
	b.WriteString(`project_id = ` + args.Add(projectID))
	if f.MatchType != nil {
		b.WriteString(` AND match_type = ` + args.Add(f.MatchType.String()))
	}
	if f.StatusCode != 0 {
		b.WriteString(` AND status_code = ` + args.Add(f.StatusCode))
	}
	if f.Host != nil {
		b.WriteString(` AND host = ` + args.Add(*f.Host))
	}
	if p, ok := f.Prefix(); ok {
		if f.MatchType == nil {
			// Every match type, named, so the UNIQUE index (project_id,
			// match_type, source, host) serves the source range once per
			// type.
			b.WriteString(` AND match_type IN ('exact', 'starts_with', 'pattern', 'regex')`)
		}
		if p != "" {
			b.WriteString(` AND ` + d.Prefix("source", args, p))
		}
	} else if f.Query != "" {
		b.WriteString(` AND ` + d.Contains([]string{"source", "destination"}, args, f.Query))
	}
	return b.String()
}

// orderSQL returns the cursor condition (with its leading AND, or "") and
// the ORDER BY clause of a page, adding the cursor's arguments to args.
func orderSQL(args *Args, o redirects.RuleSort, c *redirects.RuleCursor) (string, string) {
	dir, cmp := "", ">"
	if o.Desc() {
		dir, cmp = " DESC", "<"
	}
	cond := ""
	switch o.Key() {
	case "source":
		if c != nil {
			cond = ` AND (source, id) ` + cmp + ` (` + args.Add(c.Source) + `, ` + args.Add(c.ID) + `)`
		}
		return cond, `source` + dir + `, id` + dir
	case "priority":
		if c != nil {
			cond = ` AND (priority, id) ` + cmp + ` (` + args.Add(c.Priority) + `, ` + args.Add(c.ID) + `)`
		}
		return cond, `priority` + dir + `, id` + dir
	}
	if c != nil {
		cond = ` AND id ` + cmp + ` ` + args.Add(c.ID)
	}
	return cond, `id` + dir
}

// FindRulePage returns one page of a project's draft rules and the number
// of rules the filter selects, read in one snapshot.
func (db *DB) FindRulePage(ctx context.Context, projectID string, q redirects.RulePageQuery) (*redirects.RulePage, error) {
	const op = "find rule page"
	cursor, err := q.Normalize()
	if err != nil {
		return nil, err
	}
	tx, err := db.beginRead(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := db.findProject(ctx, tx, projectID, ""); err != nil {
		return nil, err
	}
	// One row more than the page shows says whether a next page exists.
	want := q.Limit + 1
	page := &redirects.RulePage{}
	_, prefix := q.Filter.Prefix()
	if q.Sort.Key() == "source" && q.Filter.MatchType == nil && (q.Filter.Query == "" || prefix) {
		// The source order is read from the UNIQUE index (project_id,
		// match_type, source, host), once per match type, and merged: an
		// index of its own made large imports slower.
		lists := make([][]redirects.Rule, len(redirects.MatchTypes))
		for i, m := range redirects.MatchTypes {
			f := q.Filter
			f.MatchType = &m
			if lists[i], err = db.readPage(ctx, tx, projectID, &f, q.Sort, cursor, want); err != nil {
				return nil, err
			}
		}
		page.Rules = redirects.MergeRules(q.Sort, want, lists...)
	} else if page.Rules, err = db.readPage(ctx, tx, projectID, &q.Filter, q.Sort, cursor, want); err != nil {
		return nil, err
	}
	if len(page.Rules) > q.Limit {
		page.Rules = page.Rules[:q.Limit]
		page.Next = redirects.CursorAfter(q.Sort, &page.Rules[q.Limit-1])
	}
	var args Args
	count := `SELECT count(*) FROM rules WHERE ` + filterSQL(db.d, &args, projectID, &q.Filter)
	if q.Filter == (redirects.RuleFilter{}) {
		// The triggers of the rules table keep this count.
		count = `SELECT COALESCE((SELECT n FROM rule_counts WHERE project_id = $1), 0)`
	}
	if err := tx.QueryRowContext(ctx, count, args...).Scan(&page.Total); err != nil {
		return nil, db.wrap("count rules", err)
	}
	return page, nil
}

// readPage returns the first want rules that f selects after the cursor
// in order o.
func (db *DB) readPage(ctx context.Context, tx *Tx, projectID string, f *redirects.RuleFilter, o redirects.RuleSort, cursor *redirects.RuleCursor, want int) ([]redirects.Rule, error) {
	const op = "find rule page"
	var args Args
	where := filterSQL(db.d, &args, projectID, f)
	cond, order := orderSQL(&args, o, cursor)
	rows, err := tx.QueryContext(ctx, `SELECT `+ruleColumns+` FROM rules WHERE `+where+cond+` ORDER BY `+order+` LIMIT `+args.Add(want), args...)
	if err != nil {
		return nil, db.wrap(op, err)
	}
	defer rows.Close()
	out := make([]redirects.Rule, 0, want)
	w := ruleRow()
	for rows.Next() {
		r, err := scanRule(rows, w)
		if err != nil {
			return nil, db.wrap(op, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap(op, err)
	}
	return out, nil
}

// UpdateRule changes a draft rule in place and adds one to its revision.
// The rule's row is locked from the read to commit, so of two updates made
// against one revision the second sees the first's and fails; the draft's
// advisory lock keeps an AddRule or ImportRules from taking the new source
// between the check for a clash and the update.
func (db *DB) UpdateRule(ctx context.Context, projectID string, id int64, u redirects.RuleUpdate) (*redirects.Rule, error) {
	const op = "update rule"
	if u.Empty() {
		return nil, redirects.Errorf(redirects.EINVALID, "the update of rule %d changes no field", id)
	}
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	p, err := db.findProject(ctx, tx, projectID, "FOR KEY SHARE")
	if err != nil {
		return nil, err
	}
	if err := db.d.LockDraft(ctx, tx, projectID); err != nil {
		return nil, db.wrap(op, err)
	}
	r, err := db.findRule(ctx, tx, projectID, id, true)
	if err != nil {
		return nil, err
	}
	if err := redirects.CheckRevision(id, r.Revision, u.Revision); err != nil {
		return nil, err
	}
	before := redirects.RuleAuditFields(r)
	wasType := r.MatchType
	u.Apply(r)
	if err := r.Validate(); err != nil {
		return nil, err
	}
	if other, err := db.keyClash(ctx, tx, p.Settings, r, id); err != nil {
		return nil, db.wrap(op, err)
	} else if other != 0 {
		return nil, db.keyConflict(ctx, tx, r, p.Settings, other)
	}
	var existing int64
	err = tx.QueryRowContext(ctx, `SELECT id FROM rules WHERE project_id = $1 AND match_type = $2 AND source = $3 AND host = $4 AND id <> $5`,
		projectID, r.MatchType.String(), r.Source, r.Host, id).Scan(&existing)
	if err == nil {
		return nil, redirects.Errorf(redirects.ECONFLICT, "%s (rule %d)", redirects.ConflictMessage(r), existing)
	} else if !errors.Is(err, sql.ErrNoRows) {
		return nil, db.wrap(op, err)
	}
	if r.MatchType == redirects.Regex && wasType != redirects.Regex {
		if err := db.checkRegexLimit(ctx, tx, projectID, 1, 0); err != nil {
			return nil, err
		}
	}
	n := len(RuleEditable)
	if _, err := tx.ExecContext(ctx, `UPDATE rules SET `+RuleEditable.Set(1)+`, match_key = $`+strconv.Itoa(n+1)+`, revision = revision + 1
		WHERE id = $`+strconv.Itoa(n+2), append(ruleEditableValues(nil, r), matchKey(p.Settings, r), id)...); err != nil {
		return nil, db.wrap(op, err)
	}
	b, a := redirects.AuditDiff(before, redirects.RuleAuditFields(r))
	if err := db.audit(ctx, tx, redirects.AuditRuleUpdate, p.OrgID, p.ID, "rule", strconv.FormatInt(id, 10), b, a); err != nil {
		return nil, db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return nil, db.wrap(op, err)
	}
	r.Revision++
	return r, nil
}

// DeleteRuleRevision deletes a draft rule if it is still at revision (0:
// whatever its revision).
func (db *DB) DeleteRuleRevision(ctx context.Context, projectID string, id, revision int64) error {
	const op = "delete rule"
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	// The draft's lock, as every writer of the draft takes it: a delete
	// cannot come between a rewrite's read of the draft and its write.
	p, err := db.findProject(ctx, tx, projectID, "FOR KEY SHARE")
	if err != nil {
		return err
	}
	if err := db.d.LockDraft(ctx, tx, projectID); err != nil {
		return db.wrap(op, err)
	}
	r, err := db.findRule(ctx, tx, projectID, id, true)
	if err != nil {
		return err
	}
	if err := redirects.CheckRevision(id, r.Revision, revision); err != nil {
		return err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM rules WHERE id = $1`, id)
	if err != nil {
		return db.wrap(op, err)
	}
	if err := db.addRuleCount(ctx, tx, projectID, -affected(res)); err != nil {
		return db.wrap(op, err)
	}
	if err := db.audit(ctx, tx, redirects.AuditRuleDelete, p.OrgID, p.ID, "rule", strconv.FormatInt(id, 10), redirects.RuleAuditFields(r), nil); err != nil {
		return db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap(op, err)
	}
	return nil
}

// DeleteRules deletes every draft rule of a project that f selects, in one
// transaction.
func (db *DB) DeleteRules(ctx context.Context, projectID string, f redirects.RuleFilter) (int, error) {
	const op = "delete rules"
	if err := f.Validate(); err != nil {
		return 0, err
	}
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	p, err := db.findProject(ctx, tx, projectID, "FOR KEY SHARE")
	if err != nil {
		return 0, err
	}
	if err := db.d.LockDraft(ctx, tx, projectID); err != nil {
		return 0, db.wrap(op, err)
	}
	var args Args
	where := filterSQL(db.d, &args, projectID, &f)
	tag, err := tx.ExecContext(ctx, `DELETE FROM rules WHERE `+where, args...)
	if err != nil {
		return 0, db.wrap(op, err)
	}
	if err := db.addRuleCount(ctx, tx, projectID, -affected(tag)); err != nil {
		return 0, db.wrap(op, err)
	}
	if err := db.audit(ctx, tx, redirects.AuditRuleDeleteMany, p.OrgID, p.ID, "project", p.ID, redirects.RuleFilterAuditFields(&f, int(affected(tag))), nil); err != nil {
		return 0, db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, db.wrap(op, err)
	}
	return int(affected(tag)), nil
}
