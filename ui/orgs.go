package ui

import (
	"net/http"
	"strconv"

	"redirects"
)

// authorize asks redirects.Authorize, the one place that decides, whether
// the user may do action in organization orgID. An organization the user
// has no role in reads as a missing one, as in the API.
func authorize(r *http.Request, orgID string, action redirects.Action) error {
	err := redirects.Authorize(viewerOf(r).principal, orgID, action)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND {
		return errNotFound("organization")
	}
	return err
}

// may reports whether the user may do action in orgID, to show a control.
func may(r *http.Request, orgID string, action redirects.Action) bool {
	return redirects.Authorize(viewerOf(r).principal, orgID, action) == nil
}

// home goes to the user's first organization, or says what to do when
// there is none.
func (h *handler) home(w http.ResponseWriter, r *http.Request) error {
	orgs, err := h.visibleOrgs(r)
	if err != nil {
		return err
	}
	if len(orgs) > 0 {
		http.Redirect(w, r, "/orgs/"+orgs[0].ID, http.StatusSeeOther)
		return nil
	}
	return h.render(w, r, http.StatusOK, "home", &page{Title: "No organization yet"})
}

// projectRow is one project of an organization's list.
type projectRow struct {
	Project *redirects.Project
	Rules   int
	Live    *deployInfo
}

// deployInfo is a deployment and who made it, from the audit log.
type deployInfo struct {
	*redirects.Deployment
	By string
}

type orgData struct {
	Projects      []projectRow
	CanCreate     bool
	Role          string
	ProjectName   string
	ProjectNameOK bool
}

// orgPage lists an organization's projects with their live version, rule
// count and last deploy.
func (h *handler) orgPage(w http.ResponseWriter, r *http.Request) error {
	o, err := h.org(r, r.PathValue("org"))
	if err != nil {
		return err
	}
	ctx := r.Context()
	ps, err := h.svc.Projects.Projects(ctx, o.ID)
	if err != nil {
		return err
	}
	d := orgData{CanCreate: may(r, o.ID, redirects.ActionManageProjects), Role: string(viewerOf(r).principal.Roles[o.ID])}
	if d.Role == "" {
		d.Role = "operator"
	}
	for _, p := range ps {
		row := projectRow{Project: p}
		page, err := h.svc.Rules.FindRulePage(ctx, p.ID, redirects.RulePageQuery{Limit: 1})
		if err != nil {
			return err
		}
		row.Rules = page.Total
		if row.Live, err = h.live(r, p); err != nil {
			return err
		}
		d.Projects = append(d.Projects, row)
	}
	return h.render(w, r, http.StatusOK, "org", &page{Title: o.Name, Org: o, Data: d})
}

// org loads an organization the user may read.
func (h *handler) org(r *http.Request, id string) (*redirects.Org, error) {
	o, err := h.svc.Orgs.Org(r.Context(), id)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND {
		return nil, errNotFound("organization")
	}
	return o, err
}

// live returns the latest deployment of a project and who made it, or nil
// before the first deploy.
func (h *handler) live(r *http.Request, p *redirects.Project) (*deployInfo, error) {
	// FindDeployments reads metadata only; FindDeployment would also
	// decode the version's rules, a million of them on a large project,
	// on every page.
	ds, err := h.svc.Deploys.Deployments(r.Context(), p.ID)
	if err != nil {
		return nil, err
	}
	// The live version is the one the project's live pointer names
	// (docs/contract.md#staged-deploys); a project whose versions are all
	// staged has none.
	var d *redirects.Deployment
	for _, x := range ds {
		if x.Live {
			d = x
		}
	}
	if d == nil {
		return nil, nil
	}
	authors, err := h.deployAuthors(r, p, len(ds)-d.Version+1)
	if err != nil {
		return nil, err
	}
	return &deployInfo{Deployment: d, By: authors[d.Version]}, nil
}

