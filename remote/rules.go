package remote

import (
	"context"
	"net/url"
	"strconv"

	"redirects"
	"redirects/api"
	"redirects/engine"
)

var _ redirects.RuleService = (*Client)(nil)

// rulesPath is the path of project projectID's rules.
func rulesPath(projectID string) string { return "/projects/" + pathEscape(projectID) + "/rules" }

// rulePath is the path of one rule of project projectID.
func rulePath(projectID string, id int64) string {
	return rulesPath(projectID) + "/" + strconv.FormatInt(id, 10)
}

// AddRule adds r through POST .../rules.
func (c *Client) AddRule(ctx context.Context, r *redirects.Rule) error {
	var j api.Rule
	if err := c.do(ctx, "POST", rulesPath(r.ProjectID), nil, api.RuleCreateOf(r), "", &j); err != nil {
		return err
	}
	*r = j.Rule(r.ProjectID)
	return nil
}

// FindRule reads one rule through GET .../rules/{id}.
func (c *Client) FindRule(ctx context.Context, projectID string, id int64) (*redirects.Rule, error) {
	var j api.Rule
	if err := c.do(ctx, "GET", rulePath(projectID, id), nil, nil, "", &j); err != nil {
		return nil, err
	}
	r := j.Rule(projectID)
	return &r, nil
}

// FindRulePage reads one page through GET .../rules.
func (c *Client) FindRulePage(ctx context.Context, projectID string, q redirects.RulePageQuery) (*redirects.RulePage, error) {
	var j api.RulePage
	if err := c.do(ctx, "GET", rulesPath(projectID), api.RulePageQuery(q), nil, "", &j); err != nil {
		return nil, err
	}
	return j.Page(projectID), nil
}

// FindDraft reads the project, then every page of its rules, and orders
// them as the store does (engine.SortRules), without revisions.
func (c *Client) FindDraft(ctx context.Context, projectID string) (*redirects.Project, []redirects.Rule, error) {
	p, err := c.Project(ctx, projectID)
	if err != nil {
		return nil, nil, err
	}
	var out []redirects.Rule
	q := redirects.RulePageQuery{Sort: "id", Limit: 1000}
	for {
		page, err := c.FindRulePage(ctx, p.ID, q)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range page.Rules {
			r.Revision = 0 // as the store's FindRules leaves it
			out = append(out, r)
		}
		if page.Next == "" {
			break
		}
		q.After = page.Next
	}
	engine.SortRules(out)
	return p, out, nil
}

// UpdateRule changes a rule through PATCH .../rules/{id}.
func (c *Client) UpdateRule(ctx context.Context, projectID string, id int64, u redirects.RuleUpdate) (*redirects.Rule, error) {
	var j api.Rule
	if err := c.do(ctx, "PATCH", rulePath(projectID, id), nil, api.RuleUpdateOf(u), "", &j); err != nil {
		return nil, err
	}
	r := j.Rule(projectID)
	return &r, nil
}

// DeleteRule deletes a rule through DELETE .../rules/{id}, with the
// revision in the body when one is given.
func (c *Client) DeleteRule(ctx context.Context, projectID string, id, revision int64) error {
	var body any
	if revision != 0 {
		body = api.RuleDelete{Revision: &revision}
	}
	return c.do(ctx, "DELETE", rulePath(projectID, id), nil, body, "", nil)
}

// DeleteRules deletes every rule f selects through DELETE
// .../rules?confirm=true.
func (c *Client) DeleteRules(ctx context.Context, projectID string, f redirects.RuleFilter) (int, error) {
	q := api.RuleFilterQuery(f)
	q.Set("confirm", "true")
	var j api.RulesDeleted
	err := c.do(ctx, "DELETE", rulesPath(projectID), q, nil, "", &j)
	return j.Deleted, err
}

// FlattenChains reads the report through GET .../chains, or flattens
// through POST .../chains/flatten with opts.Write.
func (c *Client) FlattenChains(ctx context.Context, projectID string, opts redirects.FlattenOptions) (*redirects.FlattenReport, error) {
	method, path := "GET", "/projects/"+pathEscape(projectID)+"/chains"
	if opts.Write {
		method, path = "POST", path+"/flatten"
	}
	var q url.Values
	for _, h := range opts.Hosts {
		if q == nil {
			q = url.Values{}
		}
		q.Add("host", h)
	}
	var j api.FlattenReport
	if err := c.do(ctx, method, path, q, nil, "", &j); err != nil {
		return nil, err
	}
	return j.Report(projectID), nil
}
