package remote

import (
	"cmp"
	"context"
	"net/url"
	"slices"
	"strconv"
	"time"

	"redirects"
	"redirects/api"
)

// Insight over the management API's routes: usage, hits, misses, the audit
// log and the sync agents' reports.

var _ redirects.InsightService = (*Client)(nil)

func insightProjectPath(projectID string) string { return "/projects/" + pathEscape(projectID) }

// FindOrgUsage implements redirects.InsightService.
func (c *Client) FindOrgUsage(ctx context.Context, orgID, month string) (*redirects.OrgUsage, error) {
	var q url.Values
	if month != "" {
		q = url.Values{"month": {month}}
	}
	var j api.OrgUsage
	if err := c.do(ctx, "GET", "/orgs/"+pathEscape(orgID)+"/usage", q, nil, "", &j); err != nil {
		return nil, err
	}
	u, err := j.Usage()
	if err != nil {
		return nil, redirects.Errorf(redirects.EINTERNAL, "the management API's usage: %s", redirects.ErrorMessage(err))
	}
	return u, nil
}

// FindUsageMonths implements redirects.InsightService: the API answers a
// month at a time, this month's first, which names the months before.
func (c *Client) FindUsageMonths(ctx context.Context, orgID string, n int) ([]redirects.MonthUsage, error) {
	this, err := c.FindOrgUsage(ctx, orgID, "")
	if err != nil {
		return nil, err
	}
	if n < 1 || n > redirects.MaxUsageMonths {
		return nil, redirects.Errorf(redirects.EINVALID, "months: %d is not between 1 and %d", n, redirects.MaxUsageMonths)
	}
	first, err := time.Parse("2006-01", this.Month)
	if err != nil {
		return nil, redirects.Errorf(redirects.EINTERNAL, "the management API's usage names the month %q", this.Month)
	}
	out := make([]redirects.MonthUsage, n)
	out[n-1] = redirects.MonthUsage{Month: this.Month, Total: this.Total}
	for i := 1; i < n; i++ {
		u, err := c.FindOrgUsage(ctx, orgID, first.AddDate(0, -i, 0).Format("2006-01"))
		if err != nil {
			return nil, err
		}
		out[n-1-i] = redirects.MonthUsage{Month: u.Month, Total: u.Total}
	}
	return out, nil
}

// FindMisses implements redirects.InsightService.
func (c *Client) FindMisses(ctx context.Context, projectID string, limit int) ([]redirects.Miss, error) {
	if limit < 1 || limit > redirects.MaxStoredMisses {
		return nil, redirects.Errorf(redirects.EINVALID, "limit %d is out of range: give 1 to %d", limit, redirects.MaxStoredMisses)
	}
	var j api.Misses
	if err := c.do(ctx, "GET", insightProjectPath(projectID)+"/misses", url.Values{"limit": {strconv.Itoa(limit)}}, nil, "", &j); err != nil {
		return nil, err
	}
	return j.Domain(projectID), nil
}

// DeleteMiss implements redirects.InsightService.
func (c *Client) DeleteMiss(ctx context.Context, projectID, path string) error {
	if path == "" {
		return redirects.Errorf(redirects.EINVALID, "the missed path to forget is missing")
	}
	return c.do(ctx, "DELETE", insightProjectPath(projectID)+"/misses", url.Values{"path": {path}}, nil, "", nil)
}

// AddRuleFromMiss implements redirects.InsightService.
func (c *Client) AddRuleFromMiss(ctx context.Context, r *redirects.Rule) error {
	mt := r.MatchType.String()
	body := api.MissRule{Path: &r.Source, Destination: &r.Destination, StatusCode: &r.StatusCode, MatchType: &mt, Priority: &r.Priority,
		PreservePath: &r.PreservePath, PreserveQuery: &r.PreserveQuery}
	if r.Host != "" {
		body.Host = &r.Host
	}
	if r.QueryAfterFragment {
		body.QueryAfterFragment = &r.QueryAfterFragment
	}
	if r.MergeQuery {
		body.MergeQuery = &r.MergeQuery
	}
	if len(r.ExceptHosts) > 0 {
		body.ExceptHosts = r.ExceptHosts
	}
	var j api.Rule
	if err := c.do(ctx, "POST", insightProjectPath(r.ProjectID)+"/misses/rule", nil, body, "", &j); err != nil {
		return err
	}
	r.ID, r.Revision, r.CreatedAt = j.ID, j.Revision, parseTime(j.CreatedAt)
	r.Host = j.Host
	return nil
}

// FindAudit implements redirects.InsightService. The API keeps each
// organization's log apart: a filter without an organization reads the
// project's, or, with neither, every organization the token reaches,
// merged (entries about no organization, such as a user's creation, are
// the operators' and not among them).
func (c *Client) FindAudit(ctx context.Context, f redirects.AuditFilter) ([]*redirects.AuditEntry, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	orgs := []string{f.OrgID}
	switch {
	case f.OrgID != "":
	case f.ProjectID != "":
		var p api.Project
		if err := c.do(ctx, "GET", insightProjectPath(f.ProjectID), nil, nil, "", &p); err != nil {
			return nil, err
		}
		orgs[0] = p.OrgID
	default:
		var err error
		if orgs, err = c.reachedOrgIDs(ctx); err != nil {
			return nil, err
		}
	}
	q := url.Values{"limit": {strconv.Itoa(f.Limit)}}
	for k, v := range map[string]string{"project": f.ProjectID, "actor": f.Actor, "action": f.Action} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if !f.Since.IsZero() {
		q.Set("since", f.Since.UTC().Format(time.RFC3339Nano))
	}
	if !f.Until.IsZero() {
		q.Set("until", f.Until.UTC().Format(time.RFC3339Nano))
	}
	if f.BeforeID > 0 {
		q.Set("before", strconv.FormatInt(f.BeforeID, 10))
	}
	var out []*redirects.AuditEntry
	for _, org := range orgs {
		var j api.AuditPage
		if err := c.do(ctx, "GET", "/orgs/"+pathEscape(org)+"/audit", q, nil, "", &j); err != nil {
			return nil, err
		}
		for _, e := range j.Entries {
			// An absent side is JSON null in the API's answer, nil in
			// the store's entry.
			if string(e.Before) == "null" {
				e.Before = nil
			}
			if string(e.After) == "null" {
				e.After = nil
			}
		}
		out = append(out, j.Entries...)
	}
	slices.SortFunc(out, func(a, b *redirects.AuditEntry) int { return cmp.Compare(b.ID, a.ID) })
	if len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

// FindAgents implements redirects.InsightService.
func (c *Client) FindAgents(ctx context.Context, projectID string) (int, []redirects.AgentReport, error) {
	j, err := Call(ctx, c, api.AgentsOp, projectID, api.None{})
	if err != nil {
		return 0, nil, err
	}
	return j.LiveVersion, j.Reports(projectID), nil
}

// DeleteAgents implements redirects.InsightService.
func (c *Client) DeleteAgents(ctx context.Context, projectID string, f redirects.AgentFilter) (int, error) {
	if err := f.Validate(); err != nil {
		return 0, err
	}
	q := url.Values{}
	if f.Agent != "" {
		q.Set("agent", f.Agent)
	}
	if f.Format != "" {
		q.Set("format", f.Format)
	}
	var j api.AgentsDeleted
	if err := c.do(ctx, "DELETE", insightProjectPath(projectID)+"/agents", q, nil, "", &j); err != nil {
		return 0, err
	}
	return j.Deleted, nil
}