// deployAuthors returns who made the latest n deployments of a project,
// by version, from the audit log (the API's GET /orgs/{org}/audit reads
// the same entries): the oldest deployment.* entry of each version, its
// deploy or its staging, read among the newest 3n such entries (promotes
// and discards are entries too).
func (h *handler) deployAuthors(r *http.Request, p *redirects.Project, n int) (map[int]string, error) {
	es, err := h.svc.Insight.FindAudit(r.Context(), redirects.AuditFilter{OrgID: p.OrgID, ProjectID: p.ID, Action: "deployment.*", Limit: min(max(3*n, 1), redirects.MaxAuditLimit)})
	if err != nil {
		return nil, err
	}
	out := make(map[int]string, len(es))
	prefix := p.ID + "@"
	for _, e := range es {
		if len(e.ObjectID) > len(prefix) && e.ObjectID[:len(prefix)] == prefix {
			if v, err := strconv.Atoi(e.ObjectID[len(prefix):]); err == nil {
				out[v] = e.Actor.Label
				if out[v] == "" {
					out[v] = string(e.Actor.Kind)
				}
			}
		}
	}
	return out, nil
}

// projectCreate creates a project in an organization.
func (h *handler) projectCreate(w http.ResponseWriter, r *http.Request) error {
	orgID := r.PathValue("org")
	p := &redirects.Project{OrgID: orgID, Name: r.PostFormValue("name")}
	if err := h.svc.Projects.CreateProject(r.Context(), p); err != nil {
		switch {
		case redirects.ErrorCode(err) == redirects.ENOTFOUND:
			return errNotFound("organization")
		case redirects.ErrorCode(err) == redirects.EINVALID:
			return h.redirect(w, r, "/orgs/"+orgID, flashErr, "Project name: "+message(err))
		case statusOf(err) < 500 && redirects.ErrorCode(err) != redirects.EFORBIDDEN:
			return h.redirect(w, r, "/orgs/"+orgID, flashErr, message(err))
		}
		return err
	}
	return h.redirect(w, r, "/projects/"+p.ID+"/rules", flashOK, "Created project "+p.Name+". Add rules (or import a CSV), then deploy to make them live.")
}

// projectHeader is what every project page shows on top.
type projectHeader struct {
	*redirects.Project
	Live *deployInfo
	// DraftChanged says a draft rule changed after the live deploy, or
	// the draft's matching settings differ from the live version's.
	DraftChanged bool
	// Tabs are the tabs built, in the dashboard's order.
	Tabs []tab
}

type tab struct{ Name, Path string }

// projectTabs are the project's tabs, in the order the design keeps.
var projectTabs = []tab{{"Rules", "rules"}, {"Import", "import"}, {"Deploy", "deploy"}, {"History", "history"}, {"Test a path", "test"}, {"Misses", "misses"}, {"API Keys", "keys"}, {"Settings", "settings"}}

// project loads the project of the path, authorizes action in its
// organization, and returns the header and organization of its pages.
func (h *handler) project(r *http.Request, action redirects.Action) (*projectHeader, *redirects.Org, error) {
	p, err := h.svc.Projects.Project(r.Context(), r.PathValue("project"))
	if redirects.ErrorCode(err) == redirects.ENOTFOUND {
		return nil, nil, errNotFound("project")
	} else if err != nil {
		return nil, nil, err
	}
	// The page's own action: the service of each operation the page
	// leads to decides again.
	if err := authorize(r, p.OrgID, action); err != nil {
		return nil, nil, err
	}
	o, err := h.svc.Orgs.Org(r.Context(), p.OrgID)
	if err != nil {
		return nil, nil, err
	}
	ph := &projectHeader{Project: p, Tabs: projectTabs}
	if ph.Live, err = h.live(r, p); err != nil {
		return nil, nil, err
	}
	if ph.Live != nil {
		// Whether the draft changed since the deploy, from the newest rule
		// change in the audit log: one indexed row. How much changed is
		// the Deploy tab's diff, which reads every rule.
		es, err := h.svc.Insight.FindAudit(r.Context(), redirects.AuditFilter{OrgID: p.OrgID, ProjectID: p.ID, Action: "rule.*", Limit: 1})
		if err != nil {
			return nil, nil, err
		}
		ph.DraftChanged = len(es) > 0 && es[0].Time.After(ph.Live.CreatedAt) || p.Settings != ph.Live.Settings
	}
	return ph, o, nil
}

// projectPage opens a project on its first tab.
func (h *handler) projectPage(w http.ResponseWriter, r *http.Request) error {
	if _, _, err := h.project(r, redirects.ActionRead); err != nil {
		return err
	}
	http.Redirect(w, r, "/projects/"+r.PathValue("project")+"/rules", http.StatusSeeOther)
	return nil
}
