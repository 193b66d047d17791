package api

import (
	"net/url"
	"strconv"
	"time"

	"redirects"
)

// Rule is a draft rule: the management API's rule routes answer it, the
// rule list and the hits report show it, and the command line's rule list
// --json prints it. Revision is left out where the rules were read whole
// (rule list without a page flag), as a deploy reads them, without
// revisions. The options come last: they were added after the others,
// and the host after them, left out when the rule has none, so that a
// project without hosts is answered byte for byte as before.
type Rule struct {
	ID          int64  `json:"id"`
	Source      string `json:"source"`
	Destination string `json:"destination"`
	StatusCode  int    `json:"statusCode"`
	MatchType   string `json:"matchType"`
	Priority    int    `json:"priority"`
	Revision    int64  `json:"revision,omitempty"`
	CreatedAt   string `json:"createdAt"`
	// PreservePath and PreserveQuery are the rule's options
	// (docs/contract.md#rule-options), false on a rule without them.
	PreservePath  bool `json:"preservePath"`
	PreserveQuery bool `json:"preserveQuery"`
	// Host scopes the rule to one host key (docs/contract.md#hosts).
	Host string `json:"host,omitempty"`
	// QueryAfterFragment is the rule's queryAfterFragment option, left out
	// when false (so a rule without it reads as before the option).
	QueryAfterFragment bool `json:"queryAfterFragment,omitempty"`
	// MergeQuery is the rule's mergeQuery option, left out when false.
	MergeQuery bool `json:"mergeQuery,omitempty"`
	// ExceptHosts are the hosts a rule without a host does not answer
	// (docs/contract.md#hosts), left out when none.
	ExceptHosts []string `json:"exceptHosts,omitempty"`
}

// RuleOf is r as the API shows it.
func RuleOf(r *redirects.Rule) Rule {
	return Rule{ID: r.ID, Source: r.Source, Destination: r.Destination, StatusCode: r.StatusCode,
		MatchType: r.MatchType.String(), Priority: r.Priority, Revision: r.Revision, CreatedAt: ruleTime(r.CreatedAt),
		PreservePath: r.PreservePath, PreserveQuery: r.PreserveQuery, Host: r.Host, QueryAfterFragment: r.QueryAfterFragment, MergeQuery: r.MergeQuery,
		ExceptHosts: r.ExceptHosts}
}

// Rule returns j as a rule of project projectID.
func (j *Rule) Rule(projectID string) redirects.Rule {
	mt, _ := redirects.ParseMatchType(j.MatchType)
	return redirects.Rule{ID: j.ID, ProjectID: projectID, Source: j.Source, Destination: j.Destination, StatusCode: j.StatusCode,
		MatchType: mt, Priority: j.Priority, Revision: j.Revision, CreatedAt: parseRuleTime(j.CreatedAt),
		PreservePath: j.PreservePath, PreserveQuery: j.PreserveQuery, Host: j.Host, QueryAfterFragment: j.QueryAfterFragment, MergeQuery: j.MergeQuery,
		ExceptHosts: j.ExceptHosts}
}

// RuleHits is a rule of the rule list: the draft rule, its hits summed
// over every edge node, and when it was last hit (null: never).
type RuleHits struct {
	Rule
	Hits    int64   `json:"hits"`
	LastHit *string `json:"lastHit"`
}

// RulesWithHits returns rules as the rule list shows them, each with its
// hits from hits.
func RulesWithHits(rules []redirects.Rule, hits []redirects.RuleHits) []RuleHits {
	idx := redirects.HitIndex(hits)
	out := make([]RuleHits, 0, len(rules))
	for i := range rules {
		r := &rules[i]
		j := RuleHits{Rule: RuleOf(r)}
		if h, ok := idx[r.HitKey()]; ok {
			j.Hits = h.Hits
			last := exactRuleTime(h.LastHit)
			j.LastHit = &last
		}
		out = append(out, j)
	}
	return out
}

// RulePage is one page of the rule list (GET .../rules); Next is null on
// the last page.
type RulePage struct {
	Rules []RuleHits `json:"rules"`
	Next  *string    `json:"next"`
	Total int        `json:"total"`
}

