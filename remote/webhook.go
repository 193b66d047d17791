package remote

import (
	"context"

	"redirects"
)

// Webhook is an organization's webhook endpoint as the management API
// answers it (docs/manage.md, Webhooks); Secret only when it is made.
type Webhook struct {
	ID       string   `json:"id"`
	OrgID    string   `json:"orgId"`
	URL      string   `json:"url"`
	Actions  []string `json:"actions"`
	Projects []string `json:"projects"`
	Paused   bool     `json:"paused"`
	Status   string   `json:"status"`
	Secret   string   `json:"secret,omitempty"`
}

// CreateWebhook makes an endpoint; the answer holds its secret, shown
// this once.
func (s *Store) CreateWebhook(ctx context.Context, orgID, url string, actions, projects []string) (*Webhook, error) {
	body := map[string]any{"url": url}
	if len(actions) > 0 {
		body["actions"] = actions
	}
	if len(projects) > 0 {
		body["projects"] = projects
	}
	var w Webhook
	if err := s.c.do(ctx, "POST", "/orgs/"+pathEscape(orgID)+"/webhooks", nil, body, "", &w); err != nil {
		return nil, err
	}
	return &w, nil
}

// FindWebhook returns one endpoint of the organization, or ENOTFOUND.
func (s *Store) FindWebhook(ctx context.Context, orgID, id string) (*Webhook, error) {
	var j struct{ Webhooks []Webhook }
	if err := s.c.do(ctx, "GET", "/orgs/"+pathEscape(orgID)+"/webhooks", nil, nil, "", &j); err != nil {
		return nil, err
	}
	for i := range j.Webhooks {
		if j.Webhooks[i].ID == id {
			return &j.Webhooks[i], nil
		}
	}
	return nil, redirects.Errorf(redirects.ENOTFOUND, "webhook %s not found in organization %s", id, orgID)
}

// SetWebhookPaused pauses or resumes an endpoint.
func (s *Store) SetWebhookPaused(ctx context.Context, orgID, id string, paused bool) (*Webhook, error) {
	var w Webhook
	if err := s.c.do(ctx, "PATCH", "/orgs/"+pathEscape(orgID)+"/webhooks/"+pathEscape(id), nil, map[string]any{"paused": paused}, "", &w); err != nil {
		return nil, err
	}
	return &w, nil
}

// DeleteWebhook deletes an endpoint with its deliveries.
func (s *Store) DeleteWebhook(ctx context.Context, orgID, id string) error {
	return s.c.do(ctx, "DELETE", "/orgs/"+pathEscape(orgID)+"/webhooks/"+pathEscape(id), nil, nil, "", nil)
}
