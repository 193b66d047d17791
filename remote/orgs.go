package remote

import (
	"context"
	"encoding/json"

	"redirects"
	"redirects/api"
)

var _ redirects.OrgService = (*Client)(nil)

// Orgs returns the organizations the token may read: its own.
func (c *Client) Orgs(ctx context.Context) ([]*redirects.Org, error) {
	var j api.Orgs
	if err := c.do(ctx, "GET", "/orgs", nil, nil, "", &j); err != nil {
		return nil, err
	}
	out := make([]*redirects.Org, len(j.Orgs))
	for i := range j.Orgs {
		out[i] = j.Orgs[i].ToOrg()
	}
	return out, nil
}

// CreateOrg creates organization o: an operator's, which a management
// token never is.
func (c *Client) CreateOrg(ctx context.Context, o *redirects.Org) error {
	name, tier := o.Name, string(o.Tier)
	req := api.OrgRequest{Name: &name, Tier: &tier}
	if o.RateLimitOverride != nil {
		req.RateLimit = api.LimitOf(o.RateLimitOverride)
	}
	if o.QuotaOverride != nil {
		req.MonthlyQuota = api.LimitOf(o.QuotaOverride)
	}
	var j api.OrgOfCaller
	if err := c.do(ctx, "POST", "/orgs", nil, req, "", &j); err != nil {
		return err
	}
	*o = *j.ToOrg()
	return nil
}

// Org returns one organization.
func (c *Client) Org(ctx context.Context, id string) (*redirects.Org, error) {
	var j api.OrgOfCaller
	if err := c.do(ctx, "GET", "/orgs/"+pathEscape(id), nil, nil, "", &j); err != nil {
		return nil, err
	}
	return j.ToOrg(), nil
}

// RoleIn returns the caller's role in organization id, as the API answers
// it: "" for none (an operator who is not a member). Errors: ENOTFOUND,
// also for an organization the caller has no role in.
func (c *Client) RoleIn(ctx context.Context, id string) (redirects.Role, error) {
	var j api.OrgOfCaller
	if err := c.do(ctx, "GET", "/orgs/"+pathEscape(id), nil, nil, "", &j); err != nil {
		return "", err
	}
	if j.Role == nil {
		return "", nil
	}
	return redirects.ParseRole(*j.Role)
}

// UpdateOrg changes an organization.
func (c *Client) UpdateOrg(ctx context.Context, id string, u redirects.OrgUpdate) (*redirects.Org, error) {
	var req api.OrgRequest
	req.Name = u.Name
	if u.Tier != nil {
		t := string(*u.Tier)
		req.Tier = &t
	}
	if u.RateLimit != nil || u.ClearRateLimit {
		req.RateLimit = api.LimitOf(u.RateLimit)
	}
	if u.MonthlyQuota != nil || u.ClearQuota {
		req.MonthlyQuota = api.LimitOf(u.MonthlyQuota)
	}
	var j api.OrgOfCaller
	if err := c.do(ctx, "PATCH", "/orgs/"+pathEscape(id), nil, req, "", &j); err != nil {
		return nil, err
	}
	return j.ToOrg(), nil
}

// DeleteOrg deletes an organization, its name typed back.
func (c *Client) DeleteOrg(ctx context.Context, id, confirm string) error {
	return c.deleteConfirmed(ctx, "/orgs/"+pathEscape(id), confirm)
}

// deleteConfirmed sends the deletion at path with the name typed back. The
// API's refusal of the name is marked as the service layer marks it
// (redirects.ErrNotConfirmed).
func (c *Client) deleteConfirmed(ctx context.Context, path, confirm string) error {
	status, data, err := c.send(ctx, "DELETE", path, nil, api.Confirm{Confirm: &confirm}, "")
	if err != nil {
		return err
	}
	if status < 400 {
		return nil
	}
	err = c.apiError(status, "DELETE", path, data)
	var e api.Error
	if json.Unmarshal(data, &e) == nil && e.Code == "CONFIRMATION_MISMATCH" {
		return redirects.Mark(err, redirects.ErrNotConfirmed)
	}
	return err
}