// RulePageOf is page as the API answers it.
func RulePageOf(page *redirects.RulePage) RulePage {
	out := RulePage{Rules: RulesWithHits(page.Rules, page.Hits), Total: page.Total}
	if page.Next != "" {
		out.Next = &page.Next
	}
	return out
}

// Page returns j as the page of project projectID, hits included.
func (j *RulePage) Page(projectID string) *redirects.RulePage {
	page := &redirects.RulePage{Rules: make([]redirects.Rule, len(j.Rules)), Total: j.Total}
	for i := range j.Rules {
		r := &j.Rules[i]
		page.Rules[i] = r.Rule.Rule(projectID)
		if r.LastHit != nil || r.Hits != 0 {
			h := redirects.RuleHits{ProjectID: projectID, MatchType: page.Rules[i].MatchType, Host: page.Rules[i].Host, Source: r.Source, Hits: r.Hits}
			if r.LastHit != nil {
				h.LastHit = parseRuleTime(*r.LastHit)
			}
			page.Hits = append(page.Hits, h)
		}
	}
	if j.Next != nil {
		page.Next = *j.Next
	}
	return page
}

// RuleList is the command line's rule list --json with a page flag: the
// rule list's page without the hits.
type RuleList struct {
	Rules []Rule `json:"rules"`
	// Next is null on the last page.
	Next  *string `json:"next"`
	Total int     `json:"total"`
}

// RuleFile is a rule of a project file (redirects plan and apply): a field
// left out takes its default, statusCode 301, matchType exact, priority
// 100, the options false and no host.
type RuleFile struct {
	Source        string `json:"source"`
	Destination   string `json:"destination"`
	StatusCode    int    `json:"statusCode,omitempty"`
	MatchType     string `json:"matchType,omitempty"`
	Priority      *int   `json:"priority,omitempty"`
	PreservePath  bool   `json:"preservePath,omitempty"`
	PreserveQuery bool   `json:"preserveQuery,omitempty"`
	Host          string `json:"host,omitempty"`
	// QueryAfterFragment is the rule's queryAfterFragment option.
	QueryAfterFragment bool `json:"queryAfterFragment,omitempty"`
	// MergeQuery is the rule's mergeQuery option.
	MergeQuery bool `json:"mergeQuery,omitempty"`
	// ExceptHosts are the rule's exceptHosts.
	ExceptHosts []string `json:"exceptHosts,omitempty"`
}

// RuleFileOf is r as a project file holds it: the defaults left out.
func RuleFileOf(r *redirects.Rule) RuleFile {
	rf := RuleFile{Source: r.Source, Destination: r.Destination, PreservePath: r.PreservePath, PreserveQuery: r.PreserveQuery,
		Host: r.Host, QueryAfterFragment: r.QueryAfterFragment, MergeQuery: r.MergeQuery, ExceptHosts: r.ExceptHosts}
	if r.StatusCode != redirects.DefaultStatus {
		rf.StatusCode = r.StatusCode
	}
	if r.MatchType != redirects.Exact {
		rf.MatchType = r.MatchType.String()
	}
	if r.Priority != redirects.DefaultPriority {
		p := r.Priority
		rf.Priority = &p
	}
	return rf
}

// Rule returns the rule rf describes, its defaults filled in and not yet
// validated. Errors: EINVALID (the match type).
func (rf RuleFile) Rule() (redirects.Rule, error) {
	r := redirects.Rule{Source: rf.Source, Destination: rf.Destination, StatusCode: rf.StatusCode,
		Priority: redirects.DefaultPriority, PreservePath: rf.PreservePath, PreserveQuery: rf.PreserveQuery, Host: rf.Host,
		QueryAfterFragment: rf.QueryAfterFragment, MergeQuery: rf.MergeQuery, ExceptHosts: rf.ExceptHosts}
	if r.StatusCode == 0 {
		r.StatusCode = redirects.DefaultStatus
	}
	if rf.Priority != nil {
		r.Priority = *rf.Priority
	}
	mt := rf.MatchType
	if mt == "" {
		mt = "exact"
	}
	m, err := redirects.ParseMatchType(mt)
	if err != nil {
		return r, err
	}
	r.MatchType = m
	return r, nil
}

