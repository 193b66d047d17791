package redirects

import (
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// ActorKind says what kind of actor made a change.
type ActorKind string

// The kinds of actor.
const (
	// ActorCLI is a person at the command line; the label is their
	// operating-system user name.
	ActorCLI ActorKind = "cli"
	// ActorUser is a dashboard user; the ID is the user's, the label their
	// email address.
	ActorUser ActorKind = "user"
	// ActorToken is a management token; the ID is the token's, the label
	// its label.
	ActorToken ActorKind = "token"
	// ActorSystem is the service itself, or a caller that put no actor in
	// the context.
	ActorSystem ActorKind = "system"
)

// Actor is who makes a change, as the audit log records it. The CLI, the
// management API and the dashboard put one in the context of every call
// (WithActor), and the stores write the audit entry from it in the same
// transaction as the change.
type Actor struct {
	Kind  ActorKind `json:"kind"`
	ID    string    `json:"id"`
	Label string    `json:"label"`
	// RemoteAddr is the address the request came from; "" for the CLI.
	RemoteAddr string `json:"remoteAddr"`
}

type actorKey struct{}

// WithActor returns a context that carries a.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorFrom returns the actor ctx carries, or the system actor when it
// carries none.
func ActorFrom(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok && a.Kind != "" {
		return a
	}
	return Actor{Kind: ActorSystem}
}

// Audit actions: what a change did, "<object>.<verb>".
const (
	AuditOrgCreate      = "org.create"
	AuditOrgUpdate      = "org.update"
	AuditOrgDelete      = "org.delete"
	AuditProjectCreate  = "project.create"
	AuditProjectUpdate  = "project.update"
	AuditProjectDelete  = "project.delete"
	AuditProjectTests   = "project.tests"
	AuditRuleCreate     = "rule.create"
	AuditRuleUpdate     = "rule.update"
	AuditRuleDelete     = "rule.delete"
	AuditRuleDeleteMany = "rule.delete_matching"
	AuditRuleImport     = "rule.import"
	AuditRuleImportUndo = "rule.import_undo"
	AuditRuleFlatten    = "rule.flatten_chains"
	AuditKeyCreate      = "key.create"
	AuditKeyRevoke      = "key.revoke"
	AuditDeploy         = "deployment.create"
	AuditStage          = "deployment.stage"
	AuditPromote        = "deployment.promote"
	AuditDiscard        = "deployment.discard"
	AuditUserCreate     = "user.create"
	AuditUserDisable    = "user.disable"
	AuditUserPassword   = "user.reset_password"
	AuditMemberAdd      = "member.add"
	AuditMemberUpdate   = "member.update"
	AuditMemberRemove   = "member.remove"
	AuditTokenCreate    = "token.create"
	AuditTokenRevoke    = "token.revoke"
	AuditMissDelete     = "miss.delete"
	AuditAgentDelete    = "agent.delete"
	AuditWebhookCreate  = "webhook.create"
	AuditWebhookUpdate  = "webhook.update"
	AuditWebhookDelete  = "webhook.delete"
	AuditWebhookRotate  = "webhook.rotate_secret"
	// AuditDestinationCheck is a check of a project's destinations, and
	// AuditDestinationBroken a destination that worked and no longer does
	// (docs/contract.md#destination-checks).
	AuditDestinationCheck  = "destination.check"
	AuditDestinationBroken = "destination.broken"
)

// AuditEntry records one change: who, when, from where, what.
//
// Its JSON form is the one the CLI's "audit --json" and the management API
// show, so the two never differ.
type AuditEntry struct {
	ID        int64     `json:"id"`
	Time      time.Time `json:"time"`
	OrgID     string    `json:"orgId"`
	ProjectID string    `json:"projectId"`
	Actor     Actor     `json:"actor"`
	// Action is one of the Audit... constants, such as "rule.create".
	Action     string `json:"action"`
	ObjectType string `json:"objectType"`
	ObjectID   string `json:"objectId"`
	// Before and After are JSON objects of the fields the change touched,
	// as they were and as they became; nil for none (nothing before a
	// creation, nothing after a deletion).
	Before json.RawMessage `json:"before"`
	After  json.RawMessage `json:"after"`
}

// NewAuditEntry returns the entry of a change by the actor in ctx, at the
// given time. before and after hold the fields the change touched (see
// AuditDiff for updates); a nil map records nothing on that side.
func NewAuditEntry(ctx context.Context, at time.Time, action, orgID, projectID, objectType, objectID string, before, after map[string]any) *AuditEntry {
	return &AuditEntry{
		Time:       at,
		OrgID:      orgID,
		ProjectID:  projectID,
		Actor:      ActorFrom(ctx),
		Action:     action,
		ObjectType: objectType,
		ObjectID:   objectID,
		Before:     auditJSON(before),
		After:      auditJSON(after),
	}
}

// auditJSON returns m as a JSON object with sorted keys, or nil for a nil
// map.
func auditJSON(m map[string]any) json.RawMessage {
	if m == nil {
		return nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		// Only the fields of the domain's own types are recorded, and
		// they all encode; say what went wrong rather than lose the entry.
		return json.RawMessage(`{"error":` + quoteJSON(err.Error()) + `}`)
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// AuditDiff returns the fields of before and after whose values differ, so
// an update records only what it changed. A field missing on one side is
// recorded as null there.
func AuditDiff(before, after map[string]any) (map[string]any, map[string]any) {
	b, a := map[string]any{}, map[string]any{}
	for k, av := range after {
		bv := before[k]
		if !sameJSON(bv, av) {
			b[k], a[k] = bv, av
		}
	}
	for k, bv := range before {
		if _, ok := after[k]; !ok && bv != nil {
			b[k], a[k] = bv, nil
		}
	}
	return b, a
}

func sameJSON(x, y any) bool {
	bx, ex := json.Marshal(x)
	by, ey := json.Marshal(y)
	return ex == nil && ey == nil && bytes.Equal(bx, by)
}

// AuditFields of the domain's objects: what an entry records of each.

// OrgAuditFields returns what the audit log records of an organization.
func OrgAuditFields(o *Org) map[string]any {
	m := map[string]any{"name": o.Name, "tier": string(o.Tier), "rateLimitOverride": nil, "quotaOverride": nil}
	if o.RateLimitOverride != nil {
		m["rateLimitOverride"] = o.RateLimitOverride.String()
	}
	if o.QuotaOverride != nil {
		m["quotaOverride"] = o.QuotaOverride.String()
	}
	return m
}

// ProjectAuditFields returns what the audit log records of a project.
func ProjectAuditFields(p *Project) map[string]any {
	m := map[string]any{"name": p.Name, "orgId": p.OrgID}
	if len(p.Hosts) > 0 {
		m["hosts"] = p.Hosts
	}
	if !p.Settings.IsDefault() {
		m["caseSensitive"] = p.Settings.CaseSensitive()
		m["trailingSlash"] = p.Settings.TrailingSlash()
	}
	if p.RequireStage {
		m["requireStage"] = true
	}
	return m
}

// RuleAuditFields returns what the audit log records of a draft rule.
// The options are recorded when a rule uses them, so the entries of rules
// without them read as before.
func RuleAuditFields(r *Rule) map[string]any {
	m := map[string]any{"source": r.Source, "destination": r.Destination, "statusCode": r.StatusCode,
		"matchType": r.MatchType.String(), "priority": r.Priority}
	if r.PreservePath {
		m["preservePath"] = true
	}
	if r.PreserveQuery {
		m["preserveQuery"] = true
	}
	if r.QueryAfterFragment {
		m["queryAfterFragment"] = true
	}
	if r.MergeQuery {
		m["mergeQuery"] = true
	}
	if r.Host != "" {
		m["host"] = r.Host
	}
	if len(r.ExceptHosts) > 0 {
		m["exceptHosts"] = r.ExceptHosts
	}
	return m
}

// KeyAuditFields returns what the audit log records of an API key: never
// the secret or its hash.
func KeyAuditFields(k *Key) map[string]any {
	return map[string]any{"name": k.Name, "mode": k.Mode(), "last4": k.Last4}
}

// TokenAuditFields returns what the audit log records of a management
// token: never the secret or its hash.
func TokenAuditFields(t *ManagementToken) map[string]any {
	m := map[string]any{"label": t.Label, "role": string(t.Role), "last4": t.Last4, "createdBy": t.CreatedBy, "expiresAt": nil}
	if t.ExpiresAt != nil {
		m["expiresAt"] = t.ExpiresAt.UTC().Format(time.RFC3339Nano)
	}
	return m
}

// UserAuditFields returns what the audit log records of a user: never the
// password or its hash.
func UserAuditFields(u *User) map[string]any {
	return map[string]any{"email": u.Email, "operator": u.Operator, "disabled": u.Disabled()}
}

// ImportAuditEntry returns the entry of an import of n rules into project
// p, by the actor in ctx: its mode and what it did to the draft.
func ImportAuditEntry(ctx context.Context, at time.Time, p *Project, n int, rep *ImportReport) *AuditEntry {
	after := map[string]any{"rules": n, "mode": string(rep.Mode), "added": rep.Added, "updated": rep.Updated,
		"unchanged": rep.Unchanged, "removed": rep.Removed}
	if rep.UndoID != 0 {
		after["undoId"] = rep.UndoID
	}
	return NewAuditEntry(ctx, at, AuditRuleImport, p.OrgID, p.ID, "project", p.ID, nil, after)
}

// DeployAuditEntry returns the entry of deployment d of project p, by the
// actor in ctx.
func DeployAuditEntry(ctx context.Context, p *Project, d *Deployment) *AuditEntry {
	after := map[string]any{"version": d.Version, "message": d.Message, "exactRules": d.ExactCount, "prefixRules": d.PrefixCount}
	d.AddKindCounts(after)
	if d.FromVersion != 0 {
		after["fromVersion"] = d.FromVersion
	}
	if d.Override.Force {
		after["forced"] = true
		after["reason"] = d.Override.Reason
	}
	if d.Override.AllowShrink {
		after["allowShrink"] = true
	}
	action := AuditDeploy
	if d.Staged {
		action = AuditStage
	}
	return NewAuditEntry(ctx, d.CreatedAt, action, p.OrgID, p.ID, "deployment", p.ID+"@"+strconv.Itoa(d.Version), nil, after)
}

// AuditFilter selects audit entries; zero fields select everything.
type AuditFilter struct {
	OrgID     string
	ProjectID string
	// Actor matches the actor's ID or label exactly.
	Actor string
	// Action matches an action exactly, or every action of an object with
	// a trailing ".*" ("rule.*").
	Action string
	// Since is the earliest time included, Until the first time excluded.
	Since, Until time.Time
	// BeforeID, when set, returns only entries older than that ID, for
	// paging backwards through the log.
	BeforeID int64
	// Limit caps the entries returned; 0 means DefaultAuditLimit.
	Limit int
}

// Audit query limits.
const (
	DefaultAuditLimit = 100
	MaxAuditLimit     = 10_000
)

// Validate checks a filter and fills in the default limit.
func (f *AuditFilter) Validate() error {
	if f.Limit < 0 || f.Limit > MaxAuditLimit {
		return Errorf(EINVALID, "audit limit %d is not between 1 and %d", f.Limit, MaxAuditLimit)
	}
	if f.Limit == 0 {
		f.Limit = DefaultAuditLimit
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Since.Before(f.Until) {
		return Errorf(EINVALID, "audit range since %s until %s is empty", f.Since.Format(time.RFC3339), f.Until.Format(time.RFC3339))
	}
	a := strings.TrimSuffix(f.Action, ".*")
	for i := 0; i < len(a); i++ {
		if c := a[i]; !('a' <= c && c <= 'z' || c == '.' || c == '_') {
			return Errorf(EINVALID, "audit action %s is not an action such as rule.create or rule.*", quoteShort(f.Action))
		}
	}
	return nil
}

// ActionPrefix returns the prefix an action filter ending in ".*" selects
// ("rule."), or "" for an exact filter.
func (f *AuditFilter) ActionPrefix() string {
	if p, ok := strings.CutSuffix(f.Action, ".*"); ok {
		return p + "."
	}
	return ""
}

// RuleFilterAuditFields returns what the audit log records of a bulk
// delete: the filter that chose the rules and how many went.
func RuleFilterAuditFields(f *RuleFilter, deleted int) map[string]any {
	m := map[string]any{"query": f.Query, "deleted": deleted}
	if f.MatchType != nil {
		m["matchType"] = f.MatchType.String()
	}
	if f.StatusCode != 0 {
		m["statusCode"] = f.StatusCode
	}
	return m
}
