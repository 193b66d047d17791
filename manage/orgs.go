package manage

import (
	"errors"
	"net/http"

	"redirects"
	"redirects/api"
)

// orgOf is the API's shape of organization o, with the caller's role in
// it.
func orgOf(r *http.Request, o *redirects.Org) api.OrgOfCaller {
	j := api.OrgOfCaller{Org: api.OrgOf(o)}
	if role := roleIn(r, o.ID); role != "" {
		s := string(role)
		j.Role = &s
	}
	return j
}

// orgList answers the organizations the caller has a role in; every one
// for an operator.
func (h *handler) orgList(w http.ResponseWriter, r *http.Request) error {
	orgs, err := h.svc.Orgs.Orgs(r.Context())
	if err != nil {
		return err
	}
	out := api.Orgs{Orgs: make([]api.OrgOfCaller, 0, len(orgs))}
	for _, o := range orgs {
		out.Orgs = append(out.Orgs, orgOf(r, o))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// orgCreate creates an organization: operators.
func (h *handler) orgCreate(w http.ResponseWriter, r *http.Request) error {
	var req api.OrgRequest
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return createInputErr(r, err)
	}
	if req.Name == nil {
		return createInputErr(r, missingField("name"))
	}
	if req.Tier == nil {
		return createInputErr(r, missingField("tier"))
	}
	t, err := redirects.ParseTier(*req.Tier)
	if err != nil {
		return createInputErr(r, err)
	}
	o := &redirects.Org{Name: *req.Name, Tier: t}
	if req.RateLimit.Set && !req.RateLimit.Clear {
		o.RateLimitOverride = &req.RateLimit.Value
	}
	if req.MonthlyQuota.Set && !req.MonthlyQuota.Clear {
		o.QuotaOverride = &req.MonthlyQuota.Value
	}
	if err := h.svc.Orgs.CreateOrg(r.Context(), o); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, orgOf(r, o))
	return nil
}

func (h *handler) orgGet(w http.ResponseWriter, r *http.Request) error {
	o, err := h.svc.Orgs.Org(r.Context(), r.PathValue("org"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, orgOf(r, o))
	return nil
}

// orgUpdate changes an organization's name, tier and limit overrides:
// operators.
func (h *handler) orgUpdate(w http.ResponseWriter, r *http.Request) error {
	var req api.OrgRequest
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return h.orgInputErr(r, redirects.ActionManageOrgs, err)
	}
	u, err := req.Update()
	if err != nil {
		return h.orgInputErr(r, redirects.ActionManageOrgs, err)
	}
	o, err := h.svc.Orgs.UpdateOrg(r.Context(), r.PathValue("org"), u)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, orgOf(r, o))
	return nil
}

// confirmation reads the name typed back of a deletion: "" when the body
// has none, which no name is, so that the service refuses it after it
// authorized the caller (see confirmErr).
func (h *handler) confirmation(w http.ResponseWriter, r *http.Request) (confirm string, given bool, err error) {
	var req api.Confirm
	if err := h.decodeJSON(w, r, &req, true); err != nil {
		return "", false, err
	}
	if req.Confirm == nil {
		return "", false, nil
	}
	return *req.Confirm, true, nil
}

// confirmErr answers the refusal of a deletion's name typed back with its
// own code, and says how to confirm when the body had no name.
func confirmErr(err error, given bool, what, id string) error {
	switch {
	case !errors.Is(err, redirects.ErrNotConfirmed):
		return err
	case !given:
		return newError(http.StatusBadRequest, codeConfirm, "deleting %s %s needs {\"confirm\": \"<its name>\"}: nothing was deleted", what, id)
	}
	return newError(http.StatusBadRequest, codeConfirm, "%s", redirects.ErrorMessage(err))
}

// orgDelete deletes an organization with its projects: operators, with
// its name typed back.
func (h *handler) orgDelete(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("org")
	confirm, given, err := h.confirmation(w, r)
	if err != nil {
		return h.orgInputErr(r, redirects.ActionManageOrgs, err)
	}
	if err := h.svc.Orgs.DeleteOrg(r.Context(), id, confirm); err != nil {
		return confirmErr(err, given, "organization", id)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// createInputErr answers err, an error of an organization's creation
// request, to operators only: others get the refusal the service answers.
func createInputErr(r *http.Request, err error) error {
	if aerr := authorize(r, "", redirects.ActionManageOrgs); aerr != nil {
		return aerr
	}
	return err
}
