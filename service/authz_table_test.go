package service_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/api"
	"redirects/service"
)

// The authorization table of the service layer: every operation of
// redirects.LocalServices, what it needs of the caller, and how to call
// it. TestAuthzTableCoversEveryOperation holds the table to the
// interfaces, and TestAuthzMatrix runs every row as every kind of caller
// and checks the service's answer against redirects.Authorize (or the
// row's own rule). The fixture is in authz_fixture_test.go; objects of
// another organization named through one's own are in
// authz_across_test.go.

// authzRow is one operation of the table.
type authzRow struct {
	// op is "Field.Method" of redirects.LocalServices, with "/variant"
	// when a method has rows for several kinds of argument, or "Ops." and
	// the route of an operation declared as a value (no variants).
	op string
	// action is what the operation needs in the fixture's organization,
	// or with whole on the whole service (organization "").
	action redirects.Action
	whole  bool
	// rule, when set, decides instead of action: the error the caller in
	// ctx should get, nil when allowed.
	rule func(f *authzFixture, ctx context.Context) error
	// fresh gives each allowed caller a fixture of its own: the operation
	// deletes what the next caller would be told about in the words that
	// mask a refusal.
	fresh bool
	call  func(ctx context.Context, f *authzFixture) error
}

// want is the error the caller in ctx should get, nil when allowed.
func (r authzRow) want(f *authzFixture, ctx context.Context) error {
	if r.rule != nil {
		return r.rule(f, ctx)
	}
	org := f.org.ID
	if r.whole {
		org = ""
	}
	return redirects.Authorize(redirects.PrincipalFrom(ctx), org, r.action)
}

// The rules of the operations whose decision is not one action.
var (
	// authzPublic is an operation anyone may ask: the caller is who it
	// names (signing in) or the secret it holds.
	authzPublic = func(*authzFixture, context.Context) error { return nil }
	// authzLocalOnly is the rule of a read across every organization, or
	// of acting for another user: the command line against the database
	// only.
	authzLocalOnly = func(_ *authzFixture, ctx context.Context) error {
		if !redirects.PrincipalFrom(ctx).Local {
			return redirects.Errorf(redirects.EFORBIDDEN, "only the command line against the database may")
		}
		return nil
	}
)

// authzSession is the rule of an operation on the caller's own session:
// a caller without one gets code with msg.
func authzSession(code, msg string) func(*authzFixture, context.Context) error {
	return func(_ *authzFixture, ctx context.Context) error {
		if redirects.SessionFrom(ctx) == nil {
			return redirects.Errorf(code, "%s", msg)
		}
		return nil
	}
}

// authzGrant is the rule of giving a member role: ActionManageMembers,
// and never a role above the caller's own (operators and the command
// line give any).
func authzGrant(role redirects.Role) func(*authzFixture, context.Context) error {
	return func(f *authzFixture, ctx context.Context) error {
		p := redirects.PrincipalFrom(ctx)
		if err := redirects.Authorize(p, f.org.ID, redirects.ActionManageMembers); err != nil {
			return err
		}
		if own := p.Roles[f.org.ID]; !p.Local && !p.Operator && !own.AtLeast(role) {
			return redirects.Errorf(redirects.EFORBIDDEN, "role %s may not give %s", own, role)
		}
		return nil
	}
}

// authzCreateToken is the rule of creating a token of role: read the
// organization, then CreateTokenAction of the role asked.
func authzCreateToken(role redirects.Role) func(*authzFixture, context.Context) error {
	return func(f *authzFixture, ctx context.Context) error {
		p := redirects.PrincipalFrom(ctx)
		if err := redirects.Authorize(p, f.org.ID, redirects.ActionRead); err != nil {
			return err
		}
		return redirects.Authorize(p, f.org.ID, redirects.CreateTokenAction(role))
	}
}

// authzCreateTokenFor is the rule of creating a token of role for another
// user (the spare viewer): as creating one's own, and then the command
// line against the database only.
func authzCreateTokenFor(role redirects.Role) func(*authzFixture, context.Context) error {
	return func(f *authzFixture, ctx context.Context) error {
		if err := authzCreateToken(role)(f, ctx); err != nil {
			return err
		}
		return authzLocalOnly(f, ctx)
	}
}