// RuleCreate is the body of POST .../rules: a new rule, whose
// statusCode, matchType and priority default as on the command line (301,
// exact, 100), its options to false and its host to none. Its fields are
// flat (an embedded struct would name its fields in decoding errors).
type RuleCreate struct {
	Source        *string `json:"source"`
	Destination   *string `json:"destination"`
	StatusCode    *int    `json:"statusCode"`
	MatchType     *string `json:"matchType"`
	Priority      *int    `json:"priority"`
	PreservePath  *bool   `json:"preservePath"`
	PreserveQuery *bool   `json:"preserveQuery"`
	Host          *string `json:"host,omitempty"`
	// QueryAfterFragment is the rule's queryAfterFragment option, false
	// when left out.
	QueryAfterFragment *bool `json:"queryAfterFragment,omitempty"`
	// MergeQuery is the rule's mergeQuery option, false when left out.
	MergeQuery *bool `json:"mergeQuery,omitempty"`
	// ExceptHosts are the rule's exceptHosts, none when left out.
	ExceptHosts []string `json:"exceptHosts,omitempty"`
}

// RuleCreateOf is the body that adds r; a rule without a host sends none,
// as a client that predates hosts did.
func RuleCreateOf(r *redirects.Rule) RuleCreate {
	mt := r.MatchType.String()
	j := RuleCreate{Source: &r.Source, Destination: &r.Destination, StatusCode: &r.StatusCode, MatchType: &mt,
		Priority: &r.Priority, PreservePath: &r.PreservePath, PreserveQuery: &r.PreserveQuery}
	if r.Host != "" {
		j.Host = &r.Host
	}
	if r.QueryAfterFragment {
		// Sent only when set, as the host: a server older than the option
		// takes the body of a rule without it.
		j.QueryAfterFragment = &r.QueryAfterFragment
	}
	if r.MergeQuery {
		j.MergeQuery = &r.MergeQuery
	}
	if len(r.ExceptHosts) > 0 {
		// Sent only when set, as the host.
		j.ExceptHosts = r.ExceptHosts
	}
	return j
}

// Rule returns the rule j adds to project projectID, which the service
// validates once it has authorized the caller: statusCode, matchType and
// priority default as on the command line (301, exact, 100), the options to
// false and the host to none. A 410 (Gone) needs no destination; every
// other status does. missing names a required field j lacks ("source",
// "destination"), for the caller to refuse in its own words; err is
// EINVALID (the match type).
func (j *RuleCreate) Rule(projectID string) (r *redirects.Rule, missing string, err error) {
	if j.Source == nil {
		return nil, "source", nil
	}
	r = &redirects.Rule{ProjectID: projectID, Source: *j.Source,
		StatusCode: redirects.DefaultStatus, MatchType: redirects.Exact, Priority: redirects.DefaultPriority}
	if j.StatusCode != nil {
		r.StatusCode = *j.StatusCode
	}
	switch {
	case j.Destination != nil:
		r.Destination = *j.Destination
	case r.StatusCode != redirects.StatusGone:
		return nil, "destination", nil
	}
	if j.PreservePath != nil {
		r.PreservePath = *j.PreservePath
	}
	if j.PreserveQuery != nil {
		r.PreserveQuery = *j.PreserveQuery
	}
	if j.QueryAfterFragment != nil {
		r.QueryAfterFragment = *j.QueryAfterFragment
	}
	if j.MergeQuery != nil {
		r.MergeQuery = *j.MergeQuery
	}
	r.ExceptHosts = j.ExceptHosts
	if j.MatchType != nil {
		if r.MatchType, err = redirects.ParseMatchType(*j.MatchType); err != nil {
			return nil, "", err
		}
	}
	if j.Priority != nil {
		r.Priority = *j.Priority
	}
	if j.Host != nil {
		r.Host = *j.Host
	}
	return r, "", nil
}

