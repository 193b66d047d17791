package manage

import (
	"net/http"

	"redirects"
	"redirects/api"
)

// projectDetailJSON is one project with what a person needs next: the
// live version, the last deployment and the number of draft rules.
type projectDetailJSON = api.ProjectDetail

func (h *handler) projectList(w http.ResponseWriter, r *http.Request) error {
	ps, err := h.svc.Projects.Projects(r.Context(), r.PathValue("org"))
	if err != nil {
		return err
	}
	out := api.Projects{Projects: make([]api.Project, 0, len(ps))}
	for _, p := range ps {
		out.Projects = append(out.Projects, api.ProjectOf(p))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (h *handler) projectCreate(w http.ResponseWriter, r *http.Request) error {
	var req api.ProjectRequest
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return h.orgInputErr(r, redirects.ActionManageProjects, err)
	}
	if req.Name == nil {
		return h.orgInputErr(r, redirects.ActionManageProjects, missingField("name"))
	}
	for _, f := range []struct {
		name  string
		given bool
	}{{"shrinkLimit", req.ShrinkLimit != nil}, {"caseSensitive", req.CaseSensitive != nil}, {"trailingSlash", req.TrailingSlash != nil}, {"requireStage", req.RequireStage != nil}} {
		if f.given {
			return h.orgInputErr(r, redirects.ActionManageProjects, newError(http.StatusBadRequest, codeUnknownField, "the field %q is not one of this request's fields", f.name))
		}
	}
	p := &redirects.Project{OrgID: r.PathValue("org"), Name: *req.Name}
	if req.KeepExports != nil {
		if err := redirects.ValidateExportRetention(*req.KeepExports); err != nil {
			return h.orgInputErr(r, redirects.ActionManageProjects, err)
		}
		p.ExportRetention = *req.KeepExports
	}
	if req.Hosts != nil {
		p.Hosts = *req.Hosts
	}
	if err := h.svc.Projects.CreateProject(r.Context(), p); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, api.ProjectOf(p))
	return nil
}

func (h *handler) projectGet(w http.ResponseWriter, r *http.Request) error {
	o, err := h.svc.Projects.ProjectOverview(r.Context(), r.PathValue("project"))
	if err != nil {
		return err
	}
	p := o.Project
	out := projectDetailJSON{Project: api.ProjectOf(p), ShrinkLimit: p.ShrinkLimit, RuleCount: o.RuleCount}
	if d := o.Live; d != nil {
		j := api.DeploymentOf(d)
		out.LiveVersion, out.LastDeploy = &d.Version, &j
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// projectUpdate renames a project, sets the hosts it declares, how many of
// its latest deployments keep their export files, its shrink limit, its
// matching settings and whether it takes staged deploys only: the service
// checks every field before it stores any.
func (h *handler) projectUpdate(w http.ResponseWriter, r *http.Request) error {
	var req api.ProjectRequest
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return h.projectInputErr(r, redirects.ActionManageProjects, err)
	}
	if req == (api.ProjectRequest{}) {
		return h.projectInputErr(r, redirects.ActionManageProjects, missingField("name"))
	}
	u, err := req.Update()
	if err != nil {
		return h.projectInputErr(r, redirects.ActionManageProjects, err)
	}
	p, err := h.svc.Projects.UpdateProject(r.Context(), r.PathValue("project"), u)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.ProjectOf(p))
	return nil
}

// projectDelete deletes a project with its rules, keys, deployments and
// exports, with its name typed back.
func (h *handler) projectDelete(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("project")
	confirm, given, err := h.confirmation(w, r)
	if err != nil {
		return h.projectInputErr(r, redirects.ActionManageProjects, err)
	}
	if err := h.svc.Projects.DeleteProject(r.Context(), id, confirm); err != nil {
		return confirmErr(err, given, "project", id)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
