package api

import (
	"fmt"
	"net/url"
	"time"

	"redirects"
)

// OrgUsage is the answer of GET /orgs/{org}/usage: an organization's usage
// in a month (see redirects.OrgUsage).
type OrgUsage struct {
	Month string `json:"month"`
	Total int64  `json:"total"`
	// Quota is the monthly quota in force: a number or "unlimited";
	// RateLimit the requests per minute.
	Quota     string     `json:"quota"`
	RateLimit string     `json:"rateLimit"`
	Days      []DayCount `json:"days"`
	Keys      []KeyUsage `json:"keys"`
}

// DayCount is the live lookups of one UTC day.
type DayCount struct {
	Day   string `json:"day"`
	Count int64  `json:"count"`
}

// KeyUsage is one key's usage in the month: its days with usage only.
type KeyUsage struct {
	ID        string     `json:"id"`
	ProjectID string     `json:"projectId"`
	Name      string     `json:"name"`
	Last4     string     `json:"last4"`
	Count     int64      `json:"count"`
	Days      []DayCount `json:"days"`
}

// OrgUsageOf is u as the API shows it.
func OrgUsageOf(u *redirects.OrgUsage) OrgUsage {
	out := OrgUsage{Month: u.Month, Total: u.Total, Quota: u.Quota.String(), RateLimit: u.RateLimit.String(),
		Days: dayCountsOf(u.Days), Keys: make([]KeyUsage, 0, len(u.Keys))}
	for _, k := range u.Keys {
		out.Keys = append(out.Keys, KeyUsage{ID: k.ID, ProjectID: k.ProjectID, Name: k.Name, Last4: k.Last4, Count: k.Count, Days: dayCountsOf(k.Days)})
	}
	return out
}

func dayCountsOf(ds []redirects.DayCount) []DayCount {
	out := make([]DayCount, 0, len(ds))
	for _, d := range ds {
		out = append(out, DayCount{Day: d.Day, Count: d.Count})
	}
	return out
}

// Usage is u as the domain holds it, for the API's client. Errors:
// EINVALID (a quota or rate limit that is neither a number nor
// "unlimited").
func (u *OrgUsage) Usage() (*redirects.OrgUsage, error) {
	quota, err := redirects.ParseLimit("quota", u.Quota)
	if err != nil {
		return nil, err
	}
	rate, err := redirects.ParseLimit("rateLimit", u.RateLimit)
	if err != nil {
		return nil, err
	}
	out := &redirects.OrgUsage{Month: u.Month, Total: u.Total, Quota: quota, RateLimit: rate,
		Days: domainDayCounts(u.Days), Keys: make([]redirects.KeyUsage, 0, len(u.Keys))}
	for _, k := range u.Keys {
		out.Keys = append(out.Keys, redirects.KeyUsage{ID: k.ID, ProjectID: k.ProjectID, Name: k.Name, Last4: k.Last4, Count: k.Count, Days: domainDayCounts(k.Days)})
	}
	return out, nil
}

func domainDayCounts(ds []DayCount) []redirects.DayCount {
	out := make([]redirects.DayCount, 0, len(ds))
	for _, d := range ds {
		out = append(out, redirects.DayCount{Day: d.Day, Count: d.Count})
	}
	return out
}

// Hits is the answer of GET /projects/{project}/hits: the draft rules,
// without their revision (the report reads the draft whole, as a deploy
// does), each with its hits.
type Hits struct {
	StaleSince *string   `json:"staleSince"`
	Rules      []HitRule `json:"rules"`
}

