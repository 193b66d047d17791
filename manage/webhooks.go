package manage

import (
	"net/http"
	"strconv"
	"time"

	"redirects"
	"redirects/api"
)

// The webhook routes: an organization's endpoints and their deliveries
// (docs/delivery.md#webhooks), through the service layer's
// WebhookService, which authorizes.

// webhookJSON is an endpoint as the API shows it.
type webhookJSON = api.Webhook

func (h *handler) webhookList(w http.ResponseWriter, r *http.Request) error {
	es, err := h.svc.Webhooks.FindWebhooks(r.Context(), r.PathValue("org"))
	if err != nil {
		return err
	}
	out := api.WebhookList{Webhooks: make([]api.Webhook, 0, len(es))}
	for _, e := range es {
		out.Webhooks = append(out.Webhooks, api.WebhookOf(e))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// webhookCreate registers an endpoint and answers it with its secret, the
// only time the secret is shown.
func (h *handler) webhookCreate(w http.ResponseWriter, r *http.Request) error {
	orgID := r.PathValue("org")
	if _, err := h.authorizeOrg(r, redirects.ActionManageWebhooks); err != nil {
		return err
	}
	var req api.WebhookCreate
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return err
	}
	if req.URL == nil {
		return missingField("url")
	}
	e, err := h.svc.Webhooks.CreateWebhook(r.Context(), orgID, *req.URL, req.Actions, req.Projects)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, api.WebhookOf(e))
	return nil
}

// webhookUpdate pauses or resumes an endpoint; resuming enables one the
// sender disabled.
func (h *handler) webhookUpdate(w http.ResponseWriter, r *http.Request) error {
	if err := h.webhookAuthorize(r, redirects.ActionManageWebhooks); err != nil {
		return err
	}
	var req api.WebhookUpdate
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return err
	}
	if req.Paused == nil {
		return missingField("paused")
	}
	e, err := h.svc.Webhooks.SetWebhookPaused(r.Context(), r.PathValue("org"), r.PathValue("id"), *req.Paused)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.WebhookOf(e))
	return nil
}

// webhookAuthorize answers, before a route reads its body, what the
// service would answer the caller (redirects.Authorize, then the
// endpoint): a caller who may not change the path's endpoint learns it
// before a mistake in the body.
func (h *handler) webhookAuthorize(r *http.Request, action redirects.Action) error {
	if _, err := h.authorizeOrg(r, action); err != nil {
		return err
	}
	_, err := h.svc.Webhooks.FindWebhook(r.Context(), r.PathValue("org"), r.PathValue("id"))
	return err
}

func (h *handler) webhookDelete(w http.ResponseWriter, r *http.Request) error {
	if err := h.svc.Webhooks.DeleteWebhook(r.Context(), r.PathValue("org"), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// webhookTest queues a webhook.test event for the endpoint.
func (h *handler) webhookTest(w http.ResponseWriter, r *http.Request) error {
	id, err := h.svc.Webhooks.SendWebhookTest(r.Context(), r.PathValue("org"), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, api.WebhookTest{DeliveryID: id})
	return nil
}

// webhookRotate gives the endpoint a new secret and answers it, once.
func (h *handler) webhookRotate(w http.ResponseWriter, r *http.Request) error {
	if err := h.webhookAuthorize(r, redirects.ActionManageWebhooks); err != nil {
		return err
	}
	var req api.WebhookRotate
	if err := h.decodeJSON(w, r, &req, true); err != nil {
		return err
	}
	overlap := 24 * time.Hour
	if req.Overlap != "" {
		var err error
		if overlap, err = time.ParseDuration(req.Overlap); err != nil {
			return redirects.Errorf(redirects.EINVALID, "overlap %q is not a duration such as 1h", req.Overlap)
		}
	}
	e, err := h.svc.Webhooks.RotateWebhookSecret(r.Context(), r.PathValue("org"), r.PathValue("id"), overlap)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.WebhookOf(e))
	return nil
}

// webhookDeliveries answers the endpoint's last deliveries (?limit=N, at
// most 1000, default 50), newest first, with their attempts.
func (h *handler) webhookDeliveries(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.svc.Webhooks.FindWebhook(r.Context(), r.PathValue("org"), r.PathValue("id")); err != nil {
		return err
	}
	limit := redirects.DefaultWebhookDeliveries
	if s := r.URL.Query().Get("limit"); s != "" {
		var err error
		if limit, err = strconv.Atoi(s); err != nil || limit < 1 || limit > redirects.MaxWebhookDeliveries {
			return redirects.Errorf(redirects.EINVALID, "limit %q is not a number from 1 to 1000", s)
		}
	}
	ds, err := h.svc.Webhooks.FindWebhookDeliveries(r.Context(), r.PathValue("org"), r.PathValue("id"), limit)
	if err != nil {
		return err
	}
	out := api.WebhookDeliveries{Deliveries: make([]*redirects.WebhookDelivery, 0, len(ds))}
	for _, d := range ds {
		out.Deliveries = append(out.Deliveries, api.DeliveryOf(d))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// webhookRedeliver makes one of the endpoint's deliveries due again.
func (h *handler) webhookRedeliver(w http.ResponseWriter, r *http.Request) error {
	d, err := h.svc.Webhooks.Redeliver(r.Context(), r.PathValue("org"), r.PathValue("id"), r.PathValue("delivery"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusAccepted, api.DeliveryOf(d))
	return nil
}
