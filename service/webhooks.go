package service

import (
	"context"
	"time"

	"redirects"
)

// The webhooks: an organization's endpoints and their deliveries
// (docs/delivery.md#webhooks). Reading them is reading the organization
// (the deliveries hold audit entries, which viewers read); changing them
// is ActionManageWebhooks.

var _ redirects.WebhookService = (*Service)(nil)

// webhookStore is the store's webhook side: both SQL stores keep webhooks.
func (s *Service) webhookStore() (redirects.WebhookStore, error) {
	w := s.webhooks
	if w == nil {
		return nil, redirects.Errorf(redirects.EINTERNAL, "the store keeps no webhooks")
	}
	return w, nil
}

// webhook authorizes action and returns endpoint id of organization orgID
// ("" for the endpoint's own), as WebhookService names an endpoint.
func (s *Service) webhook(ctx context.Context, orgID, id string, action redirects.Action) (redirects.WebhookStore, *redirects.WebhookEndpoint, error) {
	if orgID != "" {
		if _, err := s.org(ctx, orgID, action); err != nil {
			return nil, nil, err
		}
	}
	ws, err := s.webhookStore()
	if err != nil {
		return nil, nil, err
	}
	e, err := ws.FindWebhook(ctx, id)
	switch {
	case orgID != "" && (redirects.ErrorCode(err) == redirects.ENOTFOUND || err == nil && e.OrgID != orgID):
		return nil, nil, notFound("webhook", id)
	case err != nil:
		return nil, nil, err
	case orgID == "":
		if err := authorize(ctx, e.OrgID, action); err != nil {
			if redirects.ErrorCode(err) == redirects.ENOTFOUND {
				return nil, nil, redirects.Errorf(redirects.ENOTFOUND, "webhook %s not found", id)
			}
			return nil, nil, err
		}
	}
	return ws, e, nil
}

// CreateWebhook implements redirects.WebhookService.
func (s *Service) CreateWebhook(ctx context.Context, orgID, url string, actions, projects []string) (*redirects.WebhookEndpoint, error) {
	o, err := s.org(ctx, orgID, redirects.ActionManageWebhooks)
	if err != nil {
		return nil, err
	}
	ws, err := s.webhookStore()
	if err != nil {
		return nil, err
	}
	e := redirects.NewWebhookEndpoint(o.ID, url, actions, projects)
	if err := ws.CreateWebhook(ctx, e); err != nil {
		return nil, err
	}
	return e, nil
}

// FindWebhooks implements redirects.WebhookService.
func (s *Service) FindWebhooks(ctx context.Context, orgID string) ([]*redirects.WebhookEndpoint, error) {
	o, err := s.org(ctx, orgID, redirects.ActionRead)
	if err != nil {
		return nil, err
	}
	ws, err := s.webhookStore()
	if err != nil {
		return nil, err
	}
	return ws.FindWebhooks(ctx, o.ID)
}

// FindWebhook implements redirects.WebhookService.
func (s *Service) FindWebhook(ctx context.Context, orgID, id string) (*redirects.WebhookEndpoint, error) {
	_, e, err := s.webhook(ctx, orgID, id, redirects.ActionRead)
	return e, err
}

// SetWebhookPaused implements redirects.WebhookService.
func (s *Service) SetWebhookPaused(ctx context.Context, orgID, id string, paused bool) (*redirects.WebhookEndpoint, error) {
	ws, e, err := s.webhook(ctx, orgID, id, redirects.ActionManageWebhooks)
	if err != nil {
		return nil, err
	}
	return ws.SetWebhookPaused(ctx, e.ID, paused)
}

// DeleteWebhook implements redirects.WebhookService.
func (s *Service) DeleteWebhook(ctx context.Context, orgID, id string) error {
	ws, e, err := s.webhook(ctx, orgID, id, redirects.ActionManageWebhooks)
	if err != nil {
		return err
	}
	return ws.DeleteWebhook(ctx, e.ID)
}

// SendWebhookTest implements redirects.WebhookService.
func (s *Service) SendWebhookTest(ctx context.Context, orgID, id string) (string, error) {
	ws, e, err := s.webhook(ctx, orgID, id, redirects.ActionManageWebhooks)
	if err != nil {
		return "", err
	}
	return ws.SendWebhookTest(ctx, e.ID)
}

// RotateWebhookSecret implements redirects.WebhookService.
func (s *Service) RotateWebhookSecret(ctx context.Context, orgID, id string, overlap time.Duration) (*redirects.WebhookEndpoint, error) {
	ws, e, err := s.webhook(ctx, orgID, id, redirects.ActionManageWebhooks)
	if err != nil {
		return nil, err
	}
	return ws.RotateWebhookSecret(ctx, e.ID, overlap)
}

// FindWebhookDeliveries implements redirects.WebhookService.
func (s *Service) FindWebhookDeliveries(ctx context.Context, orgID, id string, limit int) ([]*redirects.WebhookDelivery, error) {
	ws, e, err := s.webhook(ctx, orgID, id, redirects.ActionRead)
	if err != nil {
		return nil, err
	}
	if limit < 1 || limit > redirects.MaxWebhookDeliveries {
		limit = redirects.DefaultWebhookDeliveries
	}
	return ws.FindWebhookDeliveries(ctx, e.ID, limit)
}

// Redeliver implements redirects.WebhookService.
func (s *Service) Redeliver(ctx context.Context, orgID, id, deliveryID string) (*redirects.WebhookDelivery, error) {
	if id == "" && orgID == "" {
		// The command line names a delivery by its ID alone: its endpoint
		// is the delivery's, and a caller who may not see it is told the
		// delivery is missing, in the store's words.
		ws, err := s.webhookStore()
		if err != nil {
			return nil, err
		}
		d, err := ws.FindWebhookDelivery(ctx, deliveryID)
		if err != nil {
			return nil, err
		}
		if _, _, err := s.webhook(ctx, "", d.EndpointID, redirects.ActionManageWebhooks); redirects.ErrorCode(err) == redirects.ENOTFOUND {
			return nil, redirects.Errorf(redirects.ENOTFOUND, "webhook delivery %s not found", deliveryID)
		} else if err != nil {
			return nil, err
		}
		return ws.Redeliver(ctx, d.ID)
	}
	ws, e, err := s.webhook(ctx, orgID, id, redirects.ActionManageWebhooks)
	if err != nil {
		return nil, err
	}
	d, err := ws.FindWebhookDelivery(ctx, deliveryID)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND || err == nil && d.EndpointID != e.ID {
		return nil, notFound("webhook delivery", deliveryID)
	} else if err != nil {
		return nil, err
	}
	return ws.Redeliver(ctx, d.ID)
}
