package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strconv"

	"redirects"
	"redirects/engine"
)

// AddRule validates and stores a draft rule of r.ProjectID, setting its ID
// and CreatedAt. Rule edits record no event: drafts are invisible to edge
// nodes until deployed.
func (db *DB) AddRule(ctx context.Context, r *redirects.Rule) error {
	const op = "add rule"
	if err := r.Validate(); err != nil {
		return err
	}
	tx, err := db.beginWrite(ctx, op)
	if err != nil {
		return err
	}
	defer tx.Rollback()

	// FOR KEY SHARE stands in for the foreign key that rules lacks (see
	// the schema): the project cannot be deleted until this commits.
	p, err := db.findProject(ctx, tx, r.ProjectID, "FOR KEY SHARE")
	if err != nil {
		return err
	}
	if err := db.d.LockDraft(ctx, tx, r.ProjectID); err != nil {
		return db.wrap(op, err)
	}
	if other, err := db.keyClash(ctx, tx, p.Settings, r, 0); err != nil {
		return db.wrap(op, err)
	} else if other != 0 {
		return db.keyConflict(ctx, tx, r, p.Settings, other)
	}
	if r.MatchType == redirects.Regex {
		if err := db.checkRegexLimit(ctx, tx, r.ProjectID, 1, 0); err != nil {
			return err
		}
	}
	now := db.now()
	// ON CONFLICT DO NOTHING turns a clash into "no row" instead of an
	// error that would abort the transaction; the lock makes the check
	// below see the rule that clashed.
	var id int64
	err = tx.QueryRowContext(ctx, `INSERT INTO rules (project_id, match_key, `+RuleColumns.List("")+`)
		VALUES (`+placeholders(1, len(RuleColumns)+2)+`)
		ON CONFLICT (project_id, match_type, source, host) DO NOTHING
		RETURNING id`,
		RuleValues([]any{r.ProjectID, matchKey(p.Settings, r)}, r, now.UnixNano())...).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		var existing int64
		if err := tx.QueryRowContext(ctx, `SELECT id FROM rules WHERE project_id = $1 AND match_type = $2 AND source = $3 AND host = $4`,
			r.ProjectID, r.MatchType.String(), r.Source, r.Host).Scan(&existing); err != nil {
			return db.wrap(op, err)
		}
		return redirects.Errorf(redirects.ECONFLICT, "%s (rule %d)", redirects.ConflictMessage(r), existing)
	} else if err != nil {
		return db.wrap(op, err)
	}
	if err := db.addRuleCount(ctx, tx, r.ProjectID, 1); err != nil {
		return db.wrap(op, err)
	}
	if err := db.audit(ctx, tx, redirects.AuditRuleCreate, p.OrgID, p.ID, "rule", strconv.FormatInt(id, 10), nil, redirects.RuleAuditFields(r)); err != nil {
		return db.wrap(op, err)
	}
	if err := tx.Commit(); err != nil {
		return db.wrap(op, err)
	}
	r.ID, r.CreatedAt, r.Revision = id, now, 1
	return nil
}

// FindRules returns the draft rules of a project in the order of
// engine.SortRules.
func (db *DB) FindRules(ctx context.Context, projectID string) ([]redirects.Rule, error) {
	tx, err := db.beginRead(ctx, "find rules")
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	if _, err := db.findProject(ctx, tx, projectID, ""); err != nil {
		return nil, err
	}
	rules, err := db.findRules(ctx, tx, projectID)
	if err != nil {
		return nil, err
	}
	engine.SortRules(rules)
	return rules, nil
}

// findRules returns the draft rules of a project in the order they were
// stored, which a deploy sorts once into the order of engine.SortRules.
func (db *DB) findRules(ctx context.Context, q querier, projectID string) ([]redirects.Rule, error) {
	// No ORDER BY: the caller orders the rules in Go. Without statistics
	// (a million rules just imported, before autovacuum has analyzed
	// them) PostgreSQL would sort them on disk, several times slower. The
	// rows come back in the order they were stored, which for an import is
	// index order, so SortRules mostly finds them sorted. The match type
	// comes back as a small integer (RuleSelect).
	//
	// The slice is made once at the size rule_counts gives (read before
	// the rows: a transaction runs one query at a time): growing it row
	// by row copied a million rules about twenty times over.
	out := make([]redirects.Rule, 0, db.ruleCountHint(ctx, q, projectID))
	rows, err := q.QueryContext(ctx, `SELECT id, `+RuleSelect("")+` FROM rules WHERE project_id = $1`, projectID)
	if err != nil {
		return nil, db.wrap("find rules", err)
	}
	defer rows.Close()
	// Scanning into one RuleRow keeps a million-rule read from
	// allocating a Rule per row.
	w := &RuleRow{Rule: redirects.Rule{ProjectID: projectID}}
	dests := w.Dests(&w.Rule.ID)
	for rows.Next() {
		if err := rows.Scan(dests...); err != nil {
			return nil, db.wrap("find rules", err)
		}
		w.Done()
		out = append(out, w.Rule)
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap("find rules", err)
	}
	return out, nil
}

// DeleteRule deletes a draft rule of a project, whatever its revision.
func (db *DB) DeleteRule(ctx context.Context, projectID string, id int64) error {
	return db.DeleteRuleRevision(ctx, projectID, id, 0)
}

// checkRegexLimit refuses, with an EINVALID naming the limit, a write that
// would make a project hold more than redirects.MaxRegexRules regex rules:
// adding regex rules to it, of which leaving are among those it holds.
func (db *DB) checkRegexLimit(ctx context.Context, q querier, projectID string, adding, leaving int) error {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM rules WHERE project_id = $1 AND match_type = 'regex'`, projectID).Scan(&n); err != nil {
		return db.wrap("count regex rules", err)
	}
	return redirects.CheckRegexLimit(n - leaving + adding)
}

// keyConflict returns the ECONFLICT error of r clashing under settings s
// with the stored rule other, naming both.
func (db *DB) keyConflict(ctx context.Context, q querier, r *redirects.Rule, s redirects.Settings, other int64) error {
	var src string
	if err := q.QueryRowContext(ctx, `SELECT source FROM rules WHERE id = $1`, other).Scan(&src); err != nil {
		return db.wrap("find rule", err)
	}
	return redirects.Errorf(redirects.ECONFLICT, "%s", redirects.KeyConflictMessage(r, s, other, src))
}
