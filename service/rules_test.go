package service_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"redirects"
	"redirects/service"
	"redirects/sqlite"
)

// rulesFixture is the service over a real SQLite file with one project in
// organization org, and one organization other that the callers of the
// tests have no role in.
type rulesFixture struct {
	db      redirects.Store
	svc     redirects.LocalServices
	project string
	org     string
	other   string
}

func newRulesFixture(t *testing.T) *rulesFixture {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "redirects.db"))
	if err != nil {
		t.Fatalf("sqlite.Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	o := &redirects.Org{Name: "acme", Tier: redirects.TierEnterprise}
	if err := db.CreateOrg(ctx, o); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	other := &redirects.Org{Name: "other", Tier: redirects.TierEnterprise}
	if err := db.CreateOrg(ctx, other); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	p := &redirects.Project{OrgID: o.ID, Name: "site"}
	if err := db.CreateProject(ctx, p); err != nil {
		t.Fatalf("CreateProject: %v", err)
	}
	return &rulesFixture{db: db, svc: service.New(service.Deps{Store: db, Accounts: db}).Local(), project: p.ID, org: o.ID, other: other.ID}
}

// as is a context whose caller has role in organization org.
func (f *rulesFixture) as(org string, role redirects.Role) context.Context {
	return redirects.WithPrincipal(context.Background(), redirects.Principal{Token: true, Roles: map[string]redirects.Role{org: role}})
}

// wantCode fails unless err has code ("" for no error).
func wantRuleCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := redirects.ErrorCode(err); (err == nil && code != "") || (err != nil && got != code) {
		t.Fatalf("%s: error %v (code %q), want code %q", what, err, got, code)
	}
}

