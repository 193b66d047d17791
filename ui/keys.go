package ui

import (
	"net/http"

	"redirects"
)

type keysData struct {
	Keys      []*redirects.Key
	CanManage bool
	// LastUsed is the last day of this or last month (UTC) on which each
	// key, by ID, had lookups counted (redirects.KeyList, as the API).
	LastUsed map[string]string
	// Secret is set once, on the page that answers the key's creation.
	Secret string
	New    *redirects.Key
}

// keysPage is the API Keys tab: every key of the project with its label,
// mode, last four characters and state; never a secret.
func (h *handler) keysPage(w http.ResponseWriter, r *http.Request) error {
	return h.renderKeys(w, r, nil, "")
}

func (h *handler) renderKeys(w http.ResponseWriter, r *http.Request, created *redirects.Key, secret string) error {
	ph, o, err := h.project(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	l, err := h.svc.Keys.FindKeys(r.Context(), ph.ID)
	if err != nil {
		return err
	}
	d := keysData{Keys: l.Keys, CanManage: may(r, o.ID, redirects.ActionManageKeys), Secret: secret, New: created, LastUsed: l.LastUsed}
	return h.render(w, r, http.StatusOK, "keys", &page{Title: "API keys · " + ph.Name, Org: o, Project: ph, Tab: "keys", Data: d})
}

// keyCreate creates a key and shows its secret on the page it answers,
// the only time it is shown: it is never stored, redirected with or put
// in a cookie, so a reload of the keys page cannot show it again.
func (h *handler) keyCreate(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	k, secret, err := h.svc.Keys.CreateKey(r.Context(), ph.ID, r.PostFormValue("name"), r.PostFormValue("mode") == "test")
	if redirects.ErrorCode(err) == redirects.EINVALID {
		return h.redirect(w, r, "/projects/"+ph.ID+"/keys", flashErr, "Label: "+message(err))
	} else if err != nil {
		return err
	}
	return h.renderKeys(w, r, k, secret)
}

// keyOf finds a key of the project by its ID.
func (h *handler) keyOf(r *http.Request, projectID string) (*redirects.Key, error) {
	l, err := h.svc.Keys.FindKeys(r.Context(), projectID)
	if err != nil {
		return nil, err
	}
	for _, k := range l.Keys {
		if k.ID == r.PathValue("id") {
			return k, nil
		}
	}
	return nil, errNotFound("key")
}

type revokeData struct{ Key *redirects.Key }

// keyRevokePage asks before a key is revoked, saying what follows.
func (h *handler) keyRevokePage(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionManageKeys)
	if err != nil {
		return err
	}
	k, err := h.keyOf(r, ph.ID)
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "key_revoke", &page{Title: "Revoke key …" + k.Last4, Org: o, Project: ph, Tab: "keys", Data: revokeData{Key: k}})
}

// keyRevoke revokes a key.
func (h *handler) keyRevoke(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	k, err := h.keyOf(r, ph.ID)
	if err != nil {
		return err
	}
	if _, _, err := h.svc.Keys.RevokeKey(r.Context(), ph.ID, k.ID); err != nil {
		return err
	}
	return h.redirect(w, r, "/projects/"+ph.ID+"/keys", flashOK, "Revoked key …"+k.Last4+". Requests with it get 401 within a second.")
}
