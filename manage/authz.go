package manage

import (
	"net/http"

	"redirects"
)

// authorize decides whether the caller may do action in organization orgID
// ("" for the whole service), with redirects.Authorize, the one place that
// decides. Every route calls it (or authorizeOrg or authorizeProject,
// which call it) before it reads or changes anything.
//
// A caller with no role in the organization gets the 404 of a missing
// organization, word for word: what other organizations hold cannot be
// told from what does not exist.
func authorize(r *http.Request, orgID string, action redirects.Action) error {
	err := redirects.Authorize(callerOf(r).principal, orgID, action)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND {
		return notFound("organization", orgID)
	}
	return err
}

// authorizeOrg authorizes action in the organization of the path's {org}
// and returns the organization.
func (h *handler) authorizeOrg(r *http.Request, action redirects.Action) (*redirects.Org, error) {
	id := r.PathValue("org")
	if err := authorize(r, id, action); err != nil {
		return nil, err
	}
	// Whoever may do an action in an organization may read it
	// (redirects.Authorize's table), so the service's read decides nothing
	// more.
	o, err := h.svc.Orgs.Org(r.Context(), id)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND {
		return nil, notFound("organization", id)
	}
	return o, err
}

// authorizeProject loads the project of the path's {project} and
// authorizes action in its organization. A project of an organization the
// caller has no role in is answered exactly as a missing project.
func (h *handler) authorizeProject(r *http.Request, action redirects.Action) (*redirects.Project, error) {
	id := r.PathValue("project")
	// The service reads the project, answering a project of an
	// organization the caller has no role in as a missing one.
	p, err := h.svc.Projects.Project(r.Context(), id)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND {
		return nil, notFound("project", id)
	} else if err != nil {
		return nil, err
	}
	if err := authorize(r, p.OrgID, action); err != nil {
		if errorFor(err).status == http.StatusNotFound {
			return nil, notFound("project", id)
		}
		return nil, err
	}
	return p, nil
}

// roleIn returns the caller's role in an organization, or "" for none.
func roleIn(r *http.Request, orgID string) redirects.Role {
	return callerOf(r).principal.Roles[orgID]
}

// orgInputErr answers err, an error of the request's own input, after the
// checks the service makes first: a caller who may not do action in the
// path's {org} gets the 404 or 403 the service answers, whatever the body,
// so a bad body tells nothing of another organization.
func (h *handler) orgInputErr(r *http.Request, action redirects.Action, err error) error {
	id := r.PathValue("org")
	if aerr := authorize(r, id, action); aerr != nil {
		return aerr
	}
	if _, aerr := h.svc.Orgs.Org(r.Context(), id); aerr != nil {
		return aerr
	}
	return err
}

// projectInputErr is orgInputErr for the project of the path's {project}.
func (h *handler) projectInputErr(r *http.Request, action redirects.Action, err error) error {
	p, aerr := h.svc.Projects.Project(r.Context(), r.PathValue("project"))
	if aerr != nil {
		return aerr
	}
	if aerr := authorize(r, p.OrgID, action); aerr != nil {
		return aerr
	}
	return err
}
