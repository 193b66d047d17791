package storetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"redirects"
)

var webhookTests = []struct {
	name string
	fn   func(t *testing.T, e *env)
}{
	{"Webhook/Outbox", testWebhookOutbox},
	{"Webhook/Lease", testWebhookLease},
	{"Webhook/RetryFor24Hours", testWebhookRetry},
	{"Webhook/PauseRotateDelete", testWebhookPauseRotate},
	{"Webhook/Invalid", testWebhookInvalid},
	{"Webhook/StuckBeforeUpgrade", testWebhookStuckBeforeUpgrade},
	{"Webhook/ClaimSkipsDisabled", testWebhookClaimSkipsDisabled},
	{"Webhook/AttemptTextCleaned", testWebhookAttemptTextCleaned},
}

func (e *env) webhooks() redirects.WebhookStore {
	e.t.Helper()
	w, ok := e.s.(redirects.WebhookStore)
	if !ok {
		e.t.Fatalf("%T does not implement redirects.WebhookStore", e.s)
	}
	return w
}

func (e *env) webhook(orgID string, actions, projects []string) *redirects.WebhookEndpoint {
	e.t.Helper()
	ep := redirects.NewWebhookEndpoint(orgID, "https://hooks.example.com/in", actions, projects)
	if err := e.webhooks().CreateWebhook(e.ctx, ep); err != nil {
		e.t.Fatalf("CreateWebhook: %v", err)
	}
	return ep
}

func (e *env) deliveries(endpointID string) []*redirects.WebhookDelivery {
	e.t.Helper()
	ds, err := e.webhooks().FindWebhookDeliveries(e.ctx, endpointID, 100)
	if err != nil {
		e.t.Fatalf("FindWebhookDeliveries: %v", err)
	}
	return ds
}

func (e *env) claim(owner string) []*redirects.WebhookDelivery {
	e.t.Helper()
	ds, err := e.webhooks().ClaimWebhookDeliveries(e.ctx, owner, 100)
	if err != nil {
		e.t.Fatalf("ClaimWebhookDeliveries(%s): %v", owner, err)
	}
	return ds
}

func (e *env) attempt(d *redirects.WebhookDelivery, status int) {
	e.t.Helper()
	if err := e.webhooks().RecordWebhookAttempt(e.ctx, d, redirects.WebhookAttempt{Status: status, Latency: time.Millisecond, Excerpt: "ok"}); err != nil {
		e.t.Fatalf("RecordWebhookAttempt(%s, %d): %v", d.ID, status, err)
	}
}

// testWebhookOutbox: an audited change enqueues a delivery for the
// endpoints that want it, in its transaction; one refused enqueues
// nothing; the body is the audit entry as the log holds it.
func testWebhookOutbox(t *testing.T, e *env) {
	o := e.org("Acme")
	p := e.project(o.ID, "www")
	other := e.project(o.ID, "blog")
	rules := e.webhook(o.ID, []string{"rule.*"}, []string{p.ID})
	all := e.webhook(o.ID, nil, nil)

	e.rule(p.ID, "/old", "/new", redirects.Exact, 0)
	e.rule(other.ID, "/x", "/y", redirects.Exact, 0)
	if err := e.s.AddRule(e.ctx, &redirects.Rule{ProjectID: p.ID, Source: "/old", Destination: "/z", StatusCode: 301, MatchType: redirects.Exact}); redirects.ErrorCode(err) != redirects.ECONFLICT {
		t.Fatalf("AddRule of a repeated source: %v, want ECONFLICT", err)
	}
	k, _ := redirects.NewKey(p.ID, "edge", false, e.clock.Now())
	if err := e.s.CreateKey(e.ctx, k); err != nil {
		t.Fatal(err)
	}

	got := e.deliveries(rules.ID)
	if len(got) != 1 || got[0].Action != redirects.AuditRuleCreate || got[0].State != "pending" {
		t.Fatalf("deliveries of the rule.* endpoint of %s = %+v, want one pending rule.create (not the other project's, not the refused one, not the key)", p.ID, got)
	}
	var body redirects.WebhookPayload
	if err := json.Unmarshal([]byte(got[0].Body), &body); err != nil {
		t.Fatalf("body %q: %v", got[0].Body, err)
	}
	entries := e.audit(redirects.AuditFilter{ProjectID: p.ID, Action: redirects.AuditRuleCreate})
	if len(entries) != 1 || body.DeliveryID != got[0].ID || body.Entry == nil || body.Entry.ID != entries[0].ID ||
		body.Entry.ObjectID != entries[0].ObjectID || body.Links.Project == "" || !strings.Contains(body.Links.Audit, o.ID) {
		t.Errorf("body = %s, want delivery %s of audit entry %+v with links", got[0].Body, got[0].ID, entries)
	}
	// The catch-all endpoint gets its own creation (its row is written
	// before its audit entry), both rules and the key.
	var actions []string
	for _, d := range e.deliveries(all.ID) {
		actions = append(actions, d.Action)
	}
	want := []string{redirects.AuditKeyCreate, redirects.AuditRuleCreate, redirects.AuditRuleCreate, redirects.AuditWebhookCreate}
	if strings.Join(actions, " ") != strings.Join(want, " ") {
		t.Errorf("catch-all endpoint's deliveries = %v, want %v (newest first)", actions, want)
	}
}

