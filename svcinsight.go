package redirects

import "context"

// InsightService is the service layer's insight (see Services): what the
// edge nodes counted (usage, hits, misses), what the sync agents reported,
// and the audit log. Each method authorizes the caller in the context,
// validates, and changes or reads the store once. Reading is ActionRead;
// forgetting a miss or an agent's report, and making a rule of a miss,
// are ActionEditRules. A project or an organization the caller has no
// role in is answered as a missing one.
type InsightService interface {
	// FindOrgUsage returns the usage of organization orgID in month
	// ("2006-01"; "" is this month, UTC). Errors: ENOTFOUND (the
	// organization), EINVALID (the month).
	FindOrgUsage(ctx context.Context, orgID, month string) (*OrgUsage, error)
	// FindUsageMonths returns the organization's monthly totals of the n
	// months up to this one (UTC), oldest first. Errors: ENOTFOUND (the
	// organization), EINVALID (n below 1 or above 120).
	FindUsageMonths(ctx context.Context, orgID string, n int) ([]MonthUsage, error)
	// FindMisses returns the project's most frequent missed paths, at most
	// limit (1 to MaxStoredMisses). Errors: ENOTFOUND (the project),
	// EINVALID (the limit).
	FindMisses(ctx context.Context, projectID string, limit int) ([]Miss, error)
	// DeleteMiss forgets a missed path, for one nobody will make a rule
	// of. Errors: ENOTFOUND (the project, the path), EFORBIDDEN, EINVALID
	// (an empty path).
	DeleteMiss(ctx context.Context, projectID, path string) error
	// AddRuleFromMiss puts rule r, whose source is a missed path of its
	// project, in the draft and forgets the miss: "create a rule from this
	// miss". Nothing is live until a deploy. A miss that cannot be
	// forgotten stays listed; the rule is added all the same. Errors:
	// ENOTFOUND (the project), EFORBIDDEN, EINVALID (the rule), ECONFLICT
	// (a rule with that source).
	AddRuleFromMiss(ctx context.Context, r *Rule) error
	// FindAudit returns the audit entries f selects, newest first (see
	// AuditFilter). A filter without an organization or a project reads
	// every organization's entries, which only the command line run
	// against the database may. Errors: ENOTFOUND (the organization, the
	// project, or a project of another organization than f's), EINVALID
	// (see AuditFilter.Validate), EFORBIDDEN.
	FindAudit(ctx context.Context, f AuditFilter) ([]*AuditEntry, error)
	// FindAgents returns the project's live version (0 before the first
	// deploy) and its sync agents' last reports
	// (docs/delivery.md#which-servers-have-which-version). Errors:
	// ENOTFOUND (the project).
	FindAgents(ctx context.Context, projectID string) (live int, reports []AgentReport, err error)
	// DeleteAgents forgets the project's agents' reports that f selects
	// and returns how many it forgot. Errors: ENOTFOUND (the project),
	// EFORBIDDEN, EINVALID (see AgentFilter.Validate).
	DeleteAgents(ctx context.Context, projectID string, f AgentFilter) (int, error)
}

// OrgUsage is an organization's usage in a month. Total is the monthly
// usage the quota counts; Days and Keys break the live lookups down per
// UTC day and per edge key, as the edge nodes count and flush them.
type OrgUsage struct {
	Month string
	Total int64
	// Quota is the monthly quota in force, RateLimit the requests per
	// minute.
	Quota, RateLimit Limit
	// Days lists every day of the month (up to today for this month) with
	// its count, zeros included.
	Days []DayCount
	// Keys lists the organization's live keys that are not revoked, and
	// any other key with usage in the month, by count, highest first.
	Keys []KeyUsage
}

// DayCount is the live lookups of one UTC day ("2006-01-02").
type DayCount struct {
	Day   string
	Count int64
}

// KeyUsage is one key's usage in a month: its days with usage only. A key
// of a deleted project keeps its ID and usage, with no project, name or
// last4.
type KeyUsage struct {
	ID        string
	ProjectID string
	Name      string
	Last4     string
	Count     int64
	Days      []DayCount
}

// MonthUsage is an organization's total of one month ("2006-01").
type MonthUsage struct {
	Month string
	Total int64
}

// MaxUsageMonths is the most months FindUsageMonths reads at once.
const MaxUsageMonths = 120
