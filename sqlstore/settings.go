package sqlstore

import (
	"context"

	"redirects"
)

// SetProjectSettings sets a project's matching settings for its draft
// (docs/contract.md#rule-options). Under the draft lock it reads the
// draft's sources, refuses settings under which two of them clash (listing
// up to 20 pairs), and rewrites every rule's match_key, the key its UNIQUE
// index holds unique: NULL under the default settings, where the source
// itself is the key.
func (db *DB) SetProjectSettings(ctx context.Context, id string, s redirects.Settings) (*redirects.Project, error) {
	return db.changeProject(ctx, "set project settings", id, func(tx *Tx, p *redirects.Project) (bool, error) {
		if p.Settings == s {
			return false, nil
		}
		if err := db.d.LockDraft(ctx, tx, id); err != nil {
			return false, err
		}
		rules, err := db.findRuleKeys(ctx, tx, id)
		if err != nil {
			return false, err
		}
		if clashes := redirects.Clashes(rules, s, 20); len(clashes) > 0 {
			return false, redirects.ClashError(s, clashes)
		}
		before := redirects.ProjectAuditFields(p)
		p.Settings = s
		if _, err := tx.ExecContext(ctx, `UPDATE projects SET case_sensitive = $1, trailing_slash = $2 WHERE id = $3`,
			s.CaseSensitive(), s.TrailingSlash(), id); err != nil {
			return false, err
		}
		// Every key NULL first: the new keys are unique among themselves,
		// but not necessarily with the old ones while they are rewritten.
		if _, err := tx.ExecContext(ctx, `UPDATE rules SET match_key = NULL WHERE project_id = $1 AND match_key IS NOT NULL`, id); err != nil {
			return false, err
		}
		if !s.IsDefault() && len(rules) > 0 {
			rows := make([][]any, len(rules))
			for i := range rules {
				rows[i] = []any{rules[i].ID, s.SourceKey(rules[i].MatchType, rules[i].Source)}
			}
			if err := bulk(ctx, tx, `UPDATE rules SET match_key = v.column2 FROM (VALUES %s) AS v WHERE rules.id = v.column1`,
				[]string{"BIGINT", "TEXT"}, rows); err != nil {
				return false, err
			}
		}
		b, a := redirects.AuditDiff(before, redirects.ProjectAuditFields(p))
		return true, db.audit(ctx, tx, redirects.AuditProjectUpdate, p.OrgID, p.ID, "project", p.ID, b, a)
	})
}

// findRuleKeys returns the ID, match type, host and source of every draft
// rule of a project, what a clash check needs.
func (db *DB) findRuleKeys(ctx context.Context, q querier, projectID string) ([]redirects.Rule, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, `+RuleColumns[:3].List("")+` FROM rules WHERE project_id = $1 ORDER BY id`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var (
		out []redirects.Rule
		r   redirects.Rule
		mt  string
	)
	for rows.Next() {
		if err := rows.Scan(&r.ID, &mt, &r.Host, &r.Source); err != nil {
			return nil, err
		}
		if r.MatchType, err = redirects.ParseMatchType(mt); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// matchKey returns the value of a rule's match_key column under settings s:
// nil under the default settings, the source's key otherwise
// (Settings.SourceKey).
func matchKey(s redirects.Settings, r *redirects.Rule) any {
	if s.IsDefault() {
		return nil
	}
	return s.SourceKey(r.MatchType, r.Source)
}

// keyClash returns the ID of a draft rule other than id (0: none) of the
// match type, host and key of r under settings s, or 0. It is the clash
// check of AddRule and UpdateRule under settings that are not the default;
// under the default ones the UNIQUE index on the source decides.
func (db *DB) keyClash(ctx context.Context, q querier, s redirects.Settings, r *redirects.Rule, id int64) (int64, error) {
	if s.IsDefault() {
		return 0, nil
	}
	var existing int64
	rows, err := q.QueryContext(ctx, `SELECT id FROM rules WHERE project_id = $1 AND match_type = $2 AND match_key = $3 AND host = $4 AND id <> $5`,
		r.ProjectID, r.MatchType.String(), s.SourceKey(r.MatchType, r.Source), r.Host, id)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	if rows.Next() {
		if err := rows.Scan(&existing); err != nil {
			return 0, err
		}
	}
	return existing, rows.Err()
}