// HitRule is one rule of the hits report: the rule, its hits summed over
// every edge node, and when it was last hit (null: never).
type HitRule struct {
	ID          int64   `json:"id"`
	Source      string  `json:"source"`
	Destination string  `json:"destination"`
	StatusCode  int     `json:"statusCode"`
	MatchType   string  `json:"matchType"`
	Priority    int     `json:"priority"`
	CreatedAt   string  `json:"createdAt"`
	Hits        int64   `json:"hits"`
	LastHit     *string `json:"lastHit"`
	// PreservePath and PreserveQuery are the rule's options, as the rule
	// list shows them.
	PreservePath  bool `json:"preservePath"`
	PreserveQuery bool `json:"preserveQuery"`
	// Host is the rule's host key, left out for a rule of every host: a
	// rule's hits count per match type, host and source.
	Host string `json:"host,omitempty"`
	// QueryAfterFragment is the rule's queryAfterFragment option, left out
	// when false.
	QueryAfterFragment bool `json:"queryAfterFragment,omitempty"`
	// MergeQuery is the rule's mergeQuery option, left out when false.
	MergeQuery bool `json:"mergeQuery,omitempty"`
	// ExceptHosts are the rule's exceptHosts, left out when none.
	ExceptHosts []string `json:"exceptHosts,omitempty"`
}

// HitsQuery is the query of GET /projects/{project}/hits: with StaleSince
// not zero (?staleSince=, a time or a date), only the rules not hit since
// then.
type HitsQuery struct {
	StaleSince time.Time
}

// Values is q as a query.
func (q HitsQuery) Values() url.Values {
	if q.StaleSince.IsZero() {
		return nil
	}
	return url.Values{"staleSince": {q.StaleSince.UTC().Format(time.RFC3339Nano)}}
}

// ReadQuery reads ?staleSince=: a time (RFC 3339) or a date.
func (q *HitsQuery) ReadQuery(v url.Values) error {
	const name = "staleSince"
	switch vs := v[name]; len(vs) {
	case 0:
		return nil
	case 1:
		if vs[0] == "" {
			return nil
		}
		if t, err := time.Parse(time.RFC3339Nano, vs[0]); err == nil {
			q.StaleSince = t.UTC()
			return nil
		}
		if t, err := time.Parse(time.DateOnly, vs[0]); err == nil {
			q.StaleSince = t
			return nil
		}
		return fmt.Errorf("the query parameter %q is %q, neither a time (2026-03-14T15:09:26Z) nor a date (2026-03-14)", name, vs[0])
	default:
		return fmt.Errorf("the query parameter %q is given %d times; give it once", name, len(vs))
	}
}

// HitsOp is GET /projects/{project}/hits: every draft rule with its hits
// (docs/contract.md "Hits and misses"), an operation the service layer
// implements (service.Implement). Reading it is reading the project.
var HitsOp = Declare(&Op[HitsQuery, Hits]{Method: "GET", Path: "/projects/{project}/hits", Action: redirects.ActionRead})

// HitsOf is the hits report of rules with hits; staleSince, when not
// zero, is the time the rules were chosen as not hit since.
func HitsOf(rules []redirects.Rule, hits []redirects.RuleHits, staleSince time.Time) Hits {
	out := Hits{Rules: make([]HitRule, 0, len(rules))}
	if !staleSince.IsZero() {
		s := staleSince.UTC().Format(time.RFC3339)
		out.StaleSince = &s
	}
	idx := redirects.HitIndex(hits)
	for i := range rules {
		r := &rules[i]
		j := HitRule{ID: r.ID, Source: r.Source, Destination: r.Destination, StatusCode: r.StatusCode, MatchType: r.MatchType.String(),
			Priority: r.Priority, CreatedAt: r.CreatedAt.UTC().Format(time.RFC3339), PreservePath: r.PreservePath, PreserveQuery: r.PreserveQuery,
			Host: r.Host, QueryAfterFragment: r.QueryAfterFragment, MergeQuery: r.MergeQuery, ExceptHosts: r.ExceptHosts}
		if h, ok := idx[r.HitKey()]; ok {
			j.Hits = h.Hits
			j.LastHit = ExactTime(h.LastHit)
		}
		out.Rules = append(out.Rules, j)
	}
	return out
}

