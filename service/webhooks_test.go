package service_test

import (
	"testing"
	"time"

	"redirects"
)

func TestWebhookService(t *testing.T) {
	f := newFixture(t)
	owner, editor, viewer, stranger := f.as(redirects.RoleOwner), f.as(redirects.RoleEditor), f.as(redirects.RoleViewer), f.as("")
	const url = "https://hooks.example.com/redirects"

	_, err := f.svc.CreateWebhook(editor, f.org.ID, url, nil, nil)
	wantCode(t, "an editor creates a webhook", err, redirects.EFORBIDDEN, "")
	_, err = f.svc.CreateWebhook(stranger, f.org.ID, url, nil, nil)
	wantCode(t, "a stranger creates a webhook", err, redirects.ENOTFOUND, `organization "`+f.org.ID+`" not found`)
	_, err = f.svc.CreateWebhook(owner, f.org.ID, "ftp://hooks.example.com/", nil, nil)
	wantCode(t, "a webhook to an ftp URL", err, redirects.EINVALID, "")
	e, err := f.svc.CreateWebhook(owner, f.org.ID, url, []string{"rule.*"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.Secret == "" || e.OrgID != f.org.ID {
		t.Fatalf("a new webhook is %+v, want its secret and organization", e)
	}
	theirs, err := f.svc.CreateWebhook(local(), f.other.ID, url, nil, nil)
	if err != nil {
		t.Fatal(err)
	}

	es, err := f.svc.FindWebhooks(viewer, f.org.ID)
	if err != nil || len(es) != 1 || es[0].ID != e.ID || es[0].Secret != "" {
		t.Fatalf("a viewer's list = %+v, %v", es, err)
	}
	if got, err := f.svc.FindWebhook(viewer, f.org.ID, e.ID); err != nil || got.ID != e.ID {
		t.Fatalf("a viewer finds %+v, %v", got, err)
	}
	_, err = f.svc.FindWebhook(viewer, f.org.ID, theirs.ID)
	wantCode(t, "another organization's webhook by the path's organization", err, redirects.ENOTFOUND, `webhook "`+theirs.ID+`" not found`)
	_, err = f.svc.FindWebhook(viewer, "", theirs.ID)
	wantCode(t, "another organization's webhook by its ID", err, redirects.ENOTFOUND, "webhook "+theirs.ID+" not found")
	if got, err := f.svc.FindWebhook(viewer, "", e.ID); err != nil || got.ID != e.ID {
		t.Fatalf("a viewer finds by ID alone %+v, %v", got, err)
	}

	_, err = f.svc.SetWebhookPaused(viewer, f.org.ID, e.ID, true)
	wantCode(t, "a viewer pauses", err, redirects.EFORBIDDEN, "")
	if p, err := f.svc.SetWebhookPaused(owner, f.org.ID, e.ID, true); err != nil || p.Status() != "paused" {
		t.Fatalf("pause = %+v, %v", p, err)
	}
	if p, err := f.svc.SetWebhookPaused(local(), "", e.ID, false); err != nil || p.Status() != "active" {
		t.Fatalf("resume by ID alone = %+v, %v", p, err)
	}

	_, err = f.svc.SendWebhookTest(editor, f.org.ID, e.ID)
	wantCode(t, "an editor tests", err, redirects.EFORBIDDEN, "")
	did, err := f.svc.SendWebhookTest(owner, f.org.ID, e.ID)
	if err != nil || did == "" {
		t.Fatalf("test = %q, %v", did, err)
	}
	ds, err := f.svc.FindWebhookDeliveries(viewer, f.org.ID, e.ID, 0)
	if err != nil || len(ds) != 1 || ds[0].ID != did || ds[0].Action != redirects.WebhookTestAction {
		t.Fatalf("deliveries = %+v, %v", ds, err)
	}
	_, err = f.svc.Redeliver(viewer, f.org.ID, e.ID, did)
	wantCode(t, "a viewer redelivers", err, redirects.EFORBIDDEN, "")
	_, err = f.svc.Redeliver(local(), f.other.ID, theirs.ID, did)
	wantCode(t, "a delivery of another endpoint", err, redirects.ENOTFOUND, `webhook delivery "`+did+`" not found`)
	if d, err := f.svc.Redeliver(owner, f.org.ID, e.ID, did); err != nil || d.ID != did {
		t.Fatalf("redeliver = %+v, %v", d, err)
	}
	if d, err := f.svc.Redeliver(local(), "", "", did); err != nil || d.EndpointID != e.ID {
		t.Fatalf("redeliver by the delivery's ID alone = %+v, %v", d, err)
	}
	_, err = f.svc.Redeliver(local(), "", "", "whd_missing")
	wantCode(t, "redeliver a missing delivery", err, redirects.ENOTFOUND, "webhook delivery whd_missing not found")

	_, err = f.svc.RotateWebhookSecret(owner, f.org.ID, e.ID, -time.Hour)
	wantCode(t, "a negative overlap", err, redirects.EINVALID, "")
	rot, err := f.svc.RotateWebhookSecret(owner, f.org.ID, e.ID, time.Hour)
	if err != nil || rot.Secret == "" || rot.Secret == e.Secret || rot.OldSecretUntil == nil {
		t.Fatalf("rotate = %+v, %v", rot, err)
	}

	wantCode(t, "a viewer deletes", f.svc.DeleteWebhook(viewer, f.org.ID, e.ID), redirects.EFORBIDDEN, "")
	wantCode(t, "an owner deletes another organization's", f.svc.DeleteWebhook(owner, f.org.ID, theirs.ID), redirects.ENOTFOUND, "")
	wantCode(t, "an owner deletes", f.svc.DeleteWebhook(owner, f.org.ID, e.ID), "", "")
	_, err = f.svc.FindWebhook(owner, f.org.ID, e.ID)
	wantCode(t, "a deleted webhook", err, redirects.ENOTFOUND, "")
}