func TestRuleServiceAuthorization(t *testing.T) {
	f := newRulesFixture(t)
	editor, viewer, stranger := f.as(f.org, redirects.RoleEditor), f.as(f.org, redirects.RoleViewer), f.as(f.other, redirects.RoleOwner)
	rule := func() *redirects.Rule {
		return &redirects.Rule{ProjectID: f.project, Source: "/old", Destination: "/new", StatusCode: 301, MatchType: redirects.Exact, Priority: 100}
	}

	wantRuleCode(t, "AddRule as a viewer", f.svc.Rules.AddRule(viewer, rule()), redirects.EFORBIDDEN)
	err := f.svc.Rules.AddRule(stranger, rule())
	wantRuleCode(t, "AddRule from another organization", err, redirects.ENOTFOUND)
	if want := `project "` + f.project + `" not found`; redirects.ErrorMessage(err) != want {
		t.Errorf("AddRule from another organization: %q, want %q", redirects.ErrorMessage(err), want)
	}
	wantRuleCode(t, "AddRule with no principal", f.svc.Rules.AddRule(context.Background(), rule()), redirects.ENOTFOUND)
	r := rule()
	wantRuleCode(t, "AddRule as an editor", f.svc.Rules.AddRule(editor, r), "")
	if r.ID == 0 || r.Revision != 1 || r.CreatedAt.IsZero() {
		t.Fatalf("AddRule: rule %+v, want an ID, revision 1 and a creation time", r)
	}
	wantRuleCode(t, "AddRule twice", f.svc.Rules.AddRule(editor, rule()), redirects.ECONFLICT)
	bad := rule()
	bad.Source = "no-slash"
	wantRuleCode(t, "AddRule of an invalid rule", f.svc.Rules.AddRule(editor, bad), redirects.EINVALID)

	got, err := f.svc.Rules.FindRule(viewer, f.project, r.ID)
	wantRuleCode(t, "FindRule as a viewer", err, "")
	if got.Source != "/old" || got.Revision != 1 {
		t.Errorf("FindRule: %+v, want /old at revision 1", got)
	}
	_, err = f.svc.Rules.FindRule(stranger, f.project, r.ID)
	wantRuleCode(t, "FindRule from another organization", err, redirects.ENOTFOUND)

	page, err := f.svc.Rules.FindRulePage(viewer, f.project, redirects.RulePageQuery{Limit: 10})
	wantRuleCode(t, "FindRulePage as a viewer", err, "")
	if page.Total != 1 || len(page.Rules) != 1 || page.Next != "" {
		t.Errorf("FindRulePage: %d rules of %d, next %q; want the one rule", len(page.Rules), page.Total, page.Next)
	}
	_, err = f.svc.Rules.FindRulePage(viewer, f.project, redirects.RulePageQuery{Limit: redirects.MaxRuleLimit + 1})
	wantRuleCode(t, "FindRulePage over the limit", err, redirects.EINVALID)
	_, err = f.svc.Rules.FindRulePage(stranger, f.project, redirects.RulePageQuery{})
	wantRuleCode(t, "FindRulePage from another organization", err, redirects.ENOTFOUND)

	p, draft, err := f.svc.Rules.FindDraft(viewer, f.project)
	wantRuleCode(t, "FindDraft as a viewer", err, "")
	if p.ID != f.project || len(draft) != 1 || draft[0].Revision != 0 {
		t.Errorf("FindDraft: project %s, %d rules (%+v), want the project and its rule without revision", p.ID, len(draft), draft)
	}

	dest := "/newer"
	_, err = f.svc.Rules.UpdateRule(viewer, f.project, r.ID, redirects.RuleUpdate{Destination: &dest})
	wantRuleCode(t, "UpdateRule as a viewer", err, redirects.EFORBIDDEN)
	_, err = f.svc.Rules.UpdateRule(editor, f.project, r.ID, redirects.RuleUpdate{})
	wantRuleCode(t, "UpdateRule of no field", err, redirects.EINVALID)
	up, err := f.svc.Rules.UpdateRule(editor, f.project, r.ID, redirects.RuleUpdate{Destination: &dest, Revision: 1})
	wantRuleCode(t, "UpdateRule as an editor", err, "")
	if up.Destination != dest || up.Revision != 2 {
		t.Errorf("UpdateRule: %+v, want %s at revision 2", up, dest)
	}
	_, err = f.svc.Rules.UpdateRule(editor, f.project, r.ID, redirects.RuleUpdate{Destination: &dest, Revision: 1})
	wantRuleCode(t, "UpdateRule at a stale revision", err, redirects.EREVISION)

	wantRuleCode(t, "DeleteRule as a viewer", f.svc.Rules.DeleteRule(viewer, f.project, r.ID, 0), redirects.EFORBIDDEN)
	wantRuleCode(t, "DeleteRule at a stale revision", f.svc.Rules.DeleteRule(editor, f.project, r.ID, 1), redirects.EREVISION)
	wantRuleCode(t, "DeleteRule as an editor", f.svc.Rules.DeleteRule(editor, f.project, r.ID, 2), "")
	wantRuleCode(t, "DeleteRule again", f.svc.Rules.DeleteRule(editor, f.project, r.ID, 0), redirects.ENOTFOUND)

	for _, src := range []string{"/a", "/b", "/keep"} {
		r := rule()
		r.Source = src
		wantRuleCode(t, "AddRule "+src, f.svc.Rules.AddRule(editor, r), "")
	}
	_, err = f.svc.Rules.DeleteRules(viewer, f.project, redirects.RuleFilter{})
	wantRuleCode(t, "DeleteRules as a viewer", err, redirects.EFORBIDDEN)
	_, err = f.svc.Rules.DeleteRules(stranger, f.project, redirects.RuleFilter{})
	wantRuleCode(t, "DeleteRules from another organization", err, redirects.ENOTFOUND)
	n, err := f.svc.Rules.DeleteRules(editor, f.project, redirects.RuleFilter{Query: "/keep"})
	wantRuleCode(t, "DeleteRules as an editor", err, "")
	if n != 1 {
		t.Errorf("DeleteRules: %d deleted, want 1", n)
	}
}

