package remote

import (
	"context"

	"redirects"
	"redirects/api"
)

var _ redirects.ProjectService = (*Client)(nil)

// Projects returns the projects of an organization, or of every one the
// token may read, each with its shrink limit and live version (which the
// API's list leaves out).
func (c *Client) Projects(ctx context.Context, orgID string) ([]*redirects.Project, error) {
	orgs := []string{orgID}
	if orgID == "" {
		os, err := c.Orgs(ctx)
		if err != nil {
			return nil, err
		}
		orgs = orgs[:0]
		for _, o := range os {
			orgs = append(orgs, o.ID)
		}
	}
	var out []*redirects.Project
	for _, id := range orgs {
		var j api.Projects
		if err := c.do(ctx, "GET", "/orgs/"+pathEscape(id)+"/projects", nil, nil, "", &j); err != nil {
			return nil, err
		}
		for i := range j.Projects {
			full, err := c.Project(ctx, j.Projects[i].ID)
			if err != nil {
				return nil, err
			}
			out = append(out, full)
		}
	}
	return out, nil
}

// CreateProject creates project p in its organization.
func (c *Client) CreateProject(ctx context.Context, p *redirects.Project) error {
	req := api.ProjectRequest{Name: &p.Name}
	if p.ExportRetention > 0 {
		req.KeepExports = &p.ExportRetention
	}
	if len(p.Hosts) > 0 {
		req.Hosts = &p.Hosts
	}
	var j api.Project
	if err := c.do(ctx, "POST", "/orgs/"+pathEscape(p.OrgID)+"/projects", nil, req, "", &j); err != nil {
		return err
	}
	*p = *j.ToProject()
	return nil
}

// Project returns one project.
func (c *Client) Project(ctx context.Context, id string) (*redirects.Project, error) {
	o, err := c.ProjectOverview(ctx, id)
	if err != nil {
		return nil, err
	}
	return o.Project, nil
}

// ProjectOverview returns a project with its live deployment and number
// of draft rules.
func (c *Client) ProjectOverview(ctx context.Context, id string) (*redirects.ProjectOverview, error) {
	var j api.ProjectDetail
	if err := c.do(ctx, "GET", "/projects/"+pathEscape(id), nil, nil, "", &j); err != nil {
		return nil, err
	}
	o := &redirects.ProjectOverview{Project: j.ToProject(), RuleCount: j.RuleCount}
	if j.LastDeploy != nil {
		o.Live = j.LastDeploy.Deployment(id)
	}
	return o, nil
}

// UpdateProject changes a project and returns it as stored.
func (c *Client) UpdateProject(ctx context.Context, id string, u redirects.ProjectUpdate) (*redirects.Project, error) {
	if err := c.do(ctx, "PATCH", "/projects/"+pathEscape(id), nil, api.ProjectRequestOf(u), "", nil); err != nil {
		return nil, err
	}
	return c.Project(ctx, id)
}

// DeleteProject deletes a project, its name typed back.
func (c *Client) DeleteProject(ctx context.Context, id, confirm string) error {
	return c.deleteConfirmed(ctx, "/projects/"+pathEscape(id), confirm)
}