// authzRevokeToken is the rule of revoking the target token: its creator
// (who may read the organization) or ActionManageTokens.
func authzRevokeToken(f *authzFixture, ctx context.Context) error {
	p := redirects.PrincipalFrom(ctx)
	if err := redirects.Authorize(p, f.org.ID, redirects.ActionRead); err != nil {
		return err
	}
	if a := redirects.ActorFrom(ctx); a.Kind == redirects.ActorUser && a.ID == f.target.CreatedBy {
		return nil
	}
	return redirects.Authorize(p, f.org.ID, redirects.ActionManageTokens)
}

// authzListed turns a list that leaves out the fixture's organization or
// project into the error that masks it, and fails a list that shows the
// other organization's to a caller who may not read it.
func authzListed(ctx context.Context, f *authzFixture, ours, theirs bool, what, id string) error {
	p := redirects.PrincipalFrom(ctx)
	if theirs && redirects.Authorize(p, f.other.ID, redirects.ActionRead) != nil {
		return redirects.Errorf(redirects.EINTERNAL, "the list shows the other organization's %s", what)
	}
	if !ours {
		return redirects.Errorf(redirects.ENOTFOUND, "%s %q not found", what, id)
	}
	return nil
}

func authzPtr[T any](v T) *T { return &v }

// authzTable is every operation of redirects.LocalServices: every method
// of its interfaces, and for Ops every operation declared as a value that
// the service layer implements ("Ops." and its route).
var authzTable = []authzRow{
	// Orgs.
	{op: "Orgs.Orgs", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		orgs, err := f.svc.Orgs.Orgs(ctx)
		if err != nil {
			return err
		}
		var ours, theirs bool
		for _, o := range orgs {
			ours, theirs = ours || o.ID == f.org.ID, theirs || o.ID == f.other.ID
		}
		return authzListed(ctx, f, ours, theirs, "organization", f.org.ID)
	}},
	{op: "Orgs.CreateOrg", action: redirects.ActionManageOrgs, whole: true, call: func(ctx context.Context, f *authzFixture) error {
		return f.svc.Orgs.CreateOrg(ctx, &redirects.Org{Name: "New", Tier: redirects.TierFree})
	}},
	{op: "Orgs.Org", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Orgs.Org(ctx, f.org.ID)
		return err
	}},
	{op: "Orgs.UpdateOrg", action: redirects.ActionManageOrgs, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Orgs.UpdateOrg(ctx, f.org.ID, redirects.OrgUpdate{Name: authzPtr("Renamed")})
		return err
	}},
	{op: "Orgs.DeleteOrg", action: redirects.ActionManageOrgs, fresh: true, call: func(ctx context.Context, f *authzFixture) error {
		return f.svc.Orgs.DeleteOrg(ctx, f.org.ID, f.org.Name)
	}},

	// Members.
	{op: "Members.Members", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Members.Members(ctx, f.org.ID)
		return err
	}},
	{op: "Members.AddMember", rule: authzGrant(redirects.RoleOwner), call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Members.AddMember(ctx, f.org.ID, f.users["spare"].Email, redirects.RoleOwner)
		return err
	}},
	{op: "Members.SetMemberRole", rule: authzGrant(redirects.RoleOwner), call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Members.SetMemberRole(ctx, f.org.ID, f.users["spare"].ID, redirects.RoleOwner)
		return err
	}},
	{op: "Members.RemoveMember", action: redirects.ActionManageMembers, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Members.RemoveMember(ctx, f.org.ID, f.users["spare"].Email)
		return err
	}},

	// Projects.
	{op: "Projects.Projects", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Projects.Projects(ctx, f.org.ID)
		return err
	}},
	{op: "Projects.Projects/every organization", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		ps, err := f.svc.Projects.Projects(ctx, "")
		if err != nil {
			return err
		}
		var ours, theirs bool
		for _, p := range ps {
			ours, theirs = ours || p.ID == f.project.ID, theirs || p.ID == f.otherProject.ID
		}
		return authzListed(ctx, f, ours, theirs, "project", f.project.ID)
	}},
	{op: "Projects.CreateProject", action: redirects.ActionManageProjects, call: func(ctx context.Context, f *authzFixture) error {
		return f.svc.Projects.CreateProject(ctx, &redirects.Project{OrgID: f.org.ID, Name: "new"})
	}},
	{op: "Projects.Project", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Projects.Project(ctx, f.project.ID)
		return err
	}},
	{op: "Projects.ProjectOverview", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Projects.ProjectOverview(ctx, f.project.ID)
		return err
	}},
	{op: "Projects.UpdateProject", action: redirects.ActionManageProjects, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Projects.UpdateProject(ctx, f.project.ID, redirects.ProjectUpdate{Name: authzPtr("renamed")})
		return err
	}},
	{op: "Projects.DeleteProject", action: redirects.ActionManageProjects, fresh: true, call: func(ctx context.Context, f *authzFixture) error {
		return f.svc.Projects.DeleteProject(ctx, f.project.ID, f.project.Name)
	}},

	// Rules.
	{op: "Rules.AddRule", action: redirects.ActionEditRules, call: func(ctx context.Context, f *authzFixture) error {
		return f.svc.Rules.AddRule(ctx, authzRule(f.project.ID, "/added"))
	}},
	{op: "Rules.FindRule", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Rules.FindRule(ctx, f.project.ID, f.rule.ID)
		return err
	}},
	{op: "Rules.FindRulePage", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Rules.FindRulePage(ctx, f.project.ID, redirects.RulePageQuery{})
		return err
	}},
	{op: "Rules.FindDraft", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, _, err := f.svc.Rules.FindDraft(ctx, f.project.ID)
		return err
	}},
	{op: "Rules.UpdateRule", action: redirects.ActionEditRules, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Rules.UpdateRule(ctx, f.project.ID, f.rule.ID, redirects.RuleUpdate{Destination: authzPtr("/newer")})
		return err
	}},
	{op: "Rules.DeleteRule", action: redirects.ActionEditRules, call: func(ctx context.Context, f *authzFixture) error {
		return f.svc.Rules.DeleteRule(ctx, f.project.ID, f.rule.ID, 0)
	}},
	{op: "Rules.DeleteRules", action: redirects.ActionEditRules, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Rules.DeleteRules(ctx, f.project.ID, redirects.RuleFilter{})
		return err
	}},

	{op: "Rules.FlattenChains/read", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Rules.FlattenChains(ctx, f.project.ID, redirects.FlattenOptions{})
		return err
	}},
	{op: "Rules.FlattenChains/write", action: redirects.ActionEditRules, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Rules.FlattenChains(ctx, f.project.ID, redirects.FlattenOptions{Write: true})
		return err
	}},

	// Imports.
	{op: "Imports.ImportTarget", action: redirects.ActionEditRules, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Imports.ImportTarget(ctx, f.project.ID)
		return err
	}},
	{op: "Imports.Import", action: redirects.ActionEditRules, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Imports.Import(ctx, f.project.ID, []redirects.Rule{*authzRule(f.project.ID, "/file")}, redirects.ImportOptions{})
		return err
	}},
	{op: "Imports.UndoImport", action: redirects.ActionEditRules, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Imports.UndoImport(ctx, f.project.ID, f.undoID)
		return err
	}},
	{op: "UndoChecks.CheckImportUndo", action: redirects.ActionEditRules, call: func(ctx context.Context, f *authzFixture) error {
		return f.svc.UndoChecks.CheckImportUndo(ctx, f.project.ID, f.undoID)
	}},

	// Deploys.
	{op: "Deploys.Deploy", action: redirects.ActionDeploy, call: func(ctx context.Context, f *authzFixture) error {
		_, _, err := f.svc.Deploys.Deploy(ctx, f.project.ID, redirects.DeployOptions{Message: "again"})
		return err
	}},
	{op: "Deploys.CheckDeploy", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Deploys.CheckDeploy(ctx, f.project.ID, redirects.DeployOptions{})
		return err
	}},
	{op: "Deploys.Deployments", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Deploys.Deployments(ctx, f.project.ID)
		return err
	}},
	{op: "Deploys.Promote", action: redirects.ActionDeploy, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Deploys.Promote(ctx, f.project.ID, 2)
		return err
	}},
	{op: "Deploys.Discard", action: redirects.ActionDeploy, call: func(ctx context.Context, f *authzFixture) error {
		return f.svc.Deploys.Discard(ctx, f.project.ID, 2)
	}},
	{op: "Deploys.Version", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, _, err := f.svc.Deploys.Version(ctx, f.project.ID, 0)
		return err
	}},
	{op: "Deploys.Export", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, _, err := f.svc.Deploys.Export(ctx, f.project.ID, 0, "nginx")
		return err
	}},
	{op: "Deploys.RuleSet", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Deploys.RuleSet(ctx, f.project.ID, "live", false)
		return err
	}},
	{op: "Deploys.Lookup", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Deploys.Lookup(ctx, f.project.ID, "live", "www.example.com", "/old")
		return err
	}},
	{op: "Deploys.Tests", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Deploys.Tests(ctx, f.project.ID)
		return err
	}},
	{op: "Deploys.SetTests", action: redirects.ActionDeploy, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Deploys.SetTests(ctx, f.project.ID, "path,status,destination\n/old,301,/new\n")
		return err
	}},
	{op: "Deploys.DeleteTests", action: redirects.ActionDeploy, call: func(ctx context.Context, f *authzFixture) error {
		return f.svc.Deploys.DeleteTests(ctx, f.project.ID)
	}},

	// Keys.
	{op: "Keys.CreateKey", action: redirects.ActionManageKeys, call: func(ctx context.Context, f *authzFixture) error {
		_, _, err := f.svc.Keys.CreateKey(ctx, f.project.ID, "another", false)
		return err
	}},
	{op: "Keys.FindKeys", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Keys.FindKeys(ctx, f.project.ID)
		return err
	}},
	{op: "Keys.RevokeKey", action: redirects.ActionManageKeys, call: func(ctx context.Context, f *authzFixture) error {
		_, _, err := f.svc.Keys.RevokeKey(ctx, f.project.ID, f.key.ID)
		return err
	}},

	// Tokens.
	{op: "Issuer.CreateToken", rule: authzCreateToken(redirects.RoleEditor), call: func(ctx context.Context, f *authzFixture) error {
		_, _, err := f.svc.Issuer.CreateToken(ctx, redirects.TokenRequest{OrgID: f.org.ID, Role: redirects.RoleEditor, Label: "new"})
		return err
	}},
	{op: "Issuer.CreateToken/for another user", rule: authzCreateTokenFor(redirects.RoleViewer), call: func(ctx context.Context, f *authzFixture) error {
		_, _, err := f.svc.Issuer.CreateToken(ctx, redirects.TokenRequest{OrgID: f.org.ID, Role: redirects.RoleViewer, Label: "theirs", User: f.users["spare"].Email})
		return err
	}},
	{op: "Tokens.FindTokens", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Tokens.FindTokens(ctx, f.org.ID)
		return err
	}},
	{op: "Tokens.RevokeToken", rule: authzRevokeToken, call: func(ctx context.Context, f *authzFixture) error {
		_, _, err := f.svc.Tokens.RevokeToken(ctx, f.org.ID, f.target.ID)
		return err
	}},

	// Webhooks.
	{op: "Webhooks.CreateWebhook", action: redirects.ActionManageWebhooks, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.CreateWebhook(ctx, f.org.ID, "https://hooks.example.com/other", nil, nil)
		return err
	}},
	{op: "Webhooks.FindWebhooks", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.FindWebhooks(ctx, f.org.ID)
		return err
	}},
	{op: "Webhooks.FindWebhook", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.FindWebhook(ctx, f.org.ID, f.webhook.ID)
		return err
	}},
	{op: "Webhooks.SetWebhookPaused", action: redirects.ActionManageWebhooks, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.SetWebhookPaused(ctx, f.org.ID, f.webhook.ID, true)
		return err
	}},
	{op: "Webhooks.DeleteWebhook", action: redirects.ActionManageWebhooks, fresh: true, call: func(ctx context.Context, f *authzFixture) error {
		return f.svc.Webhooks.DeleteWebhook(ctx, f.org.ID, f.webhook.ID)
	}},
	{op: "Webhooks.SendWebhookTest", action: redirects.ActionManageWebhooks, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.SendWebhookTest(ctx, f.org.ID, f.webhook.ID)
		return err
	}},
	{op: "Webhooks.RotateWebhookSecret", action: redirects.ActionManageWebhooks, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.RotateWebhookSecret(ctx, f.org.ID, f.webhook.ID, time.Hour)
		return err
	}},
	{op: "Webhooks.FindWebhookDeliveries", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.FindWebhookDeliveries(ctx, f.org.ID, f.webhook.ID, 10)
		return err
	}},
	{op: "Webhooks.Redeliver", action: redirects.ActionManageWebhooks, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.Redeliver(ctx, f.org.ID, f.webhook.ID, f.delivery)
		return err
	}},
	// The command line names an endpoint by its ID alone, and a delivery
	// by its ID alone.
	{op: "Webhooks.FindWebhook/by its ID", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.FindWebhook(ctx, "", f.webhook.ID)
		return err
	}},
	{op: "Webhooks.SetWebhookPaused/by its ID", action: redirects.ActionManageWebhooks, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.SetWebhookPaused(ctx, "", f.webhook.ID, true)
		return err
	}},
	{op: "Webhooks.DeleteWebhook/by its ID", action: redirects.ActionManageWebhooks, fresh: true, call: func(ctx context.Context, f *authzFixture) error {
		return f.svc.Webhooks.DeleteWebhook(ctx, "", f.webhook.ID)
	}},
	{op: "Webhooks.SendWebhookTest/by its ID", action: redirects.ActionManageWebhooks, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.SendWebhookTest(ctx, "", f.webhook.ID)
		return err
	}},
	{op: "Webhooks.RotateWebhookSecret/by its ID", action: redirects.ActionManageWebhooks, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.RotateWebhookSecret(ctx, "", f.webhook.ID, time.Hour)
		return err
	}},
	{op: "Webhooks.FindWebhookDeliveries/by its ID", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.FindWebhookDeliveries(ctx, "", f.webhook.ID, 10)
		return err
	}},
	{op: "Webhooks.Redeliver/by its ID", action: redirects.ActionManageWebhooks, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Webhooks.Redeliver(ctx, "", "", f.delivery)
		return err
	}},

	// Insight.
	{op: "Insight.FindOrgUsage", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Insight.FindOrgUsage(ctx, f.org.ID, "")
		return err
	}},
	{op: "Insight.FindUsageMonths", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Insight.FindUsageMonths(ctx, f.org.ID, 3)
		return err
	}},
	{op: "Ops.GET /projects/{project}/hits", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := api.HitsOp.Do(ctx, f.svc.Services, f.project.ID, api.HitsQuery{})
		return err
	}},
	{op: "Insight.FindMisses", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Insight.FindMisses(ctx, f.project.ID, 10)
		return err
	}},
	{op: "Insight.DeleteMiss", action: redirects.ActionEditRules, call: func(ctx context.Context, f *authzFixture) error {
		return f.svc.Insight.DeleteMiss(ctx, f.project.ID, "/missing")
	}},
	{op: "Insight.AddRuleFromMiss", action: redirects.ActionEditRules, call: func(ctx context.Context, f *authzFixture) error {
		return f.svc.Insight.AddRuleFromMiss(ctx, authzRule(f.project.ID, "/missing"))
	}},
	{op: "Insight.FindAudit/organization", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Insight.FindAudit(ctx, redirects.AuditFilter{OrgID: f.org.ID})
		return err
	}},
	{op: "Insight.FindAudit/project", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Insight.FindAudit(ctx, redirects.AuditFilter{ProjectID: f.project.ID})
		return err
	}},
	{op: "Insight.FindAudit/every organization", rule: authzLocalOnly, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Insight.FindAudit(ctx, redirects.AuditFilter{})
		return err
	}},
	{op: "Insight.FindAgents", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, _, err := f.svc.Insight.FindAgents(ctx, f.project.ID)
		return err
	}},
	{op: "Ops.GET /projects/{project}/agents", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := api.AgentsOp.Do(ctx, f.svc.Services, f.project.ID, api.None{})
		return err
	}},
	{op: "Insight.DeleteAgents", action: redirects.ActionEditRules, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Insight.DeleteAgents(ctx, f.project.ID, redirects.AgentFilter{Agent: "web-1"})
		return err
	}},
	{op: "Checks.CheckDestinations", action: redirects.ActionEditRules, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Checks.CheckDestinations(ctx, f.project.ID, redirects.CheckOptions{BaseURL: "https://www.example.com"})
		return err
	}},
	{op: "Checks.StartDestinationCheck", action: redirects.ActionEditRules, call: func(ctx context.Context, f *authzFixture) error {
		job, err := f.svc.Checks.StartDestinationCheck(ctx, f.project.ID, redirects.CheckOptions{BaseURL: "https://www.example.com"})
		if err != nil {
			return err
		}
		// The check runs in the background: the cell ends when it does,
		// so that the next finds the store at rest.
		for deadline := time.Now().Add(10 * time.Second); job.State == redirects.CheckRunning && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if job, err = f.svc.Checks.FindDestinationCheck(ctx, f.project.ID, job.ID); err != nil {
				return err
			}
		}
		return nil
	}},
	{op: "Checks.FindDestinationCheck", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Checks.FindDestinationCheck(ctx, f.project.ID, authzCheckJob)
		return err
	}},
	{op: "Checks.RunningDestinationCheck", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Checks.RunningDestinationCheck(ctx, f.project.ID)
		return err
	}},
	{op: "Checks.FindDestinationChecks", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Checks.FindDestinationChecks(ctx, f.project.ID)
		return err
	}},

	// Suggestions.
	{op: "Suggestions.Suggest", action: redirects.ActionEditRules, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Suggestions.Suggest(ctx, f.project.ID, redirects.SuggestOptions{})
		return err
	}},
	{op: "Suggestions.FindSuggestions", action: redirects.ActionRead, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Suggestions.FindSuggestions(ctx, f.project.ID)
		return err
	}},
	{op: "Suggestions.AcceptSuggestion", action: redirects.ActionEditRules, fresh: true, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Suggestions.AcceptSuggestion(ctx, f.project.ID, authzSuggestion(f.project.ID, "/suggested-a").ID)
		return err
	}},
	{op: "Suggestions.DismissSuggestion", action: redirects.ActionEditRules, fresh: true, call: func(ctx context.Context, f *authzFixture) error {
		return f.svc.Suggestions.DismissSuggestion(ctx, f.project.ID, authzSuggestion(f.project.ID, "/suggested-d").ID)
	}},

	// Sessions.
	{op: "Sessions.SignIn", rule: authzPublic, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Sessions.SignIn(ctx, redirects.SignInRequest{Email: f.users["spare"].Email, Password: authzPassword, Addr: "192.0.2.1"})
		return err
	}},
	{op: "Cookies.FindSession", rule: authzPublic, call: func(ctx context.Context, f *authzFixture) error {
		sess, _, err := f.svc.Cookies.FindSession(ctx, f.spareSecret)
		if err == nil && sess == nil {
			return redirects.Errorf(redirects.EINTERNAL, "the spare user's session is not found")
		}
		return err
	}},
	{op: "Sessions.Whoami", rule: authzSession(redirects.ENOTFOUND, "a management token has no session"), call: func(ctx context.Context, f *authzFixture) error {
		_, _, err := f.svc.Sessions.Whoami(ctx)
		return err
	}},
	{op: "Sessions.SignOut", rule: authzSession(redirects.ENOTFOUND, "a management token has no session to end; revoke the token instead"), call: func(ctx context.Context, f *authzFixture) error {
		return f.svc.Sessions.SignOut(ctx)
	}},
	{op: "Sessions.ChangePassword", rule: authzSession(redirects.EFORBIDDEN, "no session"), call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Sessions.ChangePassword(ctx, redirects.PasswordChange{Current: authzPassword, New: "another horse battery staple", Addr: "192.0.2.1"})
		return err
	}},

	// Users.
	{op: "Users.Users", action: redirects.ActionManageUsers, whole: true, call: func(ctx context.Context, f *authzFixture) error {
		_, err := f.svc.Users.Users(ctx)
		return err
	}},
	{op: "Users.CreateUser", action: redirects.ActionManageUsers, whole: true, call: func(ctx context.Context, f *authzFixture) error {
		hash, err := authzHash()
		if err != nil {
			return err
		}
		return f.svc.Users.CreateUser(ctx, &redirects.User{Email: "new@example.com", PasswordHash: hash})
	}},
	{op: "Users.DisableUser", action: redirects.ActionManageUsers, whole: true, call: func(ctx context.Context, f *authzFixture) error {
		_, _, err := f.svc.Users.DisableUser(ctx, f.users["spare"].Email)
		return err
	}},
	{op: "Users.SetUserPassword", action: redirects.ActionManageUsers, whole: true, call: func(ctx context.Context, f *authzFixture) error {
		hash, err := authzHash()
		if err != nil {
			return err
		}
		_, err = f.svc.Users.SetUserPassword(ctx, f.users["spare"].ID, hash, true)
		return err
	}},
}

