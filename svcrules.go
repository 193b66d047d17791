package redirects

import "context"

// RuleService is the service layer's rules (see Services): a project's
// draft, rule by rule or by filter. Each method authorizes the caller in
// the context (ActionRead to read, ActionEditRules to change), validates,
// and changes or reads the store once. A project of an organization the
// caller has no role in is answered as a missing one.
type RuleService interface {
	// AddRule validates and stores a draft rule of r.ProjectID, setting
	// its ID, Revision and CreatedAt. Errors: ENOTFOUND (the project),
	// EFORBIDDEN, EINVALID, ECONFLICT (a rule with the same match type, host
	// and source, or one that clashes with it under the project's settings).
	AddRule(ctx context.Context, r *Rule) error
	// FindRule returns one draft rule with its revision. Errors: ENOTFOUND
	// (the project or the rule).
	FindRule(ctx context.Context, projectID string, id int64) (*Rule, error)
	// FindRulePage returns one page of a project's draft rules, with their
	// revisions and their hits (RulePage.Hits), in q's order after q's
	// cursor. Errors: ENOTFOUND (the project), EINVALID (the query or its
	// cursor).
	FindRulePage(ctx context.Context, projectID string, q RulePageQuery) (*RulePage, error)
	// FindDraft returns the project and its draft rules in the order of
	// engine.SortRules, without revisions: what the draft CSV and the other
	// platforms' files are written from. Errors: ENOTFOUND (the project).
	FindDraft(ctx context.Context, projectID string) (*Project, []Rule, error)
	// UpdateRule changes the fields of a draft rule that u names, adds one
	// to its revision and returns it as stored; with u.Revision set,
	// only if the rule is still at that revision. Errors: ENOTFOUND (the
	// project or the rule), EFORBIDDEN, EINVALID (as AddRule's, or an
	// update that names no field), EREVISION (a stale revision), ECONFLICT
	// (another rule has the new match type, host and
	// source).
	UpdateRule(ctx context.Context, projectID string, id int64, u RuleUpdate) (*Rule, error)
	// DeleteRule deletes a draft rule if it is still at revision (0:
	// whatever its revision). Errors: ENOTFOUND (the project or the rule),
	// EFORBIDDEN, EREVISION.
	DeleteRule(ctx context.Context, projectID string, id, revision int64) error
	// DeleteRules deletes, in one transaction, every draft rule that f
	// selects (the zero filter: every rule) and returns how many went.
	// Errors: ENOTFOUND (the project), EFORBIDDEN, EINVALID (the filter).
	DeleteRules(ctx context.Context, projectID string, f RuleFilter) (int, error)
	// FlattenChains reports, for the draft, the rules whose chain
	// flattening rewrites and the chains it leaves alone (see
	// FlattenReport); with opts.Write it saves the rewrites as one upsert
	// of those rules, which records a rule.flatten_chains audit entry and
	// which UndoImport undoes as an import. Reading needs ActionRead,
	// writing ActionEditRules. Errors: ENOTFOUND (the project),
	// EFORBIDDEN. The write reads the draft under the lock every writer of
	// the draft takes, so no change comes between its read and its write.
	FlattenChains(ctx context.Context, projectID string, opts FlattenOptions) (*FlattenReport, error)
}