// testWebhookLease: a claimed delivery is held by one owner until its
// lease ends; a lost lease records nothing, and the next claim counts the
// try it held as an attempt whose outcome was not recorded.
func testWebhookLease(t *testing.T, e *env) {
	o := e.org("Acme")
	ep := e.webhook(o.ID, []string{redirects.AuditProjectCreate}, nil)
	e.project(o.ID, "www")
	a := e.claim("node-a")
	if len(a) != 1 || a[0].URL != ep.URL || len(a[0].Secrets) != 1 || a[0].Secrets[0] != ep.Secret {
		t.Fatalf("node-a claimed %+v, want the one delivery with the endpoint's URL and secret", a)
	}
	if b := e.claim("node-b"); len(b) != 0 {
		t.Fatalf("node-b claimed %d deliveries node-a holds", len(b))
	}
	e.clock.Add(redirects.WebhookLease + time.Second) // node-a died mid-send
	b := e.claim("node-b")
	if len(b) != 1 || b[0].ID != a[0].ID {
		t.Fatalf("node-b claimed %+v after node-a's lease ran out, want %s", b, a[0].ID)
	}
	if err := e.webhooks().RecordWebhookAttempt(e.ctx, a[0], redirects.WebhookAttempt{Status: 200}); redirects.ErrorCode(err) != redirects.ECONFLICT {
		t.Errorf("node-a records with a lost lease: %v, want ECONFLICT", err)
	}
	e.attempt(b[0], 204)
	d, err := e.webhooks().FindWebhookDelivery(e.ctx, a[0].ID)
	// node-a's try counts, unrecorded, as the first attempt (at its claim).
	if err != nil || d.State != "delivered" || len(d.Attempts) != 2 || d.Attempts[1].Status != 204 ||
		d.Attempts[0].Status != 0 || !d.Attempts[0].At.Equal(a[0].Lease.Until.Add(-redirects.WebhookLease)) || !strings.Contains(d.Attempts[0].Error, "not recorded") {
		t.Fatalf("delivery after node-b's 204 = %+v, %v; want delivered after node-a's unrecorded attempt and node-b's", d.Attempts, err)
	}
	if c := e.claim("node-c"); len(c) != 0 {
		t.Errorf("a delivered delivery was claimed again: %+v", c)
	}
	if _, err := e.webhooks().Redeliver(e.ctx, d.ID); err != nil {
		t.Fatal(err)
	}
	if c := e.claim("node-c"); len(c) != 1 || c[0].ID != d.ID {
		t.Errorf("after Redeliver node-c claimed %+v, want %s again", c, d.ID)
	}
}

