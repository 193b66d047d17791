package ui

import (
	"net/http"
	"time"

	"redirects"
)

// tokenLifetimes are the choices of a new token's lifetime; 0 never
// expires.
var tokenLifetimes = []struct {
	Value, Label string
	TTL          time.Duration
}{
	{"30d", "30 days", 30 * 24 * time.Hour},
	{"90d", "90 days", 90 * 24 * time.Hour},
	{"365d", "1 year", 365 * 24 * time.Hour},
	{"never", "never", 0},
}

type tokenRow struct {
	*redirects.ManagementToken
	By        string
	CanRevoke bool
	Expired   bool
}

type tokensData struct {
	Tokens    []tokenRow
	Roles     []redirects.Role
	Lifetimes any
	Secret    string
	New       *redirects.ManagementToken
}

// tokensPage lists the organization's management tokens, never a secret.
func (h *handler) tokensPage(w http.ResponseWriter, r *http.Request) error {
	return h.renderTokens(w, r, nil, "")
}

func (h *handler) renderTokens(w http.ResponseWriter, r *http.Request, created *redirects.ManagementToken, secret string) error {
	o, err := h.org(r, r.PathValue("org"))
	if err != nil {
		return err
	}
	ts, err := h.svc.Tokens.FindTokens(r.Context(), o.ID)
	if err != nil {
		return err
	}
	now := h.clock.Now()
	d := tokensData{Roles: redirects.Roles, Lifetimes: tokenLifetimes, Secret: secret, New: created}
	for _, t := range ts {
		by := t.Creator
		if t.CreatedBy == "" {
			by = "command line"
		}
		d.Tokens = append(d.Tokens, tokenRow{ManagementToken: t.ManagementToken, By: by, CanRevoke: t.RevokedAt == nil && mayRevokeToken(r, t.ManagementToken),
			Expired: t.ExpiresAt != nil && !now.Before(*t.ExpiresAt)})
	}
	return h.render(w, r, http.StatusOK, "tokens", &page{Title: "Tokens · " + o.Name, Org: o, Tab: "tokens", Data: d})
}

// mayRevokeToken: owners revoke any token, everyone the tokens they made,
// as in the API.
func mayRevokeToken(r *http.Request, t *redirects.ManagementToken) bool {
	if t.CreatedBy != "" && t.CreatedBy == viewerOf(r).user.ID {
		return may(r, t.OrgID, redirects.ActionRead)
	}
	return may(r, t.OrgID, redirects.ActionManageTokens)
}

// tokenCreate creates a token at or below the user's role and shows its
// secret on the page it answers, once.
func (h *handler) tokenCreate(w http.ResponseWriter, r *http.Request) error {
	orgID := r.PathValue("org")
	if err := authorize(r, orgID, redirects.ActionRead); err != nil {
		return err
	}
	back := "/orgs/" + orgID + "/tokens"
	role, err := redirects.ParseRole(r.PostFormValue("role"))
	if err != nil {
		return h.redirect(w, r, back, flashErr, "Role: "+message(err))
	}
	// The role asked for is authorized before the lifetime is read, as
	// the API does; the service decides the same again.
	if err := authorize(r, orgID, redirects.CreateTokenAction(role)); err != nil {
		return err
	}
	ttl, ok := time.Duration(0), false
	for _, l := range tokenLifetimes {
		if l.Value == r.PostFormValue("expires") {
			ttl, ok = l.TTL, true
		}
	}
	if !ok {
		return h.redirect(w, r, back, flashErr, "Expires: choose one of the lifetimes offered.")
	}
	t, secret, err := h.svc.Issuer.CreateToken(r.Context(), redirects.TokenRequest{OrgID: orgID, Role: role, Label: r.PostFormValue("label"), TTL: ttl})
	if err != nil {
		if s := statusOf(err); s < 500 && s != http.StatusForbidden && s != http.StatusNotFound {
			return h.redirect(w, r, back, flashErr, message(err))
		}
		return err
	}
	return h.renderTokens(w, r, t, secret)
}

// tokenOf finds a token of the organization by the path's {id}.
func (h *handler) tokenOf(r *http.Request, orgID string) (*redirects.ManagementToken, error) {
	ts, err := h.svc.Tokens.FindTokens(r.Context(), orgID)
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		if t.ID == r.PathValue("id") {
			if !mayRevokeToken(r, t.ManagementToken) {
				return nil, redirects.Errorf(redirects.EFORBIDDEN, "only an owner may revoke a token another user made")
			}
			return t.ManagementToken, nil
		}
	}
	return nil, errNotFound("token")
}

type tokenRevokeData struct{ Token *redirects.ManagementToken }

// tokenRevokePage asks before a token is revoked.
func (h *handler) tokenRevokePage(w http.ResponseWriter, r *http.Request) error {
	o, err := h.org(r, r.PathValue("org"))
	if err != nil {
		return err
	}
	t, err := h.tokenOf(r, o.ID)
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "token_revoke", &page{Title: "Revoke token …" + t.Last4, Org: o, Tab: "tokens", Data: tokenRevokeData{Token: t}})
}

// tokenRevoke revokes a token.
func (h *handler) tokenRevoke(w http.ResponseWriter, r *http.Request) error {
	orgID := r.PathValue("org")
	if err := authorize(r, orgID, redirects.ActionRead); err != nil {
		return err
	}
	t, err := h.tokenOf(r, orgID)
	if err != nil {
		return err
	}
	if _, _, err := h.svc.Tokens.RevokeToken(r.Context(), orgID, t.ID); err != nil {
		return err
	}
	return h.redirect(w, r, "/orgs/"+orgID+"/tokens", flashOK, "Revoked token …"+t.Last4+". Requests with it get 401 at once.")
}
