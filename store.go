package redirects

import (
	"context"
	"time"
)

// Store keeps organizations, projects, draft rules, keys and deployments.
// Every method is one transaction. Implementations: sqlite.DB and
// postgres.DB; storetest.Run holds them to the same behaviour. Deploys
// (see DeployService) and ImportRules share their steps through DeployInTx and
// ImportInTx, so a store only reads and writes rows.
type Store interface {
	// CreateOrg stores o, setting its ID and CreatedAt.
	// Errors: EINVALID.
	CreateOrg(ctx context.Context, o *Org) error
	// UpdateOrg changes an organization and returns it as stored.
	// Errors: ENOTFOUND, EINVALID.
	UpdateOrg(ctx context.Context, id string, u OrgUpdate) (*Org, error)
	// FindOrgByID returns one organization. Errors: ENOTFOUND.
	FindOrgByID(ctx context.Context, id string) (*Org, error)
	// FindOrgs returns every organization, oldest first.
	FindOrgs(ctx context.Context) ([]*Org, error)

	// CreateProject stores p, setting its ID and CreatedAt.
	// Errors: EINVALID, ENOTFOUND (the organization).
	CreateProject(ctx context.Context, p *Project) error
	// FindProjectByID returns one project. Errors: ENOTFOUND.
	FindProjectByID(ctx context.Context, id string) (*Project, error)
	// FindProjects returns the projects of orgID, or of every organization
	// when orgID is "", oldest first. Errors: ENOTFOUND (the organization).
	FindProjects(ctx context.Context, orgID string) ([]*Project, error)
	// UpdateProject renames a project, records a project event and returns
	// the project as stored. Errors: ENOTFOUND, EINVALID.
	UpdateProject(ctx context.Context, id, name string) (*Project, error)
	// SetExportRetention sets how many of a project's latest deployments
	// keep their export files, records the change in the audit log and
	// returns the project as stored. The next deploy deletes the export
	// files of older deployments. Errors: ENOTFOUND, EINVALID.
	SetExportRetention(ctx context.Context, id string, n int) (*Project, error)
	// SetProjectShrinkLimit sets the percentage of the live rules a deploy
	// may remove unconfirmed (see ValidateShrinkLimit), records a
	// project.update audit entry and returns the project as stored.
	// Errors: ENOTFOUND, EINVALID.
	SetProjectShrinkLimit(ctx context.Context, id string, percent int) (*Project, error)
	// SetProjectTests stores the project's expected-outcome test file,
	// checked with safety.ParseCases and at most MaxTestsLen bytes,
	// replacing the one stored; "" removes it. It records a
	// project.tests audit entry. Errors: ENOTFOUND, EINVALID (every bad
	// line).
	SetProjectTests(ctx context.Context, id, csv string) error
	// FindProjectTests returns the project's stored test file, or "" when it
	// has none. Errors: ENOTFOUND.
	FindProjectTests(ctx context.Context, id string) (string, error)
	// SetProjectHosts sets the hosts a project declares (see
	// NormalizeHosts; none clears them), records an audit entry and
	// returns the project as stored. Errors: ENOTFOUND, EINVALID.
	SetProjectHosts(ctx context.Context, id string, hosts []string) (*Project, error)
	// SetProjectSettings sets the project's matching settings for its
	// draft (docs/contract.md#rule-options), records a project.update audit
	// entry and returns the project as stored. The next deploy freezes
	// them. Errors: ENOTFOUND; ECONFLICT when draft rules would clash under
	// the new settings, with a message that lists them (see Clashes).
	SetProjectSettings(ctx context.Context, id string, s Settings) (*Project, error)
	// SetProjectRequireStage sets whether the project refuses deploys that
	// are not staged (Project.RequireStage), records a project.update audit
	// entry and returns the project as stored. Errors: ENOTFOUND.
	SetProjectRequireStage(ctx context.Context, id string, require bool) (*Project, error)
	// DeleteProject deletes a project with its draft rules, keys,
	// deployments and exports, and records a project event, so edge nodes
	// drop it. Errors: ENOTFOUND.
	DeleteProject(ctx context.Context, id string) error
	// DeleteOrg deletes an organization with all its projects (as
	// DeleteProject does) and its usage, and records an org event.
	// Errors: ENOTFOUND.
	DeleteOrg(ctx context.Context, id string) error

	// AddRule validates and stores a draft rule, setting its ID and
	// CreatedAt. Errors: EINVALID (the rule, or a regex rule past
	// MaxRegexRules), ENOTFOUND (the project), ECONFLICT (a rule with the
	// same match type, host and source key exists).
	AddRule(ctx context.Context, r *Rule) error
	// ImportRules stores rules all or nothing; with replace, they replace
	// every draft rule of the project. Each rule is validated; conflicts
	// within the batch, or (without replace) with existing rules that the
	// batch does not repeat as they are, fail the whole import.
	// Errors: EINVALID (every problem, one per line; or a draft past
	// MaxRegexRules regex rules), ENOTFOUND, ECONFLICT.
	ImportRules(ctx context.Context, projectID string, rules []Rule, replace bool) (int, error)
	// Import stores rules in the draft as opts.Mode says (see ImportMode),
	// all or nothing, and reports what it did; with opts.DryRun it reports
	// what it would do and writes nothing. Errors: as ImportRules, and
	// EINVALID for an unknown mode.
	Import(ctx context.Context, projectID string, rules []Rule, opts ImportOptions) (*ImportReport, error)
	// UndoImport puts the draft back exactly as it was before the applied
	// import whose report gave undoID (the same rules, IDs, revisions and
	// creation times), in one transaction, records a rule.import_undo
	// audit entry and returns how many rules the draft holds again.
	// Errors: ENOTFOUND (the project, or no such undo record: undone
	// already, or older than the project's last MaxImportUndos imports),
	// ECONFLICT (the draft changed since the import; nothing changes).
	UndoImport(ctx context.Context, projectID string, undoID int64) (int, error)
	// RewriteDraft is Import of the rules that rewrite derives from the
	// draft, in one transaction: the store reads the draft once (as
	// FindRules returns it) under the import's locks, keeps it for the
	// undo record from that same read, hands it to rewrite, and imports
	// the rules rewrite returns as opts says, so the draft cannot change
	// between the read and the write. Nothing is written when rewrite
	// returns no rule (the report's UndoID is then 0) or an error, which
	// RewriteDraft returns as it is. rewrite must not keep or change the
	// draft it is given. Errors: as Import's, and EINVALID when
	// opts.Expect is set (the one read makes it moot).
	RewriteDraft(ctx context.Context, projectID string, rewrite DraftRewrite, opts ImportOptions) (*ImportReport, error)
	// CheckImportUndo reports whether UndoImport would put the draft back
	// now: nil, or the error UndoImport would return. It changes nothing.
	CheckImportUndo(ctx context.Context, projectID string, undoID int64) error
	// FindRules returns the draft rules of a project in the order of
	// engine.SortRules. Errors: ENOTFOUND (the project).
	FindRules(ctx context.Context, projectID string) ([]Rule, error)
	// DeleteRule deletes a draft rule. Errors: ENOTFOUND.
	DeleteRule(ctx context.Context, projectID string, id int64) error
	// FindRule returns one draft rule with its revision. Errors: ENOTFOUND
	// (the project or the rule).
	FindRule(ctx context.Context, projectID string, id int64) (*Rule, error)
	// FindRulePage returns one page of a project's draft rules, with the
	// rules' revisions, in q's order after q's cursor, and the number of
	// rules the filter selects. Errors: EINVALID (the query or its cursor),
	// ENOTFOUND (the project).
	FindRulePage(ctx context.Context, projectID string, q RulePageQuery) (*RulePage, error)
	// UpdateRule changes a draft rule in place, adds one to its revision,
	// and returns it as stored. With u.Revision set, it changes nothing
	// unless the rule is still at that revision. Errors: ENOTFOUND (the
	// project or the rule), EREVISION (a stale revision), EINVALID (as for
	// AddRule, or an update that changes no field), ECONFLICT (another rule
	// has the new match type, host and source key).
	UpdateRule(ctx context.Context, projectID string, id int64, u RuleUpdate) (*Rule, error)
	// DeleteRuleRevision deletes a draft rule if it is still at revision
	// (0: whatever its revision). Errors: ENOTFOUND, EREVISION.
	DeleteRuleRevision(ctx context.Context, projectID string, id, revision int64) error
	// DeleteRules deletes, in one transaction, every draft rule of a project
	// that the filter selects (the zero filter: every rule), and returns how
	// many it deleted. Errors: EINVALID (the filter), ENOTFOUND (the project).
	DeleteRules(ctx context.Context, projectID string, f RuleFilter) (int, error)

	// CreateKey stores a key made by NewKey. Errors: ENOTFOUND (the project).
	CreateKey(ctx context.Context, k *Key) error
	// FindKeys returns the keys of a project, or of every project when
	// projectID is "", oldest first. Errors: ENOTFOUND (the project).
	FindKeys(ctx context.Context, projectID string) ([]*Key, error)
	// RevokeKey revokes a key of the project named by its ID or its full
	// secret, and returns it. Revoking a revoked key is not an error.
	// Errors: ENOTFOUND.
	RevokeKey(ctx context.Context, projectID, ref string) (*Key, error)

	// WithDeployTx runs a deploy's write transaction (see DeployStore).
	WithDeployTx(ctx context.Context, fn func(tx DeployTx) error) error
	// FindDeployments returns a project's deployments, version 1 first,
	// discarded ones left out. Errors: ENOTFOUND (the project).
	FindDeployments(ctx context.Context, projectID string) ([]*Deployment, error)
	// PromoteDeployment makes a version live: it moves the project's live
	// pointer to it (its content stays as it is), records a deploy event,
	// so edge nodes answer from it, and a deployment.promote audit entry,
	// and returns it. Promoting the live version changes nothing.
	// Errors: EINVALID, ENOTFOUND (the project or the version).
	PromoteDeployment(ctx context.Context, projectID string, version int) (*Deployment, error)
	// DiscardDeployment discards a staged version: its rules and exports
	// are deleted and its number is never handed out again. It records a
	// deploy event, so edge nodes forget it, and a deployment.discard
	// audit entry. Errors: EINVALID, ENOTFOUND, ECONFLICT (the version is
	// live, or was not staged).
	DiscardDeployment(ctx context.Context, projectID string, version int) error
	// FindDeployment returns one version, or the live one when version is 0,
	// with its rules in the order of engine.SortRules. Errors: ENOTFOUND (project,
	// no deployment, or no such version).
	FindDeployment(ctx context.Context, projectID string, version int) (*Deployment, []Rule, error)
	// FindExport returns one export file of a version, or of the live one
	// when version is 0. For a version whose export files were deleted
	// (see Project.ExportRetention) it returns the deployment and an error
	// for which IsExportsPruned is true; the package function FindExport
	// renders such a version again. Errors: ENOTFOUND.
	FindExport(ctx context.Context, projectID string, version int, format string) (*Deployment, *Export, error)

	// FindEvents returns the changes recorded after the event afterID, oldest
	// first, at most limit of them. Every change that an edge node must learn
	// of (a deploy, a key created or revoked, an organization or project
	// created or changed) records one event in its own transaction.
	FindEvents(ctx context.Context, afterID int64, limit int) ([]Event, error)
	// LastEventID returns the ID of the newest event, or 0.
	LastEventID(ctx context.Context) (int64, error)

	// AddUsage adds counted live lookups to organizations' monthly usage.
	// Errors: none for unknown organizations (their counts are dropped).
	AddUsage(ctx context.Context, period string, counts map[string]int64) error
	// FindUsage returns the monthly usage of every organization that has
	// some in period ("2006-01", UTC).
	FindUsage(ctx context.Context, period string) (map[string]int64, error)
	// AddKeyUsage adds counted live lookups to edge keys' daily usage, all
	// in one transaction, filed under each key's organization.
	// Errors: EINVALID (see ValidateDailyUsage); none for unknown keys
	// (their counts are dropped).
	AddKeyUsage(ctx context.Context, counts []DailyUsage) error
	// AddUsageTogether is AddUsage for each period of monthly (period ->
	// organization ID -> lookups) and AddKeyUsage of daily, all in one
	// transaction: the monthly totals and the keys' daily counts add up
	// after any failure or kill.
	// Errors: EINVALID (see ValidateUsage and ValidateDailyUsage).
	AddUsageTogether(ctx context.Context, monthly map[string]map[string]int64, daily []DailyUsage) error
	// FindDailyUsage returns an organization's daily usage per key in month
	// ("2006-01", UTC), by day then key ID. Rows stay when their key's
	// project is deleted, and go with the organization.
	// Errors: EINVALID (the month).
	FindDailyUsage(ctx context.Context, orgID, month string) ([]DailyUsage, error)

	// AddHits adds the hits edge nodes counted to the rules' totals, in one
	// transaction; a rule's last hit becomes the later of the stored and
	// the given one. Errors: EINVALID (see ValidateHits); none for unknown
	// projects (their hits are dropped).
	AddHits(ctx context.Context, hits []RuleHits) error
	// FindHits returns the hits of the rules of a project that have some,
	// by match type then source: every such rule for nil sources, else
	// those whose source is one of sources (at most MaxRuleLimit of them).
	FindHits(ctx context.Context, projectID string, sources []string) ([]RuleHits, error)
	// AddMisses adds the misses edge nodes counted to the project's totals,
	// in one transaction (first seen the earliest, last seen the latest),
	// then keeps each project's MaxStoredMisses most frequent paths. Beyond
	// that many, it counts as the edge's sketch does (space-saving): a path
	// the store does not hold inherits the least count it holds, so a path
	// that keeps being missed gets in, and its count is an upper bound.
	// Errors: EINVALID (see ValidateMisses); none for unknown projects.
	AddMisses(ctx context.Context, misses []Miss) error
	// FindMisses returns a project's most frequent missed paths, at most
	// limit of them, by count (highest first) then path.
	FindMisses(ctx context.Context, projectID string, limit int) ([]Miss, error)
	// DeleteMiss forgets a missed path of a project (once a rule answers
	// it, or nobody will make one) and records a miss.delete audit entry.
	// Errors: ENOTFOUND (the project, or the path among its misses).
	DeleteMiss(ctx context.Context, projectID, path string) error

	// Close releases the store.
	Close() error
}

// Notifier is implemented by stores that push a notice whenever an event
// is recorded (PostgreSQL's LISTEN/NOTIFY), so edge nodes learn of changes
// at once instead of at their next poll.
type Notifier interface {
	// Listen holds a connection of its own and calls notify for each notice
	// until ctx ends or the connection fails, and returns why it stopped.
	// Notices may be merged or repeated: they only say "look now".
	Listen(ctx context.Context, notify func()) error
}

// Event kinds.
const (
	EventDeploy  = "deploy"
	EventKey     = "key"
	EventOrg     = "org"
	EventProject = "project"
)

// Event records one change for edge nodes to pick up.
type Event struct {
	ID        int64
	Kind      string
	OrgID     string
	ProjectID string
	// Version is the deployed version, for EventDeploy: the new live one,
	// the promoted one, or the discarded one. An event of a staged deploy
	// is not recorded: the live version does not change.
	Version   int
	CreatedAt time.Time
}

// Clock tells the time. Tests set it to reach window and period edges.
type Clock interface {
	Now() time.Time
}

// SystemClock is the Clock of the wall.
type SystemClock struct{}

// Now returns the current time in UTC.
func (SystemClock) Now() time.Time { return time.Now().UTC() }
