package service_test

import (
	"context"
	"testing"
	"time"

	"redirects"
)

// authzAcross are the operations that name an object of the other
// organization through the fixture's own organization or project: even
// its owner must find none of them, and change nothing.
var authzAcross = []struct {
	name string
	call func(ctx context.Context, f *authzFixture) error
}{
	{"their rule found in our project", func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Rules.FindRule(ctx, f.project.ID, f.theirs.rule.ID)
		return err
	}},
	{"their rule updated in our project", func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Rules.UpdateRule(ctx, f.project.ID, f.theirs.rule.ID, redirects.RuleUpdate{Destination: authzPtr("/ours")})
		return err
	}},
	{"their rule deleted in our project", func(ctx context.Context, f *authzFixture) error {
		return f.svc.Rules.DeleteRule(ctx, f.project.ID, f.theirs.rule.ID, 0)
	}},
	{"their import undone in our project", func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Imports.UndoImport(ctx, f.project.ID, f.theirs.undoID)
		return err
	}},
	{"their import's undo checked in our project", func(ctx context.Context, f *authzFixture) error {
		return f.svc.UndoChecks.CheckImportUndo(ctx, f.project.ID, f.theirs.undoID)
	}},
	{"their key revoked in our project", func(ctx context.Context, f *authzFixture) error {
		_, _, err := f.svc.Keys.RevokeKey(ctx, f.project.ID, f.theirs.key.ID)
		return err
	}},
	{"their token revoked in our organization", func(ctx context.Context, f *authzFixture) error {
		_, _, err := f.svc.Tokens.RevokeToken(ctx, f.org.ID, f.theirs.token.ID)
		return err
	}},
	{"their member's role set in our organization", func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Members.SetMemberRole(ctx, f.org.ID, f.users["other member"].ID, redirects.RoleViewer)
		return err
	}},
	{"their member removed from our organization", func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Members.RemoveMember(ctx, f.org.ID, f.users["other member"].ID)
		return err
	}},
	{"a webhook of ours on their project", func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.CreateWebhook(ctx, f.org.ID, "https://hooks.example.com/spy", nil, []string{f.otherProject.ID})
		return err
	}},
	{"their webhook found in our organization", func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.FindWebhook(ctx, f.org.ID, f.theirs.webhook.ID)
		return err
	}},
	{"their webhook paused in our organization", func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.SetWebhookPaused(ctx, f.org.ID, f.theirs.webhook.ID, true)
		return err
	}},
	{"their webhook deleted in our organization", func(ctx context.Context, f *authzFixture) error {
		return f.svc.Webhooks.DeleteWebhook(ctx, f.org.ID, f.theirs.webhook.ID)
	}},
	{"their webhook tested in our organization", func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.SendWebhookTest(ctx, f.org.ID, f.theirs.webhook.ID)
		return err
	}},
	{"their webhook's secret rotated in our organization", func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.RotateWebhookSecret(ctx, f.org.ID, f.theirs.webhook.ID, time.Hour)
		return err
	}},
	{"their webhook's deliveries in our organization", func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.FindWebhookDeliveries(ctx, f.org.ID, f.theirs.webhook.ID, 10)
		return err
	}},
	{"their delivery sent again through our webhook", func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.Redeliver(ctx, f.org.ID, f.webhook.ID, f.theirs.delivery)
		return err
	}},
	{"their project's audit in our organization", func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Insight.FindAudit(ctx, redirects.AuditFilter{OrgID: f.org.ID, ProjectID: f.otherProject.ID})
		return err
	}},
}

func TestAuthzAcrossOrganizations(t *testing.T) {
	f := newAuthzFixture(t, newAuthzTemplate(t))
	for _, caller := range []string{"owner", "owner token", "operator owner"} {
		for _, op := range authzAcross {
			before := f.snapshot()
			err := op.call(f.as(caller), f)
			if redirects.ErrorCode(err) != redirects.ENOTFOUND {
				t.Errorf("%s, as %s: got %v, want ENOTFOUND", op.name, caller, err)
			}
			after := f.snapshot()
			for table, rows := range after {
				if before[table] != rows {
					t.Errorf("%s, as %s: table %s changed", op.name, caller, table)
				}
			}
		}
	}
}
