package remote

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"redirects"
)

// Webhooks returns the organizations' webhook endpoints the token reaches
// as a redirects.WebhookStore, for the command line's webhook commands,
// which name an endpoint or a delivery by its ID alone: the endpoint is
// looked for in each organization the token reaches. Claiming and
// recording deliveries are the sender's, on the server, and need the
// database.
func (s *Store) Webhooks() redirects.WebhookStore { return webhookStore{s} }

type webhookStore struct{ s *Store }

var _ redirects.WebhookStore = webhookStore{}

func (w webhookStore) do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	return w.s.c.do(ctx, method, path, query, body, "", out)
}

func (w webhookStore) CreateWebhook(ctx context.Context, e *redirects.WebhookEndpoint) error {
	body := map[string]any{"url": e.URL}
	if len(e.Actions) > 0 {
		body["actions"] = e.Actions
	}
	if len(e.Projects) > 0 {
		body["projects"] = e.Projects
	}
	var out redirects.WebhookEndpoint
	if err := w.do(ctx, "POST", "/orgs/"+pathEscape(e.OrgID)+"/webhooks", nil, body, &out); err != nil {
		return err
	}
	*e = out
	return nil
}

func (w webhookStore) FindWebhooks(ctx context.Context, orgID string) ([]*redirects.WebhookEndpoint, error) {
	var j struct{ Webhooks []*redirects.WebhookEndpoint }
	if err := w.do(ctx, "GET", "/orgs/"+pathEscape(orgID)+"/webhooks", nil, nil, &j); err != nil {
		return nil, err
	}
	return j.Webhooks, nil
}

// FindWebhook looks for the endpoint in every organization the token
// reaches.
func (w webhookStore) FindWebhook(ctx context.Context, id string) (*redirects.WebhookEndpoint, error) {
	orgs, err := w.s.FindOrgs(ctx)
	if err != nil {
		return nil, err
	}
	for _, o := range orgs {
		es, err := w.FindWebhooks(ctx, o.ID)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if e.ID == id {
				return e, nil
			}
		}
	}
	return nil, redirects.Errorf(redirects.ENOTFOUND, "webhook %s not found", id)
}

// path returns the API's path of an endpoint, found by ID.
func (w webhookStore) path(ctx context.Context, id string) (string, error) {
	e, err := w.FindWebhook(ctx, id)
	if err != nil {
		return "", err
	}
	return "/orgs/" + pathEscape(e.OrgID) + "/webhooks/" + pathEscape(e.ID), nil
}

func (w webhookStore) SetWebhookPaused(ctx context.Context, id string, paused bool) (*redirects.WebhookEndpoint, error) {
	p, err := w.path(ctx, id)
	if err != nil {
		return nil, err
	}
	var out redirects.WebhookEndpoint
	if err := w.do(ctx, "PATCH", p, nil, map[string]bool{"paused": paused}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func (w webhookStore) DeleteWebhook(ctx context.Context, id string) error {
	p, err := w.path(ctx, id)
	if err != nil {
		return err
	}
	return w.do(ctx, "DELETE", p, nil, nil, nil)
}

func (w webhookStore) RotateWebhookSecret(ctx context.Context, id string, overlap time.Duration) (*redirects.WebhookEndpoint, error) {
	p, err := w.path(ctx, id)
	if err != nil {
		return nil, err
	}
	var out redirects.WebhookEndpoint
	if err := w.do(ctx, "POST", p+"/secret", nil, map[string]string{"overlap": overlap.String()}, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func (w webhookStore) SendWebhookTest(ctx context.Context, id string) (string, error) {
	p, err := w.path(ctx, id)
	if err != nil {
		return "", err
	}
	var out struct{ DeliveryID string }
	if err := w.do(ctx, "POST", p+"/test", nil, nil, &out); err != nil {
		return "", err
	}
	return out.DeliveryID, nil
}

// maxDeliveries is the most deliveries the API answers at once.
const maxDeliveries = 1000

func (w webhookStore) FindWebhookDeliveries(ctx context.Context, endpointID string, limit int) ([]*redirects.WebhookDelivery, error) {
	p, err := w.path(ctx, endpointID)
	if err != nil {
		return nil, err
	}
	return w.deliveries(ctx, p, limit)
}

func (w webhookStore) deliveries(ctx context.Context, path string, limit int) ([]*redirects.WebhookDelivery, error) {
	if limit < 1 || limit > maxDeliveries {
		limit = 50 // as the store reads such a limit; the API refuses it
	}
	var j struct{ Deliveries []*redirects.WebhookDelivery }
	if err := w.do(ctx, "GET", path+"/deliveries", url.Values{"limit": {strconv.Itoa(limit)}}, nil, &j); err != nil {
		return nil, err
	}
	for _, d := range j.Deliveries {
		if len(d.Attempts) == 0 {
			d.Attempts = nil
		}
	}
	return j.Deliveries, nil
}

// findDelivery looks for a delivery among the last deliveries of every
// endpoint the token reaches, and returns it with its endpoint's path.
func (w webhookStore) findDelivery(ctx context.Context, id string) (*redirects.WebhookDelivery, string, error) {
	orgs, err := w.s.FindOrgs(ctx)
	if err != nil {
		return nil, "", err
	}
	for _, o := range orgs {
		es, err := w.FindWebhooks(ctx, o.ID)
		if err != nil {
			return nil, "", err
		}
		for _, e := range es {
			p := "/orgs/" + pathEscape(o.ID) + "/webhooks/" + pathEscape(e.ID)
			ds, err := w.deliveries(ctx, p, maxDeliveries)
			if err != nil {
				return nil, "", err
			}
			for _, d := range ds {
				if d.ID == id {
					return d, p, nil
				}
			}
		}
	}
	return nil, "", redirects.Errorf(redirects.ENOTFOUND, "webhook delivery %s not found", id)
}

func (w webhookStore) FindWebhookDelivery(ctx context.Context, id string) (*redirects.WebhookDelivery, error) {
	d, _, err := w.findDelivery(ctx, id)
	return d, err
}

func (w webhookStore) Redeliver(ctx context.Context, deliveryID string) (*redirects.WebhookDelivery, error) {
	d, p, err := w.findDelivery(ctx, deliveryID)
	if err != nil {
		return nil, err
	}
	var out redirects.WebhookDelivery
	if err := w.do(ctx, "POST", p+"/deliveries/"+pathEscape(d.ID)+"/redeliver", nil, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

func (w webhookStore) ClaimWebhookDeliveries(context.Context, string, int) ([]*redirects.WebhookDelivery, error) {
	return nil, errDatabase("sending webhook deliveries")
}

func (w webhookStore) RecordWebhookAttempt(context.Context, *redirects.WebhookDelivery, redirects.WebhookAttempt) error {
	return errDatabase("sending webhook deliveries")
}
