package manage

import (
	"net/http"
	"strconv"
	"time"

	"redirects"
)

// The webhook routes: an organization's endpoints and their deliveries
// (docs/delivery.md#webhooks). Reading them is reading the organization
// (the deliveries hold audit entries, which viewers read); changing them
// is an owner's (ActionManageWebhooks).

func (h *handler) webhookStore() (redirects.WebhookStore, error) {
	w, ok := h.store.(redirects.WebhookStore)
	if !ok {
		return nil, redirects.Errorf(redirects.EINTERNAL, "the store keeps no webhooks")
	}
	return w, nil
}

// webhookOf authorizes action in the path's {org} and returns the
// endpoint of the path's {id}, which must be the organization's: another
// organization's endpoint is answered as a missing one.
func (h *handler) webhookOf(r *http.Request, action redirects.Action) (redirects.WebhookStore, *redirects.WebhookEndpoint, error) {
	o, err := h.authorizeOrg(r, action)
	if err != nil {
		return nil, nil, err
	}
	ws, err := h.webhookStore()
	if err != nil {
		return nil, nil, err
	}
	id := r.PathValue("id")
	e, err := ws.FindWebhook(r.Context(), id)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND || err == nil && e.OrgID != o.ID {
		return nil, nil, notFound("webhook", id)
	}
	return ws, e, err
}

// webhookJSON is an endpoint as the API shows it; Secret only in the
// answers to its creation and to a rotation.
type webhookJSON struct {
	*redirects.WebhookEndpoint
	Status string `json:"status"`
}

func toWebhookJSON(e *redirects.WebhookEndpoint) webhookJSON {
	if e.Actions == nil {
		e.Actions = []string{}
	}
	if e.Projects == nil {
		e.Projects = []string{}
	}
	return webhookJSON{WebhookEndpoint: e, Status: e.Status()}
}

func (h *handler) webhookList(w http.ResponseWriter, r *http.Request) error {
	o, err := h.authorizeOrg(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	ws, err := h.webhookStore()
	if err != nil {
		return err
	}
	es, err := ws.FindWebhooks(r.Context(), o.ID)
	if err != nil {
		return err
	}
	out := make([]webhookJSON, 0, len(es))
	for _, e := range es {
		out = append(out, toWebhookJSON(e))
	}
	writeJSON(w, http.StatusOK, map[string]any{"webhooks": out})
	return nil
}

type webhookCreateRequest struct {
	URL      *string  `json:"url"`
	Actions  []string `json:"actions"`
	Projects []string `json:"projects"`
}

// webhookCreate registers an endpoint and answers it with its secret, the
// only time the secret is shown.
func (h *handler) webhookCreate(w http.ResponseWriter, r *http.Request) error {
	o, err := h.authorizeOrg(r, redirects.ActionManageWebhooks)
	if err != nil {
		return err
	}
	var req webhookCreateRequest
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return err
	}
	if req.URL == nil {
		return missingField("url")
	}
	ws, err := h.webhookStore()
	if err != nil {
		return err
	}
	e := redirects.NewWebhookEndpoint(o.ID, *req.URL, req.Actions, req.Projects)
	if err := ws.CreateWebhook(r.Context(), e); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, toWebhookJSON(e))
	return nil
}

type webhookUpdateRequest struct {
	Paused *bool `json:"paused"`
}

// webhookUpdate pauses or resumes an endpoint; resuming enables one the
// sender disabled.
func (h *handler) webhookUpdate(w http.ResponseWriter, r *http.Request) error {
	ws, e, err := h.webhookOf(r, redirects.ActionManageWebhooks)
	if err != nil {
		return err
	}
	var req webhookUpdateRequest
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return err
	}
	if req.Paused == nil {
		return missingField("paused")
	}
	e, err = ws.SetWebhookPaused(r.Context(), e.ID, *req.Paused)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toWebhookJSON(e))
	return nil
}

func (h *handler) webhookDelete(w http.ResponseWriter, r *http.Request) error {
	ws, e, err := h.webhookOf(r, redirects.ActionManageWebhooks)
	if err != nil {
		return err
	}
	if err := ws.DeleteWebhook(r.Context(), e.ID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// webhookTest queues a webhook.test event for the endpoint.
func (h *handler) webhookTest(w http.ResponseWriter, r *http.Request) error {
	ws, e, err := h.webhookOf(r, redirects.ActionManageWebhooks)
	if err != nil {
		return err
	}
	id, err := ws.SendWebhookTest(r.Context(), e.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"deliveryId": id})
	return nil
}

type webhookRotateRequest struct {
	// Overlap is how long the old secret also signs, a duration ("1h");
	// "" is 24h.
	Overlap string `json:"overlap"`
}

// webhookRotate gives the endpoint a new secret and answers it, once.
func (h *handler) webhookRotate(w http.ResponseWriter, r *http.Request) error {
	ws, e, err := h.webhookOf(r, redirects.ActionManageWebhooks)
	if err != nil {
		return err
	}
	var req webhookRotateRequest
	if err := h.decodeJSON(w, r, &req, true); err != nil {
		return err
	}
	overlap := 24 * time.Hour
	if req.Overlap != "" {
		if overlap, err = time.ParseDuration(req.Overlap); err != nil {
			return redirects.Errorf(redirects.EINVALID, "overlap %q is not a duration such as 1h", req.Overlap)
		}
	}
	e, err = ws.RotateWebhookSecret(r.Context(), e.ID, overlap)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toWebhookJSON(e))
	return nil
}

// webhookDeliveries answers the endpoint's last deliveries (?limit=N, at
// most 1000, default 50), newest first, with their attempts.
func (h *handler) webhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	ws, e, err := h.webhookOf(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	limit := 50
	if s := r.URL.Query().Get("limit"); s != "" {
		if limit, err = strconv.Atoi(s); err != nil || limit < 1 || limit > 1000 {
			return redirects.Errorf(redirects.EINVALID, "limit %q is not a number from 1 to 1000", s)
		}
	}
	ds, err := ws.FindWebhookDeliveries(r.Context(), e.ID, limit)
	if err != nil {
		return err
	}
	for _, d := range ds {
		if d.Attempts == nil {
			d.Attempts = []redirects.WebhookAttempt{}
		}
	}
	if ds == nil {
		ds = []*redirects.WebhookDelivery{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"deliveries": ds})
	return nil
}

// webhookRedeliver makes one of the endpoint's deliveries due again.
func (h *handler) webhookRedeliver(w http.ResponseWriter, r *http.Request) error {
	ws, e, err := h.webhookOf(r, redirects.ActionManageWebhooks)
	if err != nil {
		return err
	}
	did := r.PathValue("delivery")
	d, err := ws.FindWebhookDelivery(r.Context(), did)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND || err == nil && d.EndpointID != e.ID {
		return notFound("webhook delivery", did)
	} else if err != nil {
		return err
	}
	if d, err = ws.Redeliver(r.Context(), d.ID); err != nil {
		return err
	}
	if d.Attempts == nil {
		d.Attempts = []redirects.WebhookAttempt{}
	}
	writeJSON(w, http.StatusAccepted, d)
	return nil
}
