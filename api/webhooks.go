package api

import "redirects"

// Webhook is an organization's webhook endpoint (docs/delivery.md#webhooks):
// the endpoint's own fields and its status; Secret only in the answers to
// its creation and to a rotation.
type Webhook struct {
	*redirects.WebhookEndpoint
	Status string `json:"status"`
}

// WebhookOf is e as the API shows it: its lists of actions and projects
// empty rather than null.
func WebhookOf(e *redirects.WebhookEndpoint) Webhook {
	if e.Actions == nil {
		e.Actions = []string{}
	}
	if e.Projects == nil {
		e.Projects = []string{}
	}
	return Webhook{WebhookEndpoint: e, Status: e.Status()}
}

// WebhookList is the answer of GET /orgs/{org}/webhooks.
type WebhookList struct {
	Webhooks []Webhook `json:"webhooks"`
}

// WebhookCreate is the body of POST /orgs/{org}/webhooks: url is
// required; no actions or projects select every one.
type WebhookCreate struct {
	URL      *string  `json:"url"`
	Actions  []string `json:"actions,omitempty"`
	Projects []string `json:"projects,omitempty"`
}

// WebhookUpdate is the body of PATCH /orgs/{org}/webhooks/{id}: pause or
// resume.
type WebhookUpdate struct {
	Paused *bool `json:"paused"`
}

// WebhookRotate is the body of POST /orgs/{org}/webhooks/{id}/secret.
type WebhookRotate struct {
	// Overlap is how long the old secret also signs, a duration ("1h");
	// "" is 24h.
	Overlap string `json:"overlap"`
}

// WebhookTest is the answer of POST /orgs/{org}/webhooks/{id}/test.
type WebhookTest struct {
	DeliveryID string `json:"deliveryId"`
}

// WebhookDeliveries is the answer of GET
// /orgs/{org}/webhooks/{id}/deliveries.
type WebhookDeliveries struct {
	Deliveries []*redirects.WebhookDelivery `json:"deliveries"`
}

// DeliveryOf is d as the API shows it: its attempts empty rather than
// null.
func DeliveryOf(d *redirects.WebhookDelivery) *redirects.WebhookDelivery {
	if d.Attempts == nil {
		d.Attempts = []redirects.WebhookAttempt{}
	}
	return d
}
