package manage

import (
	"net/http"

	"redirects"
)

// projectJSON is a project as the API lists one: the CLI's project list
// --json shape.
type projectJSON struct {
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

func toProjectJSON(p *redirects.Project) projectJSON {
	hosts := p.Hosts
	if hosts == nil {
		hosts = []string{}
	}
	return projectJSON{ID: p.ID, OrgID: p.OrgID, Name: p.Name, CreatedAt: formatTime(p.CreatedAt), KeepExports: p.ExportRetention, Hosts: hosts,
		CaseSensitive: p.Settings.CaseSensitive(), TrailingSlash: p.Settings.TrailingSlash(), RequireStage: p.RequireStage}
}

// projectDetailJSON is one project with what a person needs next: the
// live version, the last deployment and the number of draft rules.
type projectDetailJSON struct {
	projectJSON
	// LiveVersion is the live version (the latest deployed one, unless
	// versions are staged: docs/contract.md#staged-deploys), or null while
	// none is live.
	LiveVersion *int            `json:"liveVersion"`
	LastDeploy  *deploymentJSON `json:"lastDeploy"`
	RuleCount   int             `json:"ruleCount"`
	// ShrinkLimit is the percentage of the live rules a deploy may remove
	// without allowShrink.
	ShrinkLimit int `json:"shrinkLimit"`
}

func (h *handler) projectList(w http.ResponseWriter, r *http.Request) error {
	o, err := h.authorizeOrg(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	ps, err := h.store.FindProjects(r.Context(), o.ID)
	if err != nil {
		return err
	}
	out := make([]projectJSON, 0, len(ps))
	for _, p := range ps {
		out = append(out, toProjectJSON(p))
	}
	writeJSON(w, http.StatusOK, map[string]any{"projects": out})
	return nil
}

type projectRequest struct {
	Name        *string   `json:"name"`
	KeepExports *int      `json:"keepExports"`
	Hosts       *[]string `json:"hosts"`
	// ShrinkLimit, CaseSensitive and TrailingSlash are taken by PATCH
	// only.
	ShrinkLimit   *int    `json:"shrinkLimit"`
	CaseSensitive *bool   `json:"caseSensitive"`
	TrailingSlash *string `json:"trailingSlash"`
	// RequireStage is taken by PATCH only.
	RequireStage *bool `json:"requireStage"`
}

func (h *handler) projectCreate(w http.ResponseWriter, r *http.Request) error {
	o, err := h.authorizeOrg(r, redirects.ActionManageProjects)
	if err != nil {
		return err
	}
	var req projectRequest
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return err
	}
	if req.Name == nil {
		return missingField("name")
	}
	for _, f := range []struct {
		name  string
		given bool
	}{{"shrinkLimit", req.ShrinkLimit != nil}, {"caseSensitive", req.CaseSensitive != nil}, {"trailingSlash", req.TrailingSlash != nil}, {"requireStage", req.RequireStage != nil}} {
		if f.given {
			return newError(http.StatusBadRequest, codeUnknownField, "the field %q is not one of this request's fields", f.name)
		}
	}
	p := &redirects.Project{OrgID: o.ID, Name: *req.Name}
	if req.KeepExports != nil {
		if err := redirects.ValidateExportRetention(*req.KeepExports); err != nil {
			return err
		}
		p.ExportRetention = *req.KeepExports
	}
	if req.Hosts != nil {
		p.Hosts = *req.Hosts
	}
	if err := p.Validate(); err != nil {
		return err
	}
	if err := h.store.CreateProject(r.Context(), p); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, toProjectJSON(p))
	return nil
}

func (h *handler) projectGet(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	ctx := r.Context()
	out := projectDetailJSON{projectJSON: toProjectJSON(p), ShrinkLimit: p.ShrinkLimit}
	d, _, err := h.store.FindDeployment(ctx, p.ID, 0)
	switch {
	case err == nil:
		j := toDeploymentJSON(d)
		out.LiveVersion, out.LastDeploy = &d.Version, &j
	case redirects.ErrorCode(err) != redirects.ENOTFOUND:
		return err
	}
	page, err := h.store.FindRulePage(ctx, p.ID, redirects.RulePageQuery{Limit: 1})
	if err != nil {
		return err
	}
	out.RuleCount = page.Total
	writeJSON(w, http.StatusOK, out)
	return nil
}

// projectUpdate renames a project, sets the hosts it declares, how many of
// its latest deployments keep their export files, its shrink limit and its
// matching settings. Every field is checked before any is stored, so bad
// input changes nothing; the settings, which the store refuses when they
// would make draft rules clash (ECONFLICT, listing them), are stored
// first, so a refused change of them changes nothing either.
func (h *handler) projectUpdate(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionManageProjects)
	if err != nil {
		return err
	}
	var req projectRequest
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return err
	}
	if req.Name == nil && req.KeepExports == nil && req.ShrinkLimit == nil && req.Hosts == nil && req.CaseSensitive == nil && req.TrailingSlash == nil && req.RequireStage == nil {
		return missingField("name")
	}
	settings := p.Settings
	if req.CaseSensitive != nil {
		settings.CaseInsensitive = !*req.CaseSensitive
	}
	if req.TrailingSlash != nil {
		if settings.IgnoreTrailingSlash, err = redirects.ParseTrailingSlash(*req.TrailingSlash); err != nil {
			return err
		}
	}
	if req.Name != nil {
		check := *p
		check.Name = *req.Name
		if err := check.Validate(); err != nil {
			return err
		}
	}
	if req.KeepExports != nil {
		if err := redirects.ValidateExportRetention(*req.KeepExports); err != nil {
			return err
		}
	}
	if req.ShrinkLimit != nil {
		if err := redirects.ValidateShrinkLimit(*req.ShrinkLimit); err != nil {
			return err
		}
	}
	if req.Hosts != nil {
		if _, err := redirects.NormalizeHosts(*req.Hosts); err != nil {
			return err
		}
	}
	if settings != p.Settings {
		if p, err = h.store.SetProjectSettings(r.Context(), p.ID, settings); err != nil {
			return err
		}
	}
	if req.Name != nil {
		if p, err = h.store.UpdateProject(r.Context(), p.ID, *req.Name); err != nil {
			return err
		}
	}
	if req.KeepExports != nil {
		if p, err = h.store.SetExportRetention(r.Context(), p.ID, *req.KeepExports); err != nil {
			return err
		}
	}
	if req.ShrinkLimit != nil {
		if p, err = h.store.SetProjectShrinkLimit(r.Context(), p.ID, *req.ShrinkLimit); err != nil {
			return err
		}
	}
	if req.Hosts != nil {
		if p, err = h.store.SetProjectHosts(r.Context(), p.ID, *req.Hosts); err != nil {
			return err
		}
	}
	if req.RequireStage != nil {
		if p, err = h.store.SetProjectRequireStage(r.Context(), p.ID, *req.RequireStage); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusOK, toProjectJSON(p))
	return nil
}

// projectDelete deletes a project with its rules, keys, deployments and
// exports, with its name typed back.
func (h *handler) projectDelete(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionManageProjects)
	if err != nil {
		return err
	}
	if err := h.confirmName(w, r, "project", p.ID, p.Name); err != nil {
		return err
	}
	if err := h.store.DeleteProject(r.Context(), p.ID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