// testWebhookRetry: a failing delivery is retried with growing waits for
// 24 hours, then fails and disables its endpoint; resume enables it.
func testWebhookRetry(t *testing.T, e *env) {
	o := e.org("Acme")
	ep := e.webhook(o.ID, []string{"project.*"}, nil)
	e.project(o.ID, "www")
	start := e.clock.Now()
	var lastWait time.Duration
	tries := 0
	for {
		ds := e.claim("node")
		if len(ds) != 1 {
			t.Fatalf("try %d at +%s: claimed %d deliveries, want 1", tries+1, e.clock.Now().Sub(start), len(ds))
		}
		e.attempt(ds[0], 500)
		tries++
		d, err := e.webhooks().FindWebhookDelivery(e.ctx, ds[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		if d.State == "failed" {
			break
		}
		wait := d.NextAt.Sub(e.clock.Now())
		if wait < lastWait || wait <= 0 {
			t.Fatalf("try %d: next in %s after %s, want a growing wait", tries, wait, lastWait)
		}
		lastWait = wait
		e.clock.Add(wait - time.Millisecond)
		if early := e.claim("node"); len(early) != 0 {
			t.Fatalf("try %d: claimed before its time", tries)
		}
		e.clock.Add(time.Millisecond)
		if tries > 100 {
			t.Fatal("still retrying after 100 tries")
		}
	}
	if took := e.clock.Now().Sub(start); took < redirects.WebhookRetryFor {
		t.Errorf("gave up after %s, want at least %s", took, redirects.WebhookRetryFor)
	}
	got, err := e.webhooks().FindWebhook(e.ctx, ep.ID)
	if err != nil || got.Status() != "disabled" || got.DisabledAt == nil {
		t.Fatalf("endpoint after 24 hours of failures = %+v, %v; want disabled", got, err)
	}
	if len(e.deliveries(ep.ID)[0].Attempts) != tries {
		t.Errorf("attempts kept = %d, want %d", len(e.deliveries(ep.ID)[0].Attempts), tries)
	}
	e.project(o.ID, "blog") // a disabled endpoint queues nothing
	if n := len(e.deliveries(ep.ID)); n != 1 {
		t.Errorf("a disabled endpoint got %d deliveries, want 1", n)
	}
	if got, err = e.webhooks().SetWebhookPaused(e.ctx, ep.ID, false); err != nil || got.Status() != "active" {
		t.Fatalf("resume: %+v, %v", got, err)
	}
	e.project(o.ID, "shop")
	ds := e.claim("node")
	if len(ds) != 1 || ds[0].Action != redirects.AuditProjectCreate {
		t.Fatalf("after resume claimed %+v, want the new project's delivery", ds)
	}
	e.attempt(ds[0], 200)
}

// testWebhookPauseRotate: a paused endpoint queues but is not sent to; a
// rotated secret signs with the old one during the overlap; a deleted
// endpoint takes its deliveries with it.
func testWebhookPauseRotate(t *testing.T, e *env) {
	o := e.org("Acme")
	ep := e.webhook(o.ID, []string{"project.create"}, nil)
	if _, err := e.webhooks().SetWebhookPaused(e.ctx, ep.ID, true); err != nil {
		t.Fatal(err)
	}
	e.project(o.ID, "www")
	if ds := e.claim("node"); len(ds) != 0 {
		t.Fatalf("a paused endpoint's delivery was claimed")
	}
	if n := len(e.deliveries(ep.ID)); n != 1 {
		t.Fatalf("a paused endpoint queued %d deliveries, want 1", n)
	}
	rot, err := e.webhooks().RotateWebhookSecret(e.ctx, ep.ID, time.Hour)
	if err != nil || rot.Secret == "" || rot.Secret == ep.Secret {
		t.Fatalf("RotateWebhookSecret: %+v, %v; want a new secret", rot, err)
	}
	if _, err := e.webhooks().SetWebhookPaused(e.ctx, ep.ID, false); err != nil {
		t.Fatal(err)
	}
	ds := e.claim("node")
	if len(ds) != 1 || len(ds[0].Secrets) != 2 || ds[0].Secrets[0] != rot.Secret || ds[0].Secrets[1] != ep.Secret {
		t.Fatalf("during the overlap claimed %+v, want the new and the old secret", ds)
	}
	e.attempt(ds[0], 500)
	e.clock.Add(time.Hour)
	ds = e.claim("node")
	if len(ds) != 1 || len(ds[0].Secrets) != 1 || ds[0].Secrets[0] != rot.Secret {
		t.Fatalf("after the overlap claimed %+v, want the new secret alone", ds)
	}
	e.attempt(ds[0], 500)
	id, err := e.webhooks().SendWebhookTest(e.ctx, ep.ID)
	if err != nil || !strings.HasPrefix(id, "whd_") {
		t.Fatalf("SendWebhookTest: %q, %v", id, err)
	}
	if found, _ := e.webhooks().FindWebhooks(e.ctx, o.ID); len(found) != 1 || found[0].Secret != "" {
		t.Errorf("FindWebhooks = %+v, want the endpoint without its secret", found)
	}
	if err := e.webhooks().DeleteWebhook(e.ctx, ep.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.webhooks().FindWebhookDelivery(e.ctx, id); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Errorf("a deleted endpoint's delivery: %v, want ENOTFOUND", err)
	}
	if _, err := e.webhooks().FindWebhook(e.ctx, ep.ID); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Errorf("FindWebhook of a deleted endpoint: %v, want ENOTFOUND", err)
	}
	acts := auditActions(e.audit(redirects.AuditFilter{OrgID: o.ID, Action: "webhook.*"}))
	want := []string{redirects.AuditWebhookDelete, redirects.AuditWebhookUpdate, redirects.AuditWebhookRotate, redirects.AuditWebhookUpdate, redirects.AuditWebhookCreate}
	if strings.Join(acts, " ") != strings.Join(want, " ") {
		t.Errorf("audit of the endpoint = %v, want %v", acts, want)
	}
}

func testWebhookInvalid(t *testing.T, e *env) {
	o := e.org("Acme")
	other := e.project(e.org("Other").ID, "www")
	for _, tc := range []struct {
		field string
		ep    *redirects.WebhookEndpoint
		code  string
	}{
		{"url", redirects.NewWebhookEndpoint(o.ID, "ftp://x", nil, nil), redirects.EINVALID},
		{"url", redirects.NewWebhookEndpoint(o.ID, "https://user:pw@x/", nil, nil), redirects.EINVALID},
		{"action", redirects.NewWebhookEndpoint(o.ID, "https://x/", []string{"Rule.Create"}, nil), redirects.EINVALID},
		// Another organization's project is answered as an unknown one.
		{"project", redirects.NewWebhookEndpoint(o.ID, "https://x/", nil, []string{other.ID}), redirects.ENOTFOUND},
		{"project", redirects.NewWebhookEndpoint(o.ID, "https://x/", nil, []string{"prj_nope"}), redirects.ENOTFOUND},
		{"org", redirects.NewWebhookEndpoint("org_nope", "https://x/", nil, nil), redirects.ENOTFOUND},
	} {
		err := e.webhooks().CreateWebhook(e.ctx, tc.ep)
		if redirects.ErrorCode(err) != tc.code || !strings.Contains(strings.ToLower(err.Error()), tc.field) {
			t.Errorf("CreateWebhook(%s %v %v): %v, want %s naming %s", tc.ep.URL, tc.ep.Actions, tc.ep.Projects, err, tc.code, tc.field)
		}
		if tc.code == redirects.ENOTFOUND && tc.field == "project" {
			if want := fmt.Sprintf("project %q not found", tc.ep.Projects[0]); redirects.ErrorMessage(err) != want {
				t.Errorf("CreateWebhook with project %s: %q, want %q, as for any project not found", tc.ep.Projects[0], redirects.ErrorMessage(err), want)
			}
		}
	}
}

// testWebhookStuckBeforeUpgrade: a delivery stuck before unrecorded tries
// were counted (attempts 0 and a lease run out, created over 24 hours ago)
// is sent at its next claim, its first try counted without failing it:
// no delivery fails, and no endpoint is disabled, without a real try.
func testWebhookStuckBeforeUpgrade(t *testing.T, e *env) {
	o := e.org("Acme")
	ep := e.webhook(o.ID, []string{redirects.AuditProjectCreate}, nil)
	e.project(o.ID, "www")
	e.clock.Add(30 * time.Hour)
	if ds := e.claim("old-node"); len(ds) != 1 { // a node that never records
		t.Fatalf("old-node claimed %d deliveries, want 1", len(ds))
	}
	e.clock.Add(redirects.WebhookLease + time.Second)
	ds := e.claim("node")
	if len(ds) != 1 {
		d := e.deliveries(ep.ID)[0]
		t.Fatalf("after the stale lease claimed %d deliveries, want the stuck one sent; it is %s with %+v", len(ds), d.State, d.Attempts)
	}
	e.attempt(ds[0], 200)
	d, err := e.webhooks().FindWebhookDelivery(e.ctx, ds[0].ID)
	if err != nil || d.State != "delivered" || len(d.Attempts) != 2 || !strings.Contains(d.Attempts[0].Error, "not recorded") || d.Attempts[1].Status != 200 {
		t.Fatalf("delivery = %+v, %v; want delivered after the unrecorded try and a real one", d, err)
	}
	if got, err := e.webhooks().FindWebhook(e.ctx, ep.ID); err != nil || got.DisabledAt != nil {
		t.Errorf("endpoint = %+v, %v; want it enabled", got, err)
	}
}

// testWebhookClaimSkipsDisabled: a claim that fails a delivery (counting
// its unrecorded try after 24 hours) and so disables its endpoint leases
// none of that endpoint's other deliveries.
func testWebhookClaimSkipsDisabled(t *testing.T, e *env) {
	o := e.org("Acme")
	ep := e.webhook(o.ID, []string{redirects.AuditProjectCreate}, nil)
	e.project(o.ID, "www")
	ds := e.claim("node-a")
	if len(ds) != 1 {
		t.Fatalf("claimed %d deliveries, want 1", len(ds))
	}
	e.attempt(ds[0], 500)
	e.clock.Add(25 * time.Hour)
	if ds := e.claim("node-a"); len(ds) != 1 { // node-a dies holding it
		t.Fatalf("claimed %d deliveries, want 1", len(ds))
	}
	e.project(o.ID, "blog")
	e.clock.Add(redirects.WebhookLease + time.Second)
	if ds := e.claim("node-b"); len(ds) != 0 {
		t.Errorf("node-b claimed %d deliveries (%s) of an endpoint its claim disabled, want none", len(ds), ds[0].Action)
	}
	got, err := e.webhooks().FindWebhook(e.ctx, ep.ID)
	if err != nil || got.DisabledAt == nil {
		t.Fatalf("endpoint = %+v, %v; want it disabled", got, err)
	}
	var states []string
	for _, d := range e.deliveries(ep.ID) {
		states = append(states, fmt.Sprintf("%s/%d", d.State, len(d.Attempts)))
	}
	if want := "pending/0 failed/2"; strings.Join(states, " ") != want {
		t.Errorf("deliveries (newest first) = %v, want %s", states, want)
	}
}

// testWebhookAttemptTextCleaned: the store itself cleans an attempt's
// error and excerpt (NUL and invalid UTF-8 become U+FFFD, also a rune
// that the excerpt's cap cuts), whatever its caller did.
func testWebhookAttemptTextCleaned(t *testing.T, e *env) {
	o := e.org("Acme")
	e.webhook(o.ID, []string{redirects.AuditProjectCreate}, nil)
	e.project(o.ID, "www")
	ds := e.claim("node")
	if len(ds) != 1 {
		t.Fatalf("claimed %d deliveries, want 1", len(ds))
	}
	pad := strings.Repeat("x", redirects.WebhookExcerpt-4)
	excerpt := "a\x00\xff" + pad + "\u20ac" // the euro sign's 3 bytes straddle the cap
	if err := e.webhooks().RecordWebhookAttempt(e.ctx, ds[0], redirects.WebhookAttempt{Status: 500, Error: "b\x00\xfe", Excerpt: excerpt}); err != nil {
		t.Fatalf("RecordWebhookAttempt with NUL and invalid UTF-8: %v", err)
	}
	d, err := e.webhooks().FindWebhookDelivery(e.ctx, ds[0].ID)
	if err != nil || len(d.Attempts) != 1 {
		t.Fatalf("delivery = %+v, %v", d, err)
	}
	a := d.Attempts[0]
	if want := "a\ufffd\ufffd" + pad + "\ufffd"; a.Excerpt != want || !utf8.ValidString(a.Excerpt) {
		t.Errorf("excerpt = %q...%q, want %q...%q", head(a.Excerpt), tail(a.Excerpt), head(want), tail(want))
	}
	if want := "b\ufffd\ufffd"; a.Error != want {
		t.Errorf("error = %q, want %q", a.Error, want)
	}
}

func head(s string) string { return s[:min(len(s), 8)] }
func tail(s string) string { return s[max(0, len(s)-8):] }
