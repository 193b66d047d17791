package redirects

import (
	"context"
	"time"
)

// WebhookService is the service layer's webhooks (see Services): an
// organization's endpoints and their deliveries (docs/delivery.md#webhooks).
// Each method authorizes the caller in the context, validates, and changes
// or reads the store once. Reading is reading the organization
// (ActionRead); every change is ActionManageWebhooks.
//
// Every method but CreateWebhook and FindWebhooks names an endpoint by its
// organization and its ID. An organization "" is the endpoint's own: the
// command line names an endpoint by its ID alone. Given an organization, a
// caller with no role in it gets the ENOTFOUND of a missing organization,
// and an endpoint of another organization is answered as a missing one.
type WebhookService interface {
	// CreateWebhook registers an endpoint of organization orgID and
	// returns it with its secret, the only answer that holds it. Errors:
	// ENOTFOUND (the organization, a project), EFORBIDDEN, EINVALID (the
	// URL, an action, a project).
	CreateWebhook(ctx context.Context, orgID, url string, actions, projects []string) (*WebhookEndpoint, error)
	// FindWebhooks returns the organization's endpoints, without their
	// secrets. Errors: ENOTFOUND (the organization).
	FindWebhooks(ctx context.Context, orgID string) ([]*WebhookEndpoint, error)
	// FindWebhook returns one endpoint, without its secret. Errors:
	// ENOTFOUND (the organization, the endpoint).
	FindWebhook(ctx context.Context, orgID, id string) (*WebhookEndpoint, error)
	// SetWebhookPaused pauses an endpoint, or resumes it (which enables
	// one the sender disabled). Errors: ENOTFOUND, EFORBIDDEN.
	SetWebhookPaused(ctx context.Context, orgID, id string, paused bool) (*WebhookEndpoint, error)
	// DeleteWebhook deletes an endpoint and its deliveries. Errors:
	// ENOTFOUND, EFORBIDDEN.
	DeleteWebhook(ctx context.Context, orgID, id string) error
	// SendWebhookTest queues a webhook.test event for the endpoint and
	// returns its delivery ID. Errors: ENOTFOUND, EFORBIDDEN.
	SendWebhookTest(ctx context.Context, orgID, id string) (string, error)
	// RotateWebhookSecret gives the endpoint a new secret and returns it
	// with it, once; the old secret also signs for overlap. Errors:
	// ENOTFOUND, EFORBIDDEN, EINVALID (an overlap outside 0 to 168h).
	RotateWebhookSecret(ctx context.Context, orgID, id string, overlap time.Duration) (*WebhookEndpoint, error)
	// FindWebhookDeliveries returns the endpoint's last deliveries, newest
	// first, at most limit (1 to MaxWebhookDeliveries; another limit is
	// DefaultWebhookDeliveries). Errors: ENOTFOUND.
	FindWebhookDeliveries(ctx context.Context, orgID, id string, limit int) ([]*WebhookDelivery, error)
	// Redeliver makes delivery deliveryID of the endpoint due again, with
	// WebhookRetryFor of retries from now. An endpoint "" (with an
	// organization "") is the delivery's own. Errors: ENOTFOUND (the
	// endpoint, the delivery, or a delivery of another endpoint),
	// EFORBIDDEN.
	Redeliver(ctx context.Context, orgID, id, deliveryID string) (*WebhookDelivery, error)
}

// The limits of WebhookService.FindWebhookDeliveries.
const (
	DefaultWebhookDeliveries = 50
	MaxWebhookDeliveries     = 1000
)