// RuleUpdate is the body of PATCH .../rules/{id}: the fields to change,
// and the revision the change is made against (or none).
type RuleUpdate struct {
	Source        *string `json:"source,omitempty"`
	Destination   *string `json:"destination,omitempty"`
	StatusCode    *int    `json:"statusCode,omitempty"`
	MatchType     *string `json:"matchType,omitempty"`
	Priority      *int    `json:"priority,omitempty"`
	PreservePath  *bool   `json:"preservePath,omitempty"`
	PreserveQuery *bool   `json:"preserveQuery,omitempty"`
	// Host, when given, changes the rule's host; "" makes it answer every
	// host.
	Host     *string `json:"host,omitempty"`
	Revision *int64  `json:"revision,omitempty"`
	// QueryAfterFragment, when given, changes the rule's
	// queryAfterFragment option.
	QueryAfterFragment *bool `json:"queryAfterFragment,omitempty"`
	// MergeQuery, when given, changes the rule's mergeQuery option.
	MergeQuery *bool `json:"mergeQuery,omitempty"`
	// ExceptHosts, when given, changes the rule's exceptHosts; [] clears
	// them.
	ExceptHosts *[]string `json:"exceptHosts,omitempty"`
}

// RuleUpdateOf is the body of u.
func RuleUpdateOf(u redirects.RuleUpdate) RuleUpdate {
	j := RuleUpdate{Source: u.Source, Destination: u.Destination, StatusCode: u.StatusCode, Priority: u.Priority,
		PreservePath: u.PreservePath, PreserveQuery: u.PreserveQuery, Host: u.Host, QueryAfterFragment: u.QueryAfterFragment, MergeQuery: u.MergeQuery,
		ExceptHosts: u.ExceptHosts}
	if u.MatchType != nil {
		mt := u.MatchType.String()
		j.MatchType = &mt
	}
	if u.Revision != 0 {
		j.Revision = &u.Revision
	}
	return j
}

// Update returns the change j asks for, its revision left 0 (the caller
// reads it with If-Match). Errors: EINVALID (the match type).
func (j *RuleUpdate) Update() (redirects.RuleUpdate, error) {
	u := redirects.RuleUpdate{Source: j.Source, Destination: j.Destination, StatusCode: j.StatusCode, Priority: j.Priority,
		PreservePath: j.PreservePath, PreserveQuery: j.PreserveQuery, Host: j.Host, QueryAfterFragment: j.QueryAfterFragment, MergeQuery: j.MergeQuery,
		ExceptHosts: j.ExceptHosts}
	if j.MatchType != nil {
		mt, err := redirects.ParseMatchType(*j.MatchType)
		if err != nil {
			return u, err
		}
		u.MatchType = &mt
	}
	return u, nil
}

// RuleDelete is the optional body of DELETE .../rules/{id}.
type RuleDelete struct {
	Revision *int64 `json:"revision"`
}

// RulesDeleted is the answer of DELETE .../rules?confirm=true.
type RulesDeleted struct {
	Deleted int `json:"deleted"`
}

// RuleFilterQuery is f as the rule routes' query: q, match, status and
// host (present and empty for the host-less rules).
func RuleFilterQuery(f redirects.RuleFilter) url.Values {
	q := url.Values{}
	if f.Query != "" {
		q.Set("q", f.Query)
	}
	if f.MatchType != nil {
		q.Set("match", f.MatchType.String())
	}
	if f.StatusCode != 0 {
		q.Set("status", strconv.Itoa(f.StatusCode))
	}
	if f.Host != nil {
		q.Set("host", *f.Host)
	}
	return q
}

// RulePageQuery is pq as the rule list's query: the filter's, and sort,
// limit and after.
func RulePageQuery(pq redirects.RulePageQuery) url.Values {
	q := RuleFilterQuery(pq.Filter)
	if pq.Sort != "" {
		q.Set("sort", string(pq.Sort))
	}
	if pq.Limit > 0 {
		q.Set("limit", strconv.Itoa(pq.Limit))
	}
	if pq.After != "" {
		q.Set("after", pq.After)
	}
	return q
}

// ruleTime is t as the rule routes write a time: RFC 3339 in UTC, to the
// second.
func ruleTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// exactRuleTime is ruleTime keeping the fraction of a second (a last hit).
func exactRuleTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// parseRuleTime reads a time the rule routes wrote; a malformed one is the
// zero time.
func parseRuleTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}
