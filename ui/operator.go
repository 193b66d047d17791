package ui

import (
	"net/http"
	"strings"

	"redirects"
)

type orgsData struct {
	Orgs  []*redirects.Org
	Tiers []redirects.Tier
}

var tiers = []redirects.Tier{redirects.TierFree, redirects.TierPro, redirects.TierEnterprise}

// orgsPage lists every organization with its tier and limits, for
// operators, who create and change them.
func (h *handler) orgsPage(w http.ResponseWriter, r *http.Request) error {
	if err := authorize(r, "", redirects.ActionManageOrgs); err != nil {
		return err
	}
	all, err := h.svc.Orgs.Orgs(r.Context())
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "orgs", &page{Title: "Organizations", Data: orgsData{Orgs: all, Tiers: tiers}})
}

// limitField reads an override: "" is the tier's default (nil), else a
// number or "unlimited".
func limitField(r *http.Request, name, label string) (*redirects.Limit, error) {
	s := strings.TrimSpace(r.PostFormValue(name))
	if s == "" {
		return nil, nil
	}
	l, err := redirects.ParseLimit(label, strings.ReplaceAll(s, ",", ""))
	if err != nil {
		return nil, err
	}
	return &l, nil
}

// orgCreate creates an organization.
func (h *handler) orgCreate(w http.ResponseWriter, r *http.Request) error {
	// The form's own checks answer an operator only.
	if err := authorize(r, "", redirects.ActionManageOrgs); err != nil {
		return err
	}
	back := "/operator/orgs"
	t, err := redirects.ParseTier(r.PostFormValue("tier"))
	if err != nil {
		return h.redirect(w, r, back, flashErr, "Tier: "+message(err))
	}
	o := &redirects.Org{Name: r.PostFormValue("name"), Tier: t}
	if o.RateLimitOverride, err = limitField(r, "rate", "rate limit"); err == nil {
		o.QuotaOverride, err = limitField(r, "quota", "monthly quota")
	}
	if err == nil {
		err = h.svc.Orgs.CreateOrg(r.Context(), o)
	}
	if err != nil {
		if statusOf(err) < 500 && redirects.ErrorCode(err) != redirects.EFORBIDDEN {
			return h.redirect(w, r, back, flashErr, "The organization was not created: "+message(err))
		}
		return err
	}
	return h.redirect(w, r, "/orgs/"+o.ID+"/members", flashOK, "Created organization "+o.Name+". Give it its first owner here.")
}

type orgEditData struct {
	Edit  *redirects.Org
	Tiers []redirects.Tier
}

// orgEditPage shows an organization's name, tier and overrides in a form.
func (h *handler) orgEditPage(w http.ResponseWriter, r *http.Request) error {
	if err := authorize(r, "", redirects.ActionManageOrgs); err != nil {
		return err
	}
	o, err := h.svc.Orgs.Org(r.Context(), r.PathValue("org"))
	if redirects.ErrorCode(err) == redirects.ENOTFOUND {
		return errNotFound("organization")
	} else if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "org_edit", &page{Title: "Edit " + o.Name, Data: orgEditData{Edit: o, Tiers: tiers}})
}

// orgUpdate changes an organization's name, tier and overrides; an empty
// override goes back to the tier's default.
func (h *handler) orgUpdate(w http.ResponseWriter, r *http.Request) error {
	// The form's own checks answer an operator only.
	if err := authorize(r, "", redirects.ActionManageOrgs); err != nil {
		return err
	}
	id := r.PathValue("org")
	back := "/operator/orgs/" + id + "/edit"
	name := r.PostFormValue("name")
	u := redirects.OrgUpdate{Name: &name}
	t, err := redirects.ParseTier(r.PostFormValue("tier"))
	if err != nil {
		return h.redirect(w, r, back, flashErr, "Tier: "+message(err))
	}
	u.Tier = &t
	if u.RateLimit, err = limitField(r, "rate", "rate limit"); err == nil {
		u.MonthlyQuota, err = limitField(r, "quota", "monthly quota")
	}
	if err != nil {
		return h.redirect(w, r, back, flashErr, message(err))
	}
	u.ClearRateLimit, u.ClearQuota = u.RateLimit == nil, u.MonthlyQuota == nil
	o, err := h.svc.Orgs.UpdateOrg(r.Context(), id, u)
	if err != nil {
		if statusOf(err) < 500 && redirects.ErrorCode(err) != redirects.EFORBIDDEN {
			return h.redirect(w, r, back, flashErr, "Nothing was changed: "+message(err))
		}
		return err
	}
	return h.redirect(w, r, "/operator/orgs", flashOK, "Saved "+o.Name+": "+string(o.Tier)+", "+o.RateLimit().String()+" requests a minute, "+o.MonthlyQuota().String()+" a month. Edge nodes apply it within a second.")
}
