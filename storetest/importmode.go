package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"redirects"
)

// wantReport fails unless rep counts as want does (mode and dry run too).
func wantReport(t *testing.T, what string, rep *redirects.ImportReport, err error, want redirects.ImportReport) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	got := *rep
	if want.UndoID == 0 {
		// An applied import names its undo record; a dry run none.
		if (got.UndoID != 0) == got.DryRun {
			t.Errorf("%s: UndoID %d with DryRun %t; want one exactly when applied", what, got.UndoID, got.DryRun)
		}
		got.UndoID = 0
	}
	if got != want {
		t.Errorf("%s = %+v, want %+v", what, got, want)
	}
}

// testImportModes runs each import mode with and without a dry run on one
// draft and checks the reports, the rules and their revisions.
func testImportModes(t *testing.T, e *env) {
	p := e.newProject()
	a := e.rule(p.ID, "/a", "/old", redirects.Exact, 100)
	b := e.rule(p.ID, "/b", "/to/b", redirects.StartsWith, 100)
	e.rule(p.ID, "/c", "/to/c", redirects.Exact, 100)
	e.clock.Add(time.Hour)
	// /a changes, /b* stays, /d is new.
	in := []redirects.Rule{
		{Source: "/a", Destination: "/new", StatusCode: 302, MatchType: redirects.Exact, Priority: 100},
		{Source: "/b", Destination: "/to/b", StatusCode: 301, MatchType: redirects.StartsWith, Priority: 100},
		{Source: "/d", Destination: "/to/d", StatusCode: 301, MatchType: redirects.Exact, Priority: 100},
	}
	before := e.rules(p.ID)

	for _, mode := range []redirects.ImportMode{redirects.ImportAppend, redirects.ImportUpsert, redirects.ImportReplace} {
		rep, err := e.s.Import(e.ctx, p.ID, in, redirects.ImportOptions{Mode: mode, DryRun: true})
		if mode == redirects.ImportAppend {
			wantCode(t, "Import(append, dry run) of clashing rules", err, redirects.ECONFLICT)
			continue
		}
		want := redirects.ImportReport{Mode: mode, DryRun: true, Added: 1, Updated: 1, Unchanged: 1}
		if mode == redirects.ImportReplace {
			want.Removed = 1
		}
		wantReport(t, "Import("+string(mode)+", dry run)", rep, err, want)
		wantRules(t, "rules after a dry run", e.rules(p.ID), before)
	}
	if got := auditActions(e.audit(redirects.AuditFilter{ProjectID: p.ID, Action: redirects.AuditRuleImport})); len(got) != 0 {
		t.Errorf("dry runs recorded audit entries %v, want none", got)
	}

	rep, err := e.s.Import(e.ctx, p.ID, in, redirects.ImportOptions{Mode: redirects.ImportUpsert})
	wantReport(t, "Import(upsert)", rep, err, redirects.ImportReport{Mode: redirects.ImportUpsert, Added: 1, Updated: 1, Unchanged: 1})
	if s := sources(e.rules(p.ID)); !slices.Equal(s, []string{"exact /a", "exact /c", "exact /d", "starts_with /b"}) {
		t.Errorf("rules after upsert = %v", s)
	}
	got, err := e.s.FindRule(e.ctx, p.ID, a.ID)
	if err != nil {
		t.Fatalf("FindRule(/a): %v", err)
	}
	if got.Destination != "/new" || got.StatusCode != 302 || got.Revision != 2 {
		t.Errorf("upserted /a = %+v, want /new 302 at revision 2, same ID", got)
	}
	if got, err := e.s.FindRule(e.ctx, p.ID, b.ID); err != nil || got.Revision != 1 {
		t.Errorf("unchanged /b* = %+v, %v; want revision 1", got, err)
	}
	entries := e.audit(redirects.AuditFilter{ProjectID: p.ID, Action: redirects.AuditRuleImport})
	if len(entries) != 1 {
		t.Fatalf("audit entries of the upsert = %v, want one", auditActions(entries))
	}
	wantAuditJSON(t, "import entry's after", entries[0].After, map[string]any{"rules": 3, "mode": "upsert",
		"added": 1, "updated": 1, "unchanged": 1, "removed": 0, "undoId": rep.UndoID})

	// A second upsert of the same file changes nothing.
	rep, err = e.s.Import(e.ctx, p.ID, in, redirects.ImportOptions{Mode: redirects.ImportUpsert})
	wantReport(t, "Import(upsert again)", rep, err, redirects.ImportReport{Mode: redirects.ImportUpsert, Unchanged: 3})

	// Append of the same file finds every rule as the draft has it.
	rep, err = e.s.Import(e.ctx, p.ID, in, redirects.ImportOptions{Mode: redirects.ImportAppend})
	wantReport(t, "Import(append) of the upserted file", rep, err, redirects.ImportReport{Mode: redirects.ImportAppend, Unchanged: 3})

	rep, err = e.s.Import(e.ctx, p.ID, in[:2], redirects.ImportOptions{Mode: redirects.ImportReplace})
	wantReport(t, "Import(replace)", rep, err, redirects.ImportReport{Mode: redirects.ImportReplace, Unchanged: 2, Removed: 2})
	if s := sources(e.rules(p.ID)); !slices.Equal(s, []string{"exact /a", "starts_with /b"}) {
		t.Errorf("rules after replace = %v", s)
	}

	rep, err = e.s.Import(e.ctx, p.ID, in[2:], redirects.ImportOptions{})
	wantReport(t, "Import(default mode)", rep, err, redirects.ImportReport{Mode: redirects.ImportAppend, Added: 1})

	// An upsert with a bad rule writes nothing.
	bad := append(slices.Clone(in), redirects.Rule{Source: "no-slash", Destination: "/x", StatusCode: 301, Priority: 100})
	bad[0].Destination = "/changed"
	before = e.rules(p.ID)
	_, err = e.s.Import(e.ctx, p.ID, bad, redirects.ImportOptions{Mode: redirects.ImportUpsert})
	wantCode(t, "Import(upsert) with a bad rule", err, redirects.EINVALID)
	wantRules(t, "rules after a failed upsert", e.rules(p.ID), before)

	_, err = e.s.Import(e.ctx, p.ID, in, redirects.ImportOptions{Mode: "merge"})
	wantCode(t, "Import(mode merge)", err, redirects.EINVALID)
}

