package manage

import (
	"context"
	"net/http"
	"time"

	"redirects"
)

// keyJSON is an edge API key as the API shows one: the CLI's key list
// --json shape, never the key or its hash. Secret is set once, in the
// answer to its creation.
type keyJSON struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Mode      string  `json:"mode"`
	Last4     string  `json:"last4"`
	CreatedAt string  `json:"createdAt"`
	RevokedAt *string `json:"revokedAt"`
	Secret    string  `json:"secret,omitempty"`
}

// keyListJSON is a key of the key list: keyJSON and LastUsedAt, the last
// UTC day ("2026-03-04") of the current or previous month with a live
// lookup counted for the key, null (never left out) for none.
type keyListJSON struct {
	keyJSON
	LastUsedAt *string `json:"lastUsedAt"`
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
	last, err := h.lastUsed(r, p.OrgID)
	if err != nil {
		return err
	}
	out := make([]keyListJSON, 0, len(ks))
	for _, k := range ks {
		j := keyListJSON{keyJSON: toKeyJSON(k)}
		day := last[k.ID]
		j.LastUsedAt = &day
		if day == "" {
			j.LastUsedAt = nil
		}
		out = append(out, j)
	}
	writeJSON(w, http.StatusOK, map[string]any{"keys": out})
	return nil
}

// lastUsed returns the last day of the current or previous month (UTC)
// on which each key of the organization with ID orgID had usage counted.
func (h *handler) lastUsed(r *http.Request, orgID string) (map[string]string, error) {
	return KeysLastUsed(r.Context(), h.store, orgID, h.clock.Now())
}

// DailyUsageReader is what KeysLastUsed reads of a store.
type DailyUsageReader interface {
	FindDailyUsage(ctx context.Context, orgID, month string) ([]redirects.DailyUsage, error)
}

// KeysLastUsed returns, by key ID, the last UTC day ("2006-01-02") of the
// current or previous month (at now) on which each key of the organization
// with ID orgID had usage counted. The API's key list and the dashboard's
// both show it.
func KeysLastUsed(ctx context.Context, store DailyUsageReader, orgID string, now time.Time) (map[string]string, error) {
	now = now.UTC()
	this := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	last := map[string]string{}
	for _, m := range []time.Time{this.AddDate(0, -1, 0), this} {
		daily, err := store.FindDailyUsage(ctx, orgID, m.Format("2006-01"))
		if err != nil {
			return nil, err
		}
		for _, u := range daily {
			if u.Count > 0 && u.Day > last[u.KeyID] {
				last[u.KeyID] = u.Day
			}
		}
	}
	return last, nil
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

type keyRevokeRequest struct {
	Key *string `json:"key"`
}

// keyRevokeBody revokes a key of the project named in the body by its ID
// or its full secret (which does not belong in a URL), and answers the
// key: revoking one already revoked changes nothing, and its revokedAt
// says when it was.
func (h *handler) keyRevokeBody(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionManageKeys)
	if err != nil {
		return err
	}
	var req keyRevokeRequest
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return err
	}
	if req.Key == nil || *req.Key == "" {
		return redirects.Errorf(redirects.EINVALID, "key is required: the key's ID (key_...) or the full key (redir_live_... or redir_test_...)")
	}
	k, err := h.store.RevokeKey(r.Context(), p.ID, *req.Key)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toKeyJSON(k))
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
