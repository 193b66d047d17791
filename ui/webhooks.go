package ui

import (
	"net/http"
	"strings"
	"time"

	"redirects"
)

// The webhooks pages: an organization's endpoints, their last deliveries,
// and the forms that change them (docs/delivery.md#webhooks), through the
// service layer's WebhookService, which authorizes as for the API.

type webhooksData struct {
	Webhooks  []*redirects.WebhookEndpoint
	CanManage bool
	Projects  []*redirects.Project
	// Secret and New are set once, on the page that answers a creation or
	// a rotation.
	Secret string
	New    *redirects.WebhookEndpoint
}

func (h *handler) webhooksPage(w http.ResponseWriter, r *http.Request) error {
	return h.renderWebhooks(w, r, nil)
}

func (h *handler) renderWebhooks(w http.ResponseWriter, r *http.Request, created *redirects.WebhookEndpoint) error {
	o, err := h.org(r, r.PathValue("org"))
	if err != nil {
		return err
	}
	es, err := h.svc.Webhooks.FindWebhooks(r.Context(), o.ID)
	if err != nil {
		return err
	}
	ps, err := h.svc.Projects.Projects(r.Context(), o.ID)
	if err != nil {
		return err
	}
	d := webhooksData{Webhooks: es, CanManage: may(r, o.ID, redirects.ActionManageWebhooks), Projects: ps, New: created}
	if created != nil {
		d.Secret = created.Secret
	}
	return h.render(w, r, http.StatusOK, "webhooks", &page{Title: "Webhooks · " + o.Name, Org: o, Tab: "webhooks", Data: d})
}

// webhookCreate registers an endpoint and shows its secret on the page it
// answers, once.
func (h *handler) webhookCreate(w http.ResponseWriter, r *http.Request) error {
	orgID := r.PathValue("org")
	if err := authorize(r, orgID, redirects.ActionManageWebhooks); err != nil {
		return err
	}
	back := "/orgs/" + orgID + "/webhooks"
	actions := strings.FieldsFunc(r.PostFormValue("actions"), func(c rune) bool { return c == ',' || c == ' ' || c == '\n' || c == '\r' })
	e, err := h.svc.Webhooks.CreateWebhook(r.Context(), orgID, strings.TrimSpace(r.PostFormValue("url")), actions, r.PostForm["project"])
	if err != nil {
		if statusOf(err) < 500 {
			return h.redirect(w, r, back, flashErr, message(err))
		}
		return err
	}
	return h.renderWebhooks(w, r, e)
}

// webhookOf authorizes action in the path's {org} and returns the
// endpoint of the path's {id}, which must be the organization's.
func (h *handler) webhookOf(r *http.Request, action redirects.Action) (*redirects.WebhookEndpoint, error) {
	orgID := r.PathValue("org")
	if err := authorize(r, orgID, action); err != nil {
		return nil, err
	}
	e, err := h.svc.Webhooks.FindWebhook(r.Context(), orgID, r.PathValue("id"))
	if redirects.ErrorCode(err) == redirects.ENOTFOUND {
		return nil, errNotFound("webhook")
	}
	return e, err
}

// webhookAction runs one of the endpoint forms: pause, resume, delete,
// test, rotate.
func (h *handler) webhookAction(w http.ResponseWriter, r *http.Request) error {
	e, err := h.webhookOf(r, redirects.ActionManageWebhooks)
	if err != nil {
		return err
	}
	ctx, ws := r.Context(), h.svc.Webhooks
	back := "/orgs/" + e.OrgID + "/webhooks"
	switch r.PathValue("action") {
	case "pause":
		if _, err := ws.SetWebhookPaused(ctx, e.OrgID, e.ID, true); err != nil {
			return err
		}
		return h.redirect(w, r, back, flashOK, "Paused "+e.URL+": its deliveries wait until it resumes.")
	case "resume":
		if _, err := ws.SetWebhookPaused(ctx, e.OrgID, e.ID, false); err != nil {
			return err
		}
		return h.redirect(w, r, back, flashOK, "Resumed "+e.URL+": what it queued is sent now.")
	case "delete":
		if err := ws.DeleteWebhook(ctx, e.OrgID, e.ID); err != nil {
			return err
		}
		return h.redirect(w, r, back, flashOK, "Deleted the webhook to "+e.URL+" and its deliveries.")
	case "test":
		if _, err := ws.SendWebhookTest(ctx, e.OrgID, e.ID); err != nil {
			return err
		}
		return h.redirect(w, r, back+"/"+e.ID, flashOK, "A test event is on its way: its delivery is listed below.")
	case "rotate":
		rot, err := ws.RotateWebhookSecret(ctx, e.OrgID, e.ID, 24*time.Hour)
		if err != nil {
			return err
		}
		return h.renderWebhooks(w, r, rot)
	}
	return errNotFound("page")
}

type webhookData struct {
	Webhook    *redirects.WebhookEndpoint
	Deliveries []*redirects.WebhookDelivery
	CanManage  bool
}

// webhookPage shows an endpoint's last deliveries, each with its last
// attempt's status, latency and answer.
func (h *handler) webhookPage(w http.ResponseWriter, r *http.Request) error {
	o, err := h.org(r, r.PathValue("org"))
	if err != nil {
		return err
	}
	e, err := h.webhookOf(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	ds, err := h.svc.Webhooks.FindWebhookDeliveries(r.Context(), o.ID, e.ID, 50)
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "webhook", &page{Title: "Webhook " + e.URL + " · " + o.Name, Org: o, Tab: "webhooks",
		Data: webhookData{Webhook: e, Deliveries: ds, CanManage: may(r, o.ID, redirects.ActionManageWebhooks)}})
}

// webhookRedeliver makes one of the endpoint's deliveries due again.
func (h *handler) webhookRedeliver(w http.ResponseWriter, r *http.Request) error {
	e, err := h.webhookOf(r, redirects.ActionManageWebhooks)
	if err != nil {
		return err
	}
	did := r.PathValue("delivery")
	d, err := h.svc.Webhooks.Redeliver(r.Context(), e.OrgID, e.ID, did)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND {
		return errNotFound("delivery")
	} else if err != nil {
		return err
	}
	return h.redirect(w, r, "/orgs/"+e.OrgID+"/webhooks/"+e.ID, flashOK, "Delivery "+d.ID+" is due again.")
}