// authzOperations returns "Field.Method" of every method of every
// interface of redirects.LocalServices.
func authzOperations(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		field := t.Field(i)
		switch {
		case field.Anonymous && field.Type.Kind() == reflect.Struct:
			out = append(out, authzOperations(field.Type)...)
		case field.Name == "Ops":
			// The operations declared as values: one per
			// implementation registered (service.Implement), by route.
			for _, route := range service.Implemented() {
				out = append(out, "Ops."+route)
			}
		case field.Type.Kind() == reflect.Interface:
			for j := 0; j < field.Type.NumMethod(); j++ {
				out = append(out, field.Name+"."+field.Type.Method(j).Name)
			}
		}
	}
	return out
}

func TestAuthzTableCoversEveryOperation(t *testing.T) {
	ops := authzOperations(reflect.TypeOf(redirects.LocalServices{}))
	if len(ops) == 0 {
		t.Fatal("redirects.LocalServices has no operations: the walk is broken")
	}
	rows := map[string]bool{}
	seen := map[string]bool{}
	for _, r := range authzTable {
		if seen[r.op] {
			t.Errorf("the table has two rows %q", r.op)
		}
		seen[r.op] = true
		op, _, _ := strings.Cut(r.op, "/")
		if strings.HasPrefix(r.op, "Ops.") {
			op = r.op // a route, whose slashes are not a variant's
		}
		rows[op] = true
		if (r.action == "") == (r.rule == nil) {
			t.Errorf("row %q needs exactly one of an action and a rule", r.op)
		}
	}
	known := map[string]bool{}
	for _, op := range ops {
		known[op] = true
		if !rows[op] {
			t.Errorf("%s has no row in the authorization table: say what it needs of the caller", op)
		}
	}
	for op := range rows {
		if !known[op] {
			t.Errorf("the authorization table's row %q names no method of redirects.LocalServices", op)
		}
	}
}

