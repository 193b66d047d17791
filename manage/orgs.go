package manage

import (
	"encoding/json"
	"net/http"
	"strconv"

	"redirects"
)

// orgJSON is an organization as the API shows one: the CLI's org list
// --json shape, with the caller's role in it.
type orgJSON struct {
	ID                string  `json:"id"`
	Name              string  `json:"name"`
	Tier              string  `json:"tier"`
	RateLimit         string  `json:"rateLimit"`
	MonthlyQuota      string  `json:"monthlyQuota"`
	RateLimitOverride bool    `json:"rateLimitOverride"`
	QuotaOverride     bool    `json:"monthlyQuotaOverride"`
	CreatedAt         string  `json:"createdAt"`
	Role              *string `json:"role"`
}

func toOrgJSON(r *http.Request, o *redirects.Org) orgJSON {
	j := orgJSON{ID: o.ID, Name: o.Name, Tier: string(o.Tier), RateLimit: o.RateLimit().String(),
		MonthlyQuota: o.MonthlyQuota().String(), RateLimitOverride: o.RateLimitOverride != nil,
		QuotaOverride: o.QuotaOverride != nil, CreatedAt: formatTime(o.CreatedAt)}
	if role := roleIn(r, o.ID); role != "" {
		s := string(role)
		j.Role = &s
	}
	return j
}

// limitValue is a rate limit or quota in a request: a whole number >= 0 or
// "unlimited", as a JSON number or string; "default" (or null) in an
// update drops the override.
type limitValue struct {
	set   bool
	clear bool
	value redirects.Limit
}

func (l *limitValue) UnmarshalJSON(b []byte) error {
	l.set = true
	if string(b) == "null" {
		l.clear = true
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		s = string(b)
	}
	if s == "default" {
		l.clear = true
		return nil
	}
	v, err := redirects.ParseLimit("limit", s)
	if err != nil {
		return redirects.Errorf(redirects.EINVALID, "a limit must be a whole number >= 0, \"unlimited\" or \"default\", not %s", strconv.Quote(s))
	}
	l.value = v
	return nil
}

// orgList answers the organizations the caller has a role in; every one
// for an operator.
func (h *handler) orgList(w http.ResponseWriter, r *http.Request) error {
	orgs, err := h.store.FindOrgs(r.Context())
	if err != nil {
		return err
	}
	out := make([]orgJSON, 0, len(orgs))
	for _, o := range orgs {
		if authorize(r, o.ID, redirects.ActionRead) == nil {
			out = append(out, toOrgJSON(r, o))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"orgs": out})
	return nil
}

type orgCreateRequest struct {
	Name         *string    `json:"name"`
	Tier         *string    `json:"tier"`
	RateLimit    limitValue `json:"rateLimit"`
	MonthlyQuota limitValue `json:"monthlyQuota"`
}

// orgCreate creates an organization: operators.
func (h *handler) orgCreate(w http.ResponseWriter, r *http.Request) error {
	if err := authorize(r, "", redirects.ActionManageOrgs); err != nil {
		return err
	}
	var req orgCreateRequest
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return err
	}
	if req.Name == nil {
		return missingField("name")
	}
	if req.Tier == nil {
		return missingField("tier")
	}
	t, err := redirects.ParseTier(*req.Tier)
	if err != nil {
		return err
	}
	o := &redirects.Org{Name: *req.Name, Tier: t}
	if req.RateLimit.set && !req.RateLimit.clear {
		o.RateLimitOverride = &req.RateLimit.value
	}
	if req.MonthlyQuota.set && !req.MonthlyQuota.clear {
		o.QuotaOverride = &req.MonthlyQuota.value
	}
	if err := o.Validate(); err != nil {
		return err
	}
	if err := h.store.CreateOrg(r.Context(), o); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, toOrgJSON(r, o))
	return nil
}

func (h *handler) orgGet(w http.ResponseWriter, r *http.Request) error {
	o, err := h.authorizeOrg(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toOrgJSON(r, o))
	return nil
}

type orgUpdateRequest struct {
	Name         *string    `json:"name"`
	Tier         *string    `json:"tier"`
	RateLimit    limitValue `json:"rateLimit"`
	MonthlyQuota limitValue `json:"monthlyQuota"`
}

// orgUpdate changes an organization's name, tier and limit overrides:
// operators.
func (h *handler) orgUpdate(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authorizeOrg(r, redirects.ActionManageOrgs); err != nil {
		return err
	}
	var req orgUpdateRequest
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return err
	}
	var u redirects.OrgUpdate
	u.Name = req.Name
	if req.Tier != nil {
		t, err := redirects.ParseTier(*req.Tier)
		if err != nil {
			return err
		}
		u.Tier = &t
	}
	if req.RateLimit.set {
		u.ClearRateLimit = req.RateLimit.clear
		if !req.RateLimit.clear {
			u.RateLimit = &req.RateLimit.value
		}
	}
	if req.MonthlyQuota.set {
		u.ClearQuota = req.MonthlyQuota.clear
		if !req.MonthlyQuota.clear {
			u.MonthlyQuota = &req.MonthlyQuota.value
		}
	}
	if u.Name == nil && u.Tier == nil && !req.RateLimit.set && !req.MonthlyQuota.set {
		return redirects.Errorf(redirects.EINVALID, "an update needs at least one of name, tier, rateLimit, monthlyQuota")
	}
	o, err := h.store.UpdateOrg(r.Context(), r.PathValue("org"), u)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toOrgJSON(r, o))
	return nil
}

// confirmRequest is the body of a deletion: the name typed back.
type confirmRequest struct {
	Confirm *string `json:"confirm"`
}

// confirmName reads the confirmation of a deletion and checks it.
func (h *handler) confirmName(w http.ResponseWriter, r *http.Request, what, id, name string) error {
	var req confirmRequest
	if err := h.decodeJSON(w, r, &req, true); err != nil {
		return err
	}
	if req.Confirm == nil {
		return newError(http.StatusBadRequest, codeConfirm, "deleting %s %s needs {\"confirm\": \"<its name>\"}: nothing was deleted", what, id)
	}
	if err := redirects.ConfirmName(what, id, name, *req.Confirm); err != nil {
		return newError(http.StatusBadRequest, codeConfirm, "%s", redirects.ErrorMessage(err))
	}
	return nil
}

// orgDelete deletes an organization with its projects: operators, with
// its name typed back.
func (h *handler) orgDelete(w http.ResponseWriter, r *http.Request) error {
	o, err := h.authorizeOrg(r, redirects.ActionManageOrgs)
	if err != nil {
		return err
	}
	if err := h.confirmName(w, r, "organization", o.ID, o.Name); err != nil {
		return err
	}
	if err := h.store.DeleteOrg(r.Context(), o.ID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