// RulesAndHits returns the report's rules and their hits as the domain holds
// them, for the API's client. Errors: EINVALID (a match type the domain
// does not know).
func (h *Hits) RulesAndHits(projectID string) ([]redirects.Rule, []redirects.RuleHits, error) {
	rules := make([]redirects.Rule, 0, len(h.Rules))
	var hits []redirects.RuleHits
	seen := map[redirects.HitKey]bool{}
	for _, j := range h.Rules {
		mt, err := redirects.ParseMatchType(j.MatchType)
		if err != nil {
			return nil, nil, err
		}
		created, _ := time.Parse(time.RFC3339, j.CreatedAt)
		rules = append(rules, redirects.Rule{ID: j.ID, ProjectID: projectID, Source: j.Source, Destination: j.Destination, StatusCode: j.StatusCode,
			MatchType: mt, Priority: j.Priority, CreatedAt: created, PreservePath: j.PreservePath, PreserveQuery: j.PreserveQuery, Host: j.Host,
			QueryAfterFragment: j.QueryAfterFragment, MergeQuery: j.MergeQuery, ExceptHosts: j.ExceptHosts})
		k := redirects.HitKey{MatchType: mt, Host: j.Host, Source: j.Source}
		if j.LastHit == nil || seen[k] {
			continue
		}
		seen[k] = true
		last, _ := time.Parse(time.RFC3339Nano, *j.LastHit)
		hits = append(hits, redirects.RuleHits{ProjectID: projectID, MatchType: mt, Host: j.Host, Source: j.Source, Hits: j.Hits, LastHit: last})
	}
	return rules, hits, nil
}

// ExactTime is t in RFC 3339, UTC, with the fraction of a second the store
// holds: the times of hits and misses, which the command line prints with
// --json as the store gives them, through the API as with --db.
func ExactTime(t time.Time) *string {
	s := t.UTC().Format(time.RFC3339Nano)
	return &s
}

// Misses is the answer of GET /projects/{project}/misses: the most
// frequent missed paths first.
type Misses struct {
	Misses []Miss `json:"misses"`
}

// Miss is one missed path, on one host.
type Miss struct {
	Path      string `json:"path"`
	Count     int64  `json:"count"`
	FirstSeen string `json:"firstSeen"`
	LastSeen  string `json:"lastSeen"`
	// Host is the host key of the lookups that missed, left out for
	// lookups without a host: misses count per host and path.
	Host string `json:"host,omitempty"`
}

// MissesOf is the misses report of ms.
func MissesOf(ms []redirects.Miss) Misses {
	out := Misses{Misses: make([]Miss, 0, len(ms))}
	for _, m := range ms {
		out.Misses = append(out.Misses, Miss{Path: m.Path, Count: m.Count, FirstSeen: *ExactTime(m.FirstSeen), LastSeen: *ExactTime(m.LastSeen),
			Host: m.Host})
	}
	return out
}

// Domain returns the report's misses of project projectID as the domain
// holds them, for the API's client.
func (ms *Misses) Domain(projectID string) []redirects.Miss {
	out := make([]redirects.Miss, len(ms.Misses))
	for i, m := range ms.Misses {
		first, _ := time.Parse(time.RFC3339Nano, m.FirstSeen)
		last, _ := time.Parse(time.RFC3339Nano, m.LastSeen)
		out[i] = redirects.Miss{ProjectID: projectID, Host: m.Host, Path: m.Path, Count: m.Count, FirstSeen: first, LastSeen: last}
	}
	return out
}