func TestImportServiceAuthorization(t *testing.T) {
	f := newRulesFixture(t)
	editor, viewer, stranger := f.as(f.org, redirects.RoleEditor), f.as(f.org, redirects.RoleViewer), f.as(f.other, redirects.RoleOwner)
	rules := func() []redirects.Rule {
		return []redirects.Rule{
			{Source: "/a", Destination: "/x", StatusCode: 301, MatchType: redirects.Exact, Priority: 100},
			{Source: "/b/", Destination: "/y/", StatusCode: 302, MatchType: redirects.StartsWith, Priority: 10},
		}
	}

	_, err := f.svc.Imports.ImportTarget(viewer, f.project)
	wantRuleCode(t, "ImportTarget as a viewer", err, redirects.EFORBIDDEN)
	_, err = f.svc.Imports.ImportTarget(stranger, f.project)
	wantRuleCode(t, "ImportTarget from another organization", err, redirects.ENOTFOUND)
	p, err := f.svc.Imports.ImportTarget(editor, f.project)
	wantRuleCode(t, "ImportTarget as an editor", err, "")
	if p.ID != f.project {
		t.Fatalf("ImportTarget: project %s, want %s", p.ID, f.project)
	}

	_, err = f.svc.Imports.Import(viewer, f.project, rules(), redirects.ImportOptions{})
	wantRuleCode(t, "Import as a viewer", err, redirects.EFORBIDDEN)
	_, err = f.svc.Imports.Import(stranger, f.project, rules(), redirects.ImportOptions{})
	wantRuleCode(t, "Import from another organization", err, redirects.ENOTFOUND)
	dry, err := f.svc.Imports.Import(editor, f.project, rules(), redirects.ImportOptions{DryRun: true})
	wantRuleCode(t, "a dry run", err, "")
	if dry.Added != 2 || dry.UndoID != 0 {
		t.Errorf("dry run: %+v, want 2 added and no undo record", dry)
	}
	if _, draft, _ := f.svc.Rules.FindDraft(editor, f.project); len(draft) != 0 {
		t.Errorf("a dry run wrote %d rules", len(draft))
	}
	rep, err := f.svc.Imports.Import(editor, f.project, rules(), redirects.ImportOptions{})
	wantRuleCode(t, "Import as an editor", err, "")
	if rep.Mode != redirects.ImportAppend || rep.Added != 2 || rep.UndoID == 0 {
		t.Fatalf("Import: %+v, want an append of 2 with an undo record", rep)
	}
	again, err := f.svc.Imports.Import(editor, f.project, rules(), redirects.ImportOptions{DryRun: true})
	wantRuleCode(t, "the same append again", err, "")
	if again.Added != 0 || again.Unchanged != 2 {
		t.Errorf("the same append again: %+v, want 2 unchanged", again)
	}
	changed := rules()
	changed[0].Destination += "-moved"
	_, err = f.svc.Imports.Import(editor, f.project, changed, redirects.ImportOptions{})
	wantRuleCode(t, "an append that changes a rule", err, redirects.ECONFLICT)
	_, err = f.svc.Imports.Import(editor, f.project, rules(), redirects.ImportOptions{Mode: "merge"})
	wantRuleCode(t, "an unknown mode", err, redirects.EINVALID)

	wantRuleCode(t, "CheckImportUndo as a viewer", f.svc.UndoChecks.CheckImportUndo(viewer, f.project, rep.UndoID), redirects.EFORBIDDEN)
	wantRuleCode(t, "CheckImportUndo as an editor", f.svc.UndoChecks.CheckImportUndo(editor, f.project, rep.UndoID), "")
	_, err = f.svc.Imports.UndoImport(viewer, f.project, rep.UndoID)
	wantRuleCode(t, "UndoImport as a viewer", err, redirects.EFORBIDDEN)
	_, err = f.svc.Imports.UndoImport(stranger, f.project, rep.UndoID)
	wantRuleCode(t, "UndoImport from another organization", err, redirects.ENOTFOUND)
	n, err := f.svc.Imports.UndoImport(editor, f.project, rep.UndoID)
	wantRuleCode(t, "UndoImport as an editor", err, "")
	if n != 0 {
		t.Errorf("UndoImport: the draft holds %d rules again, want 0", n)
	}
	_, err = f.svc.Imports.UndoImport(editor, f.project, rep.UndoID)
	wantRuleCode(t, "UndoImport again", err, redirects.ENOTFOUND)
	wantRuleCode(t, "CheckImportUndo once undone", f.svc.UndoChecks.CheckImportUndo(editor, f.project, rep.UndoID), redirects.ENOTFOUND)
}

// TestRulePageHits checks that a page carries the hits of its rules, and
// only of its rules.
func TestRulePageHits(t *testing.T) {
	f := newRulesFixture(t)
	editor := f.as(f.org, redirects.RoleEditor)
	for _, src := range []string{"/a", "/b"} {
		r := &redirects.Rule{ProjectID: f.project, Source: src, Destination: "/x", StatusCode: 301, MatchType: redirects.Exact, Priority: 100}
		wantRuleCode(t, "AddRule "+src, f.svc.Rules.AddRule(editor, r), "")
	}
	last := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	hits := []redirects.RuleHits{
		{ProjectID: f.project, MatchType: redirects.Exact, Source: "/a", Hits: 3, LastHit: last},
		{ProjectID: f.project, MatchType: redirects.Exact, Source: "/b", Hits: 5, LastHit: last},
	}
	if err := f.db.AddHits(context.Background(), hits); err != nil {
		t.Fatalf("AddHits: %v", err)
	}
	page, err := f.svc.Rules.FindRulePage(f.as(f.org, redirects.RoleViewer), f.project, redirects.RulePageQuery{Limit: 1})
	wantRuleCode(t, "FindRulePage", err, "")
	if len(page.Rules) != 1 || page.Rules[0].Source != "/a" {
		t.Fatalf("FindRulePage: %+v, want /a alone", page.Rules)
	}
	if len(page.Hits) != 1 || page.Hits[0].Source != "/a" || page.Hits[0].Hits != 3 || !page.Hits[0].LastHit.Equal(last) {
		t.Errorf("FindRulePage: hits %+v, want the 3 hits of /a, last at %s", page.Hits, last)
	}
}
