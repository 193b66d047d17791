package manage

import (
	"net/http"
	"strings"

	"redirects"
	"redirects/api"
)

func (h *handler) keyList(w http.ResponseWriter, r *http.Request) error {
	l, err := h.svc.Keys.FindKeys(r.Context(), r.PathValue("project"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.KeyListOf(l))
	return nil
}

// keyCreate makes an edge API key and answers its secret, this once.
func (h *handler) keyCreate(w http.ResponseWriter, r *http.Request) error {
	var req api.KeyCreateRequest
	if err := h.decodeJSON(w, r, &req, true); err != nil {
		return err
	}
	k, secret, err := h.svc.Keys.CreateKey(r.Context(), r.PathValue("project"), req.Name, req.Test)
	if err != nil {
		return err
	}
	j := api.KeyOf(k)
	j.Secret = secret
	writeJSON(w, http.StatusCreated, j)
	return nil
}

// keyRevokeBody revokes a key of the project named in the body by its ID
// or its full secret (which does not belong in a URL), and answers the
// key: revoking one already revoked changes nothing, and its revokedAt
// says when it was.
func (h *handler) keyRevokeBody(w http.ResponseWriter, r *http.Request) error {
	var req api.KeyRevokeRequest
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return err
	}
	ref := ""
	if req.Key != nil {
		ref = *req.Key
	}
	k, _, err := h.svc.Keys.RevokeKey(r.Context(), r.PathValue("project"), ref)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.KeyOf(k))
	return nil
}

// keyRevoke revokes a key of the project by its ID, never by its secret,
// which does not belong in a URL: a path that holds one names no key.
func (h *handler) keyRevoke(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if strings.HasPrefix(id, redirects.LiveKeyPrefix) || strings.HasPrefix(id, redirects.TestKeyPrefix) || id == "" {
		// Authorized first, so that the answer says no more than a
		// missing key's would.
		if _, err := h.authorizeProject(r, redirects.ActionManageKeys); err != nil {
			return err
		}
		return notFound("key", id)
	}
	if _, _, err := h.svc.Keys.RevokeKey(r.Context(), r.PathValue("project"), id); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