// MissRule is the body of POST /projects/{project}/misses/rule: a draft
// rule made of a missed path, the path its source. Only path is required;
// the others default as a new rule's do (host: none, a rule of every
// host; give a miss's host for a rule of that host only).
type MissRule struct {
	Path          *string `json:"path"`
	Destination   *string `json:"destination"`
	StatusCode    *int    `json:"statusCode,omitempty"`
	MatchType     *string `json:"matchType,omitempty"`
	Priority      *int    `json:"priority,omitempty"`
	PreservePath  *bool   `json:"preservePath,omitempty"`
	PreserveQuery *bool   `json:"preserveQuery,omitempty"`
	Host          *string `json:"host,omitempty"`
	// QueryAfterFragment is the rule's queryAfterFragment option.
	QueryAfterFragment *bool `json:"queryAfterFragment,omitempty"`
	// MergeQuery is the rule's mergeQuery option.
	MergeQuery *bool `json:"mergeQuery,omitempty"`
	// ExceptHosts are the rule's exceptHosts.
	ExceptHosts []string `json:"exceptHosts,omitempty"`
}

// Agents is the answer of GET /projects/{project}/agents: which servers
// have which version (docs/delivery.md#which-servers-have-which-version).
type Agents struct {
	Agents      []Agent `json:"agents"`
	LiveVersion int     `json:"liveVersion"`
}

// Agent is one sync agent's last report on a project.
type Agent struct {
	Agent          string `json:"agent"`
	Format         string `json:"format"`
	AppliedVersion int    `json:"appliedVersion"`
	SeenAt         string `json:"seenAt"`
	// Behind is set when the agent applied an older version than the live
	// one.
	Behind bool `json:"behind"`
}

// AgentsOp is GET /projects/{project}/agents, declared once for the
// management API and its client: which servers have which version. The
// service layer implements it (service.Implement; reading it is reading
// the project).
var AgentsOp = Declare(&Op[None, Agents]{Method: "GET", Path: "/projects/{project}/agents", Action: redirects.ActionRead})

// AgentsOf is the agents' answer of a project whose live version is live.
func AgentsOf(live int, reports []redirects.AgentReport) Agents {
	out := Agents{LiveVersion: live, Agents: make([]Agent, 0, len(reports))}
	for _, a := range reports {
		out.Agents = append(out.Agents, Agent{Agent: a.Agent, Format: a.Format, AppliedVersion: a.AppliedVersion,
			SeenAt: a.SeenAt.UTC().Format(time.RFC3339), Behind: a.Behind(live)})
	}
	return out
}

// Reports returns the agents' reports of project projectID as the domain
// holds them, for the API's client.
func (as *Agents) Reports(projectID string) []redirects.AgentReport {
	out := make([]redirects.AgentReport, 0, len(as.Agents))
	for _, a := range as.Agents {
		seen, _ := time.Parse(time.RFC3339, a.SeenAt)
		out = append(out, redirects.AgentReport{ProjectID: projectID, Agent: a.Agent, Format: a.Format, AppliedVersion: a.AppliedVersion, SeenAt: seen})
	}
	return out
}

// AgentsDeleted is the answer of DELETE /projects/{project}/agents: how
// many reports were forgotten.
type AgentsDeleted struct {
	Deleted int `json:"deleted"`
}

// HitsRow is one rule of hits --json: the rule and its hits, and when it
// was last hit (null: never), as the store holds the time.
type HitsRow struct {
	Source      string     `json:"source"`
	MatchType   string     `json:"matchType"`
	Destination string     `json:"destination"`
	StatusCode  int        `json:"statusCode"`
	Hits        int64      `json:"hits"`
	LastHit     *time.Time `json:"lastHit"`
	// Host is the rule's host, left out for a rule of every host.
	Host string `json:"host,omitempty"`
}

// MissesRow is one path of misses --json, with the times as the store
// holds them.
type MissesRow struct {
	Path      string    `json:"path"`
	Count     int64     `json:"count"`
	FirstSeen time.Time `json:"firstSeen"`
	LastSeen  time.Time `json:"lastSeen"`
	// Host is the lookups' host, left out for lookups without one.
	Host string `json:"host,omitempty"`
}
