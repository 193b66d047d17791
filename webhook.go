package redirects

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Webhook delivery timings. A failed delivery is tried again after each
// step of WebhookBackoff (the last repeats) until WebhookRetryFor has gone
// since it was enqueued; an endpoint that had no success for
// WebhookRetryFor when one of its deliveries gives up is disabled.
var WebhookBackoff = []time.Duration{10 * time.Second, 30 * time.Second, time.Minute, 5 * time.Minute,
	15 * time.Minute, 30 * time.Minute, time.Hour, 2 * time.Hour, 4 * time.Hour}

const (
	WebhookRetryFor = 24 * time.Hour
	// WebhookLease is how long a node holds a delivery it sends (three
	// times the sender's 5 s timeout); a node that dies mid-send frees it
	// when the lease ends, and another sends it.
	WebhookLease = 15 * time.Second
	// WebhookExcerpt is how much of an answer's body a delivery keeps.
	WebhookExcerpt = 4 << 10
	// WebhookTestAction is the action of "send a test event".
	WebhookTestAction = "webhook.test"
)

// WebhookEndpoint is where an organization wants its audit entries sent.
type WebhookEndpoint struct {
	ID    string `json:"id"`
	OrgID string `json:"orgId"`
	URL   string `json:"url"`
	// Actions selects the entries by action, exactly or by a prefix
	// ("rule.*"), as AuditFilter does; none selects every action.
	Actions []string `json:"actions"`
	// Projects selects the entries of these projects (and the
	// organization's own, which have no project); none selects all.
	Projects []string `json:"projects"`
	// Secret keys the signatures. Stores return it only from create and
	// rotate; a read leaves it "".
	Secret string `json:"secret,omitempty"`
	// OldSecretUntil is when the secret a rotation replaced stops signing.
	OldSecretUntil *time.Time `json:"oldSecretUntil"`
	Paused         bool       `json:"paused"`
	// DisabledAt is when the sender disabled the endpoint, after
	// WebhookRetryFor without a success; resume clears it.
	DisabledAt    *time.Time `json:"disabledAt"`
	CreatedAt     time.Time  `json:"createdAt"`
	LastSuccessAt time.Time  `json:"lastSuccessAt"`
}

// NewWebhookEndpoint returns an endpoint with a fresh ID and secret.
func NewWebhookEndpoint(orgID, rawURL string, actions, projects []string) *WebhookEndpoint {
	return &WebhookEndpoint{ID: "whk_" + randomBase62(16), OrgID: orgID, URL: rawURL, Actions: actions,
		Projects: projects, Secret: NewWebhookSecret()}
}

// NewWebhookSecret returns a fresh signing secret.
func NewWebhookSecret() string { return "whsec_" + randomBase62(32) }

// NewWebhookDeliveryID returns a fresh delivery ID, the receiver's key for
// idempotency.
func NewWebhookDeliveryID() string { return "whd_" + randomBase62(20) }

