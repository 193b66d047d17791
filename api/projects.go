package api

import "redirects"

// Project is a project as the API answers one.
type Project struct {
	ID        string `json:"id"`
	OrgID     string `json:"orgId"`
	Name      string `json:"name"`
	CreatedAt string `json:"createdAt"`
	// KeepExports is how many of the latest deployments keep their export
	// files; older ones are rendered again on demand.
	KeepExports int `json:"keepExports"`
	// Hosts are the host names the project declares, [] for none.
	Hosts []string `json:"hosts"`
	// CaseSensitive and TrailingSlash are the draft's matching settings
	// (docs/contract.md#rule-options); the next deploy freezes them.
	CaseSensitive bool   `json:"caseSensitive"`
	TrailingSlash string `json:"trailingSlash"`
	// RequireStage refuses deploys that are not staged
	// (docs/contract.md#staged-deploys).
	RequireStage bool `json:"requireStage"`
}

// ProjectOf returns the shape of p.
func ProjectOf(p *redirects.Project) Project {
	hosts := p.Hosts
	if hosts == nil {
		hosts = []string{}
	}
	return Project{ID: p.ID, OrgID: p.OrgID, Name: p.Name, CreatedAt: orgTime(p.CreatedAt), KeepExports: p.ExportRetention, Hosts: hosts,
		CaseSensitive: p.Settings.CaseSensitive(), TrailingSlash: p.Settings.TrailingSlash(), RequireStage: p.RequireStage}
}

// ToProject returns the project j shows; the shrink limit and the live
// version are ProjectDetail's.
func (j *Project) ToProject() *redirects.Project {
	p := &redirects.Project{ID: j.ID, OrgID: j.OrgID, Name: j.Name, CreatedAt: parseOrgTime(j.CreatedAt),
		ExportRetention: j.KeepExports, Hosts: j.Hosts, ShrinkLimit: redirects.DefaultShrinkLimit, RequireStage: j.RequireStage,
		Settings: redirects.Settings{CaseInsensitive: !j.CaseSensitive, IgnoreTrailingSlash: j.TrailingSlash == "ignore"}}
	if len(p.Hosts) == 0 {
		p.Hosts = nil
	}
	return p
}

// Projects is the answer of GET /orgs/{org}/projects.
type Projects struct {
	Projects []Project `json:"projects"`
}

// ProjectDetail is one project with what a person needs next: the answer
// of GET /projects/{project}.
type ProjectDetail struct {
	Project
	// LiveVersion is the live version (the latest deployed one, unless
	// versions are staged: docs/contract.md#staged-deploys), or null while
	// none is live.
	LiveVersion *int `json:"liveVersion"`
	// LastDeploy is the live deployment, or null.
	LastDeploy *Deployment `json:"lastDeploy"`
	RuleCount  int         `json:"ruleCount"`
	// ShrinkLimit is the percentage of the live rules a deploy may remove
	// without allowShrink.
	ShrinkLimit int `json:"shrinkLimit"`
}

// ToProject returns the project j shows, with its shrink limit and live
// version.
func (j *ProjectDetail) ToProject() *redirects.Project {
	p := j.Project.ToProject()
	p.ShrinkLimit = j.ShrinkLimit
	if j.LiveVersion != nil {
		p.LiveVersion = *j.LiveVersion
	}
	return p
}

// ProjectRow is the command line's project list --json element: a
// project with its live version (0: none).
type ProjectRow struct {
	ID          string   `json:"id"`
	OrgID       string   `json:"orgId"`
	Name        string   `json:"name"`
	CreatedAt   string   `json:"createdAt"`
	KeepExports int      `json:"keepExports"`
	Hosts       []string `json:"hosts"`
	// CaseSensitive and TrailingSlash are the draft's matching settings.
	CaseSensitive bool   `json:"caseSensitive"`
	TrailingSlash string `json:"trailingSlash"`
	LiveVersion   int    `json:"liveVersion"`
	RequireStage  bool   `json:"requireStage"`
}

// ProjectRowOf returns the list shape of p.
func ProjectRowOf(p *redirects.Project) ProjectRow {
	j := ProjectOf(p)
	return ProjectRow{ID: j.ID, OrgID: j.OrgID, Name: j.Name, CreatedAt: j.CreatedAt, KeepExports: j.KeepExports, Hosts: j.Hosts,
		CaseSensitive: j.CaseSensitive, TrailingSlash: j.TrailingSlash, LiveVersion: p.LiveVersion, RequireStage: j.RequireStage}
}

// ProjectRequest is the body of POST /orgs/{org}/projects (name,
// keepExports, hosts) and of PATCH /projects/{project} (any of them).
type ProjectRequest struct {
	Name        *string   `json:"name,omitempty"`
	KeepExports *int      `json:"keepExports,omitempty"`
	Hosts       *[]string `json:"hosts,omitempty"`
	// ShrinkLimit, CaseSensitive, TrailingSlash and RequireStage are
	// taken by PATCH only.
	ShrinkLimit   *int    `json:"shrinkLimit,omitempty"`
	CaseSensitive *bool   `json:"caseSensitive,omitempty"`
	TrailingSlash *string `json:"trailingSlash,omitempty"`
	RequireStage  *bool   `json:"requireStage,omitempty"`
}

// Update returns the update r asks for; a trailingSlash that is neither
// exact nor ignore is EINVALID.
func (r *ProjectRequest) Update() (redirects.ProjectUpdate, error) {
	u := redirects.ProjectUpdate{Name: r.Name, Hosts: r.Hosts, ExportRetention: r.KeepExports, ShrinkLimit: r.ShrinkLimit, RequireStage: r.RequireStage}
	if r.CaseSensitive != nil {
		ci := !*r.CaseSensitive
		u.CaseInsensitive = &ci
	}
	if r.TrailingSlash != nil {
		ignore, err := redirects.ParseTrailingSlash(*r.TrailingSlash)
		if err != nil {
			return u, err
		}
		u.IgnoreTrailingSlash = &ignore
	}
	return u, nil
}

// ProjectRequestOf returns the request of update u.
func ProjectRequestOf(u redirects.ProjectUpdate) ProjectRequest {
	r := ProjectRequest{Name: u.Name, Hosts: u.Hosts, KeepExports: u.ExportRetention, ShrinkLimit: u.ShrinkLimit, RequireStage: u.RequireStage}
	if r.Hosts != nil && *r.Hosts == nil {
		none := []string{}
		r.Hosts = &none
	}
	if u.CaseInsensitive != nil {
		cs := !*u.CaseInsensitive
		r.CaseSensitive = &cs
	}
	if u.IgnoreTrailingSlash != nil {
		ts := "exact"
		if *u.IgnoreTrailingSlash {
			ts = "ignore"
		}
		r.TrailingSlash = &ts
	}
	return r
}
