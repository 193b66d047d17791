package manage

import (
	"net/http"

	"redirects"
)

// keyJSON is an edge API key as the API shows one: the CLI's key list
// --json shape, never the key or its hash. Secret is set once, in the
// answer to its creation. The store does not track a key's last use.
type keyJSON struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Mode      string  `json:"mode"`
	Last4     string  `json:"last4"`
	CreatedAt string  `json:"createdAt"`
	RevokedAt *string `json:"revokedAt"`
	Secret    string  `json:"secret,omitempty"`
}

func toKeyJSON(k *redirects.Key) keyJSON {
	return keyJSON{ID: k.ID, Name: k.Name, Mode: k.Mode(), Last4: k.Last4, CreatedAt: formatTime(k.CreatedAt), RevokedAt: formatTimePtr(k.RevokedAt)}
}

func (h *handler) keyList(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	ks, err := h.store.FindKeys(r.Context(), p.ID)
	if err != nil {
		return err
	}
	out := make([]keyJSON, 0, len(ks))
	for _, k := range ks {
		out = append(out, toKeyJSON(k))
	}
	writeJSON(w, http.StatusOK, map[string]any{"keys": out})
	return nil
}

type keyCreateRequest struct {
	Name string `json:"name"`
	Test bool   `json:"test"`
}

// keyCreate makes an edge API key and answers its secret, this once.
func (h *handler) keyCreate(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionManageKeys)
	if err != nil {
		return err
	}
	var req keyCreateRequest
	if err := h.decodeJSON(w, r, &req, true); err != nil {
		return err
	}
	k, secret := redirects.NewKey(p.ID, req.Name, req.Test, h.clock.Now())
	if err := k.Validate(); err != nil {
		return err
	}
	if err := h.store.CreateKey(r.Context(), k); err != nil {
		return err
	}
	j := toKeyJSON(k)
	j.Secret = secret
	writeJSON(w, http.StatusCreated, j)
	return nil
}

// keyRevoke revokes a key of the project by its ID (never by its secret,
// which does not belong in a URL).
func (h *handler) keyRevoke(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionManageKeys)
	if err != nil {
		return err
	}
	ctx := r.Context()
	id := r.PathValue("id")
	ks, err := h.store.FindKeys(ctx, p.ID)
	if err != nil {
		return err
	}
	for _, k := range ks {
		if k.ID == id {
			if _, err := h.store.RevokeKey(ctx, p.ID, k.ID); err != nil {
				return err
			}
			w.WriteHeader(http.StatusNoContent)
			return nil
		}
	}
	return notFound("key", id)
}