// Validate checks the endpoint's URL, actions and projects.
func (e *WebhookEndpoint) Validate() error {
	u, err := url.Parse(e.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.Fragment != "" {
		return Errorf(EINVALID, "url: %q is not an http or https URL without credentials or fragment", e.URL)
	}
	if len(e.URL) > 2048 {
		return Errorf(EINVALID, "url: longer than 2048 characters")
	}
	for _, a := range e.Actions {
		f := AuditFilter{Action: a, Limit: 1}
		if err := f.Validate(); err != nil || a == "" {
			return Errorf(EINVALID, "action: %q is not an action or a prefix such as \"rule.*\"", a)
		}
	}
	for _, p := range e.Projects {
		if p == "" || strings.ContainsAny(p, " \t\n") {
			return Errorf(EINVALID, "project: %q is not a project ID", p)
		}
	}
	return nil
}

// Wants reports whether the endpoint takes the entry of action in
// projectID ("" for the organization's own entries).
func (e *WebhookEndpoint) Wants(action, projectID string) bool {
	if action == WebhookTestAction {
		return false // sent only on request, to one endpoint
	}
	if len(e.Projects) > 0 && projectID != "" {
		found := false
		for _, p := range e.Projects {
			found = found || p == projectID
		}
		if !found {
			return false
		}
	}
	if len(e.Actions) == 0 {
		return true
	}
	for _, a := range e.Actions {
		f := AuditFilter{Action: a}
		if p := f.ActionPrefix(); p != "" && strings.HasPrefix(action, p) || a == action {
			return true
		}
	}
	return false
}

// Status names what the endpoint is doing: "active", "paused" or
// "disabled".
func (e *WebhookEndpoint) Status() string {
	switch {
	case e.DisabledAt != nil:
		return "disabled"
	case e.Paused:
		return "paused"
	}
	return "active"
}

// WebhookDelivery is one audit entry on its way to one endpoint.
type WebhookDelivery struct {
	ID         string    `json:"id"`
	EndpointID string    `json:"endpointId"`
	Action     string    `json:"action"`
	CreatedAt  time.Time `json:"createdAt"`
	// State is "pending", "delivered" or "failed" (gave up after
	// WebhookRetryFor).
	State    string           `json:"state"`
	Attempts []WebhookAttempt `json:"attempts"`
	NextAt   time.Time        `json:"nextAt"`
	// Body is what is sent (WebhookPayload as JSON).
	Body string `json:"-"`
	// URL and Secrets are the endpoint's, filled in for the sender.
	URL     string   `json:"-"`
	Secrets []string `json:"-"`
	// Lease is the sender's hold on the delivery (ClaimWebhookDeliveries).
	Lease WebhookLeaseToken `json:"-"`
}

// WebhookLeaseToken identifies one claim of a delivery.
type WebhookLeaseToken struct {
	Owner string
	Until time.Time
}

// WebhookAttempt is one try at a delivery and what it answered.
type WebhookAttempt struct {
	N  int       `json:"n"`
	At time.Time `json:"at"`
	// Status is the HTTP status, 0 when none came.
	Status  int           `json:"status"`
	Latency time.Duration `json:"latencyNs"`
	Error   string        `json:"error"`
	Excerpt string        `json:"excerpt"`
}

// OK reports whether the attempt delivered (a 2xx answer).
func (a *WebhookAttempt) OK() bool { return a.Status >= 200 && a.Status < 300 }

// WebhookPayload is the body of a delivery.
type WebhookPayload struct {
	// DeliveryID is the same on every attempt of a delivery: a receiver
	// that has seen it may answer 2xx and do nothing.
	DeliveryID string       `json:"deliveryId"`
	EndpointID string       `json:"endpointId"`
	Action     string       `json:"action"`
	Entry      *AuditEntry  `json:"entry"`
	Links      WebhookLinks `json:"links"`
}

// WebhookLinks are the management API's addresses of what an entry is
// about, relative to the management listener.
type WebhookLinks struct {
	Audit   string `json:"audit"`
	Org     string `json:"org"`
	Project string `json:"project,omitempty"`
}

// NewWebhookPayload returns the body of delivery id of entry e to endpoint
// endpointID.
func NewWebhookPayload(id, endpointID string, e *AuditEntry) []byte {
	p := WebhookPayload{DeliveryID: id, EndpointID: endpointID, Action: e.Action, Entry: e,
		Links: WebhookLinks{
			Audit: "/manage/v1/orgs/" + url.PathEscape(e.OrgID) + "/audit?action=" + url.QueryEscape(e.Action),
			Org:   "/manage/v1/orgs/" + url.PathEscape(e.OrgID),
		}}
	if e.ProjectID != "" {
		p.Links.Project = "/manage/v1/projects/" + url.PathEscape(e.ProjectID)
	}
	b, err := json.Marshal(p)
	if err != nil {
		panic(err) // an AuditEntry always encodes: its JSON fields are raw objects
	}
	return b
}

// WebhookSignature returns the Redirects-Signature header of body sent at
// t: "t=UNIX_SECONDS,v1=HEX" with one v1 per secret, HEX the HMAC-SHA256
// keyed with the secret over "UNIX_SECONDS.BODY".
func WebhookSignature(t time.Time, body []byte, secrets ...string) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	var b strings.Builder
	b.WriteString("t=" + ts)
	for _, s := range secrets {
		m := hmac.New(sha256.New, []byte(s))
		m.Write([]byte(ts + "."))
		m.Write(body)
		b.WriteString(",v1=" + hex.EncodeToString(m.Sum(nil)))
	}
	return b.String()
}

// WebhookBackoffAfter returns the wait before the attempt after the n-th
// (n from 1).
func WebhookBackoffAfter(n int) time.Duration {
	if n < 1 {
		n = 1
	}
	if n > len(WebhookBackoff) {
		n = len(WebhookBackoff)
	}
	return WebhookBackoff[n-1]
}

// WebhookStore keeps the webhooks' endpoints and outbox. Both SQL stores
// implement it; an audited change enqueues its deliveries in its own
// transaction.
type WebhookStore interface {
	// CreateWebhook stores a new endpoint, secret included (EINVALID,
	// ENOTFOUND for its organization or a project).
	CreateWebhook(ctx context.Context, e *WebhookEndpoint) error
	// FindWebhooks and FindWebhook return endpoints without their secrets
	// (FindWebhook: ENOTFOUND).
	FindWebhooks(ctx context.Context, orgID string) ([]*WebhookEndpoint, error)
	FindWebhook(ctx context.Context, id string) (*WebhookEndpoint, error)
	// SetWebhookPaused pauses or resumes (and re-enables) an endpoint;
	// DeleteWebhook deletes it and its deliveries; RotateWebhookSecret
	// returns it with a new secret, the old one signing for overlap.
	// ENOTFOUND for an unknown endpoint.
	SetWebhookPaused(ctx context.Context, id string, paused bool) (*WebhookEndpoint, error)
	DeleteWebhook(ctx context.Context, id string) error
	RotateWebhookSecret(ctx context.Context, id string, overlap time.Duration) (*WebhookEndpoint, error)
	// SendWebhookTest enqueues a test event and returns its delivery ID.
	SendWebhookTest(ctx context.Context, id string) (string, error)
	// FindWebhookDeliveries returns an endpoint's last deliveries, newest
	// first; FindWebhookDelivery one (ENOTFOUND); Redeliver makes one due
	// again (ENOTFOUND).
	FindWebhookDeliveries(ctx context.Context, endpointID string, limit int) ([]*WebhookDelivery, error)
	FindWebhookDelivery(ctx context.Context, id string) (*WebhookDelivery, error)
	Redeliver(ctx context.Context, deliveryID string) (*WebhookDelivery, error)
	// ClaimWebhookDeliveries and RecordWebhookAttempt are the sender's
	// (package webhook).
	ClaimWebhookDeliveries(ctx context.Context, owner string, limit int) ([]*WebhookDelivery, error)
	RecordWebhookAttempt(ctx context.Context, d *WebhookDelivery, a WebhookAttempt) error
}
