package remote

import (
	"context"
	"net/url"
	"strconv"
	"time"

	"redirects"
	"redirects/api"
)

// The webhooks over the management API's routes. The command line names
// an endpoint or a delivery by its ID alone (an organization ""): the
// endpoint is looked for in each organization the token reaches.
// Claiming and recording deliveries are the sender's, on the server.

var _ redirects.WebhookService = (*Client)(nil)

// reachedOrgIDs returns the IDs of the organizations the token reaches.
func (c *Client) reachedOrgIDs(ctx context.Context) ([]string, error) {
	var j api.Orgs
	if err := c.do(ctx, "GET", "/orgs", nil, nil, "", &j); err != nil {
		return nil, err
	}
	out := make([]string, len(j.Orgs))
	for i, o := range j.Orgs {
		out[i] = o.ID
	}
	return out, nil
}

func webhooksPath(orgID string) string { return "/orgs/" + pathEscape(orgID) + "/webhooks" }

// CreateWebhook implements redirects.WebhookService.
func (c *Client) CreateWebhook(ctx context.Context, orgID, url string, actions, projects []string) (*redirects.WebhookEndpoint, error) {
	var out api.Webhook
	body := api.WebhookCreate{URL: &url, Actions: actions, Projects: projects}
	if err := c.do(ctx, "POST", webhooksPath(orgID), nil, body, "", &out); err != nil {
		return nil, err
	}
	return out.WebhookEndpoint, nil
}

// FindWebhooks implements redirects.WebhookService.
func (c *Client) FindWebhooks(ctx context.Context, orgID string) ([]*redirects.WebhookEndpoint, error) {
	var j api.WebhookList
	if err := c.do(ctx, "GET", webhooksPath(orgID), nil, nil, "", &j); err != nil {
		return nil, err
	}
	out := make([]*redirects.WebhookEndpoint, len(j.Webhooks))
	for i, w := range j.Webhooks {
		out[i] = w.WebhookEndpoint
	}
	return out, nil
}

// FindWebhook implements redirects.WebhookService: the API lists an
// organization's endpoints, in which the client looks for it.
func (c *Client) FindWebhook(ctx context.Context, orgID, id string) (*redirects.WebhookEndpoint, error) {
	orgs := []string{orgID}
	if orgID == "" {
		var err error
		if orgs, err = c.reachedOrgIDs(ctx); err != nil {
			return nil, err
		}
	}
	for _, o := range orgs {
		es, err := c.FindWebhooks(ctx, o)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			if e.ID == id {
				return e, nil
			}
		}
	}
	if orgID != "" {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "webhook %q not found", id)
	}
	return nil, redirects.Errorf(redirects.ENOTFOUND, "webhook %s not found", id)
}

// webhookPath returns the API's path of an endpoint.
func (c *Client) webhookPath(ctx context.Context, orgID, id string) (string, error) {
	if orgID == "" {
		e, err := c.FindWebhook(ctx, "", id)
		if err != nil {
			return "", err
		}
		orgID = e.OrgID
	}
	return webhooksPath(orgID) + "/" + pathEscape(id), nil
}

// SetWebhookPaused implements redirects.WebhookService.
func (c *Client) SetWebhookPaused(ctx context.Context, orgID, id string, paused bool) (*redirects.WebhookEndpoint, error) {
	p, err := c.webhookPath(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	var out api.Webhook
	if err := c.do(ctx, "PATCH", p, nil, api.WebhookUpdate{Paused: &paused}, "", &out); err != nil {
		return nil, err
	}
	return out.WebhookEndpoint, nil
}

// DeleteWebhook implements redirects.WebhookService.
func (c *Client) DeleteWebhook(ctx context.Context, orgID, id string) error {
	p, err := c.webhookPath(ctx, orgID, id)
	if err != nil {
		return err
	}
	return c.do(ctx, "DELETE", p, nil, nil, "", nil)
}

// SendWebhookTest implements redirects.WebhookService.
func (c *Client) SendWebhookTest(ctx context.Context, orgID, id string) (string, error) {
	p, err := c.webhookPath(ctx, orgID, id)
	if err != nil {
		return "", err
	}
	var out api.WebhookTest
	if err := c.do(ctx, "POST", p+"/test", nil, nil, "", &out); err != nil {
		return "", err
	}
	return out.DeliveryID, nil
}

// RotateWebhookSecret implements redirects.WebhookService.
func (c *Client) RotateWebhookSecret(ctx context.Context, orgID, id string, overlap time.Duration) (*redirects.WebhookEndpoint, error) {
	p, err := c.webhookPath(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	var out api.Webhook
	if err := c.do(ctx, "POST", p+"/secret", nil, api.WebhookRotate{Overlap: overlap.String()}, "", &out); err != nil {
		return nil, err
	}
	return out.WebhookEndpoint, nil
}

// FindWebhookDeliveries implements redirects.WebhookService.
func (c *Client) FindWebhookDeliveries(ctx context.Context, orgID, id string, limit int) ([]*redirects.WebhookDelivery, error) {
	p, err := c.webhookPath(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	return c.deliveries(ctx, p, limit)
}

func (c *Client) deliveries(ctx context.Context, path string, limit int) ([]*redirects.WebhookDelivery, error) {
	if limit < 1 || limit > redirects.MaxWebhookDeliveries {
		limit = redirects.DefaultWebhookDeliveries // as the service reads such a limit; the API refuses it
	}
	var j api.WebhookDeliveries
	if err := c.do(ctx, "GET", path+"/deliveries", url.Values{"limit": {strconv.Itoa(limit)}}, nil, "", &j); err != nil {
		return nil, err
	}
	for _, d := range j.Deliveries {
		// No attempt is an empty list in the API's answer, nil in the
		// store's delivery.
		if len(d.Attempts) == 0 {
			d.Attempts = nil
		}
	}
	return j.Deliveries, nil
}

// Redeliver implements redirects.WebhookService. With no endpoint, the
// delivery is looked for among the last deliveries of every endpoint the
// token reaches.
func (c *Client) Redeliver(ctx context.Context, orgID, id, deliveryID string) (*redirects.WebhookDelivery, error) {
	var p string
	if id == "" && orgID == "" {
		var err error
		if p, err = c.findDelivery(ctx, deliveryID); err != nil {
			return nil, err
		}
	} else {
		var err error
		if p, err = c.webhookPath(ctx, orgID, id); err != nil {
			return nil, err
		}
	}
	var out redirects.WebhookDelivery
	if err := c.do(ctx, "POST", p+"/deliveries/"+pathEscape(deliveryID)+"/redeliver", nil, nil, "", &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// findDelivery returns the API's path of the endpoint of delivery id.
func (c *Client) findDelivery(ctx context.Context, id string) (string, error) {
	orgs, err := c.reachedOrgIDs(ctx)
	if err != nil {
		return "", err
	}
	for _, o := range orgs {
		es, err := c.FindWebhooks(ctx, o)
		if err != nil {
			return "", err
		}
		for _, e := range es {
			p := webhooksPath(o) + "/" + pathEscape(e.ID)
			ds, err := c.deliveries(ctx, p, redirects.MaxWebhookDeliveries)
			if err != nil {
				return "", err
			}
			for _, d := range ds {
				if d.ID == id {
					return p, nil
				}
			}
		}
	}
	return "", redirects.Errorf(redirects.ENOTFOUND, "webhook delivery %s not found", id)
}