// authzMasking reports whether err is the ENOTFOUND that hides the
// fixture's organization, project, webhook or delivery from a caller with
// no role in the organization: the words of a missing one.
func authzMasking(f *authzFixture, err error) bool {
	if redirects.ErrorCode(err) != redirects.ENOTFOUND {
		return false
	}
	switch redirects.ErrorMessage(err) {
	case fmt.Sprintf("organization %q not found", f.org.ID), fmt.Sprintf("project %q not found", f.project.ID),
		// A webhook or a delivery named by its ID alone, as the command
		// line names them: the store's words for a missing one.
		"webhook " + f.webhook.ID + " not found", "webhook delivery " + f.delivery + " not found",
		// A webhook named with its organization.
		fmt.Sprintf("webhook %q not found", f.webhook.ID):
		return true
	}
	return false
}

func TestAuthzMatrix(t *testing.T) {
	tmpl := newAuthzTemplate(t)
	for _, row := range authzTable {
		t.Run(row.op, func(t *testing.T) {
			f := newAuthzFixture(t, tmpl)
			// The refused callers first, each on the fixture as it was
			// made; then the allowed ones.
			var allowed []string
			for _, name := range authzCallers {
				ctx := f.as(name)
				want := row.want(f, ctx)
				if want == nil {
					allowed = append(allowed, name)
					continue
				}
				before := f.snapshot()
				err := row.call(ctx, f)
				switch code := redirects.ErrorCode(want); {
				case err == nil:
					t.Errorf("%s: done, want refused with %v", name, want)
				case redirects.ErrorCode(err) != code:
					t.Errorf("%s: got %v (code %s), want code %s like %v", name, err, redirects.ErrorCode(err), code, want)
				case code == redirects.ENOTFOUND && !authzMasking(f, err) && redirects.ErrorMessage(err) != redirects.ErrorMessage(want):
					t.Errorf("%s: got %v, want the not-found that masks the organization or project", name, err)
				}
				after := f.snapshot()
				for table, rows := range after {
					if before[table] != rows {
						t.Errorf("%s: refused, yet table %s changed", name, table)
					}
				}
			}
			// The first allowed caller, and each on a fixture of its own,
			// must succeed: a row whose call fails for another reason
			// would check nothing. Later ones may meet what an earlier
			// call did (a conflict, a rule gone).
			for i, name := range allowed {
				g := f
				if row.fresh {
					g = newAuthzFixture(t, tmpl)
				}
				err := row.call(g.as(name), g)
				switch code := redirects.ErrorCode(err); {
				case err != nil && (i == 0 || row.fresh):
					t.Errorf("%s: %v, want the operation done", name, err)
				case code == redirects.EFORBIDDEN || authzMasking(g, err):
					t.Errorf("%s: refused with %v, want allowed", name, err)
				case code == redirects.EINTERNAL:
					t.Errorf("%s: %v", name, err)
				}
			}
		})
	}
}