// testImportDeployAudited checks that an import and a deploy record their
// audit entries with the actor of the context.
func testImportDeployAudited(t *testing.T, e *env) {
	actor := redirects.Actor{Kind: redirects.ActorUser, ID: "usr_1", Label: "ann@example.com", RemoteAddr: "192.0.2.9"}
	e.ctx = redirects.WithActor(e.ctx, actor)
	p := e.newProject()
	if _, err := e.s.ImportRules(e.ctx, p.ID, batch("/a", "/b*"), false); err != nil {
		t.Fatalf("ImportRules: %v", err)
	}
	d := e.deploy(p.ID, redirects.DeployOptions{Message: "first"})
	e.deploy(p.ID, redirects.DeployOptions{Message: "again", FromVersion: d.Version})
	entries := e.audit(redirects.AuditFilter{ProjectID: p.ID})
	if got := auditActions(entries); !slices.Equal(got, []string{redirects.AuditDeploy, redirects.AuditDeploy, redirects.AuditRuleImport, redirects.AuditProjectCreate}) {
		t.Fatalf("audit actions = %v, want two deploys, an import and the project's creation, newest first", got)
	}
	for _, x := range entries[:3] {
		if x.Actor != actor || x.OrgID != p.OrgID {
			t.Errorf("%s: actor %+v in org %q, want %+v in %q", x.Action, x.Actor, x.OrgID, actor, p.OrgID)
		}
	}
	// The store's first import names the first undo record.
	wantAuditJSON(t, "import entry", entries[2].After, map[string]any{"rules": 2, "mode": "append", "added": 2, "updated": 0, "unchanged": 0, "removed": 0, "undoId": 1})
	wantAuditJSON(t, "deploy entry", entries[1].After, map[string]any{"version": 1, "message": "first", "exactRules": 1, "prefixRules": 1})
	wantAuditJSON(t, "rollback entry", entries[0].After, map[string]any{"version": 2, "message": "again", "exactRules": 1, "prefixRules": 1, "fromVersion": 1})
	if entries[0].ObjectID != p.ID+"@2" {
		t.Errorf("rollback entry's object = %q, want %s@2", entries[0].ObjectID, p.ID)
	}
}

// testImportAppendAgain imports a file in append mode into a draft that
// already has some of its rules: a rule the draft has as it is counts as
// unchanged and is not stored twice, and a source the draft holds with
// another rule fails the import with a problem that names the upsert mode.
func testImportAppendAgain(t *testing.T, e *env) {
	p := e.newProject()
	in := batch("/a", "/b*", "/c")
	rep, err := e.s.Import(e.ctx, p.ID, in, redirects.ImportOptions{})
	wantReport(t, "Import(append)", rep, err, redirects.ImportReport{Mode: redirects.ImportAppend, Added: 3})
	before := e.rules(p.ID)

	for _, dry := range []bool{true, false} {
		rep, err = e.s.Import(e.ctx, p.ID, in, redirects.ImportOptions{DryRun: dry})
		wantReport(t, fmt.Sprintf("Import(append again, dry run %t)", dry), rep, err,
			redirects.ImportReport{Mode: redirects.ImportAppend, DryRun: dry, Unchanged: 3})
		wantRules(t, "rules after appending the same file", e.rules(p.ID), before)
	}

	more := append(batch("/d"), in...)
	rep, err = e.s.Import(e.ctx, p.ID, more, redirects.ImportOptions{Mode: redirects.ImportAppend})
	wantReport(t, "Import(append) of one new rule and the same three", rep, err, redirects.ImportReport{Mode: redirects.ImportAppend, Added: 1, Unchanged: 3})
	if s := sources(e.rules(p.ID)); !slices.Equal(s, []string{"exact /a", "exact /c", "exact /d", "starts_with /b"}) {
		t.Errorf("rules after appending /d = %v", s)
	}
	before = e.rules(p.ID)

	changed := batch("/a", "/b*", "/c", "/e")
	changed[1].Destination = "/elsewhere"
	_, err = e.s.Import(e.ctx, p.ID, changed, redirects.ImportOptions{Mode: redirects.ImportAppend})
	wantCode(t, "Import(append) of a changed rule", err, redirects.ECONFLICT, "rule 2: ", `"/b"`, "mode upsert")
	if msg := redirects.ErrorMessage(err); strings.Count(msg, "\n") != 0 {
		t.Errorf("Import(append) of a changed rule reports %q, want only rule 2", msg)
	}
	wantRules(t, "rules after a refused append", e.rules(p.ID), before)
}
