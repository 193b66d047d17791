package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"redirects"
)

// draftOf returns the project's draft with each rule's revision, sorted as
// FindRules sorts it: what an undo must put back exactly.
func (e *env) draftOf(projectID string) []redirects.Rule {
	e.t.Helper()
	rules := e.rules(projectID)
	if len(rules) > 1000 {
		return rules // revisions are checked on small drafts
	}
	for i := range rules {
		r, err := e.s.FindRule(e.ctx, projectID, rules[i].ID)
		if err != nil {
			e.t.Fatalf("FindRule(%d): %v", rules[i].ID, err)
		}
		rules[i].Revision = r.Revision
	}
	return rules
}

// wantDraft fails unless got is want exactly: IDs, fields, options,
// creation times and revisions.
func wantDraft(t *testing.T, what string, got, want []redirects.Rule) {
	t.Helper()
	wantRules(t, what, got, want)
	for i := range min(len(got), len(want)) {
		g, w := &got[i], &want[i]
		if g.PreservePath != w.PreservePath || g.PreserveQuery != w.PreserveQuery || g.QueryAfterFragment != w.QueryAfterFragment || g.MergeQuery != w.MergeQuery || g.Revision != w.Revision {
			t.Errorf("%s: rule %d (%q): options %t/%t/%t/%t revision %d, want %t/%t/%t/%t revision %d", what, g.ID, g.Source,
				g.PreservePath, g.PreserveQuery, g.QueryAfterFragment, g.MergeQuery, g.Revision, w.PreservePath, w.PreserveQuery, w.QueryAfterFragment, w.MergeQuery, w.Revision)
		}
		if !slices.Equal(g.ExceptHosts, w.ExceptHosts) {
			t.Errorf("%s: rule %d (%q): exceptHosts %q, want %q", what, g.ID, g.Source, g.ExceptHosts, w.ExceptHosts)
		}
	}
}

func (e *env) importRules(projectID string, rules []redirects.Rule, mode redirects.ImportMode) *redirects.ImportReport {
	e.t.Helper()
	rep, err := e.s.Import(e.ctx, projectID, rules, redirects.ImportOptions{Mode: mode})
	if err != nil {
		e.t.Fatalf("Import(%s, %d rules): %v", mode, len(rules), err)
	}
	if rep.UndoID == 0 {
		e.t.Fatalf("Import(%s) applied without an UndoID", mode)
	}
	return rep
}

// testImportUndo: an upsert that changes a rule and adds one is undone;
// the draft is back exactly (IDs, revisions, options, creation times), the
// undo is audited, and the record is gone.
func testImportUndo(t *testing.T, e *env) {
	p := e.newProject()
	a := e.rule(p.ID, "/a", "/old", redirects.Exact, 100)
	e.rule(p.ID, "/b", "/to/b", redirects.StartsWith, 7)
	yes := true
	dest := "/to/a"
	if _, err := e.s.UpdateRule(e.ctx, p.ID, a.ID, redirects.RuleUpdate{Destination: &dest, PreserveQuery: &yes}); err != nil {
		t.Fatalf("UpdateRule: %v", err)
	}
	e.clock.Add(time.Hour)
	before := e.draftOf(p.ID)
	if before[0].Revision != 2 {
		t.Fatalf("setup: /a at revision %d, want 2", before[0].Revision)
	}

	in := []redirects.Rule{
		{Source: "/a", Destination: "/new", StatusCode: 302, MatchType: redirects.Exact, Priority: 100},
		{Source: "/d", Destination: "/to/d", StatusCode: 308, MatchType: redirects.StartsWith, Priority: 3, PreservePath: true},
	}
	dry, err := e.s.Import(e.ctx, p.ID, in, redirects.ImportOptions{Mode: redirects.ImportUpsert, DryRun: true})
	if err != nil || dry.UndoID != 0 {
		t.Fatalf("dry run: %+v, %v; want no UndoID", dry, err)
	}
	rep := e.importRules(p.ID, in, redirects.ImportUpsert)
	if got := sources(e.rules(p.ID)); !slices.Equal(got, []string{"exact /a", "starts_with /d", "starts_with /b"}) {
		t.Fatalf("draft after the upsert = %v", got)
	}
	e.clock.Add(time.Minute)
	if err := e.s.CheckImportUndo(e.ctx, p.ID, rep.UndoID); err != nil {
		t.Fatalf("CheckImportUndo before the undo: %v", err)
	}
	n, err := e.s.UndoImport(e.ctx, p.ID, rep.UndoID)
	if err != nil {
		t.Fatalf("UndoImport: %v", err)
	}
	if n != len(before) {
		t.Errorf("UndoImport restored %d rules, want %d", n, len(before))
	}
	wantDraft(t, "draft after the undo", e.draftOf(p.ID), before)

	entries := e.audit(redirects.AuditFilter{ProjectID: p.ID, Action: redirects.AuditRuleImportUndo})
	if len(entries) != 1 {
		t.Fatalf("audit entries of the undo = %v, want one", auditActions(entries))
	}
	wantAuditJSON(t, "undo entry's after", entries[0].After, map[string]any{"import": float64(rep.UndoID), "mode": "upsert", "removed": 3, "restored": 2})

	_, err = e.s.UndoImport(e.ctx, p.ID, rep.UndoID)
	wantCode(t, "UndoImport twice", err, redirects.ENOTFOUND)
	wantCode(t, "CheckImportUndo after the undo", e.s.CheckImportUndo(e.ctx, p.ID, rep.UndoID), redirects.ENOTFOUND)
	other := e.project(e.org("Other").ID, "other")
	_, err = e.s.UndoImport(e.ctx, other.ID, rep.UndoID)
	wantCode(t, "UndoImport of another project's import", err, redirects.ENOTFOUND)
	_, err = e.s.UndoImport(e.ctx, "prj_missing", rep.UndoID)
	wantCode(t, "UndoImport in a missing project", err, redirects.ENOTFOUND)

	// A rule added after the undo gets a new ID, not one the undo put back
	// or the import's rules had.
	c := e.rule(p.ID, "/c", "/to/c", redirects.Exact, 100)
	for _, r := range before {
		if r.ID == c.ID {
			t.Errorf("a rule added after the undo got ID %d, which /%s has", c.ID, r.Source)
		}
	}
}

// testImportUndoAfterEdit: once the draft changes (a rule added, edited
// and edited back, or the settings), the undo is refused and changes
// nothing.
func testImportUndoAfterEdit(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/a", "/to/a", redirects.Exact, 100)
	rep := e.importRules(p.ID, []redirects.Rule{{Source: "/b", Destination: "/to/b", StatusCode: 301, MatchType: redirects.Exact, Priority: 100}}, redirects.ImportAppend)

	edits := []struct {
		name string
		do   func() func() // makes the change, returns what reverts it
	}{
		{"a rule added", func() func() {
			r := e.rule(p.ID, "/x", "/to/x", redirects.Exact, 100)
			return func() {
				if err := e.s.DeleteRule(e.ctx, p.ID, r.ID); err != nil {
					t.Fatalf("DeleteRule: %v", err)
				}
			}
		}},
		{"a rule edited and edited back", func() func() {
			rules := e.rules(p.ID)
			d1, d0 := "/elsewhere", rules[0].Destination
			for _, d := range []string{d1, d0} {
				if _, err := e.s.UpdateRule(e.ctx, p.ID, rules[0].ID, redirects.RuleUpdate{Destination: &d}); err != nil {
					t.Fatalf("UpdateRule: %v", err)
				}
			}
			return nil // the revision grew: no way back
		}},
	}
	for _, ed := range edits {
		revert := ed.do()
		changed := e.draftOf(p.ID)
		_, err := e.s.UndoImport(e.ctx, p.ID, rep.UndoID)
		wantCode(t, "UndoImport after "+ed.name, err, redirects.ECONFLICT, "changed since import")
		wantCode(t, "CheckImportUndo after "+ed.name, e.s.CheckImportUndo(e.ctx, p.ID, rep.UndoID), redirects.ECONFLICT)
		wantDraft(t, "draft after a refused undo ("+ed.name+")", e.draftOf(p.ID), changed)
		if revert != nil {
			revert()
		}
	}
	if es := e.audit(redirects.AuditFilter{ProjectID: p.ID, Action: redirects.AuditRuleImportUndo}); len(es) != 0 {
		t.Errorf("refused undos recorded %v", auditActions(es))
	}

	// Settings are part of the draft too.
	p2 := e.project(p.OrgID, "settings")
	rep2 := e.importRules(p2.ID, []redirects.Rule{{Source: "/b", Destination: "/to/b", StatusCode: 301, MatchType: redirects.Exact, Priority: 100}}, redirects.ImportAppend)
	if _, err := e.s.SetProjectSettings(e.ctx, p2.ID, redirects.Settings{IgnoreTrailingSlash: true}); err != nil {
		t.Fatalf("SetProjectSettings: %v", err)
	}
	_, err := e.s.UndoImport(e.ctx, p2.ID, rep2.UndoID)
	wantCode(t, "UndoImport after a settings change", err, redirects.ECONFLICT)
	if got := sources(e.rules(p2.ID)); !slices.Equal(got, []string{"exact /b"}) {
		t.Errorf("draft after a refused undo = %v", got)
	}
}

// testImportUndoReplace: a replace (every ID new) is undone to the old
// IDs, under settings that are not the default (match keys restored).
func testImportUndoReplace(t *testing.T, e *env) {
	p := e.newProject()
	if _, err := e.s.SetProjectSettings(e.ctx, p.ID, redirects.Settings{CaseInsensitive: true}); err != nil {
		t.Fatalf("SetProjectSettings: %v", err)
	}
	for i := range 20 {
		e.rule(p.ID, fmt.Sprintf("/Old/%d", i), "/to", redirects.Exact, 100)
	}
	e.rule(p.ID, "/Docs/", "/guide/", redirects.StartsWith, 5)
	before := e.draftOf(p.ID)
	e.clock.Add(time.Hour)
	rep := e.importRules(p.ID, []redirects.Rule{
		{Source: "/old/1", Destination: "/new", StatusCode: 301, MatchType: redirects.Exact, Priority: 100},
		{Source: "/x", Destination: "/y", StatusCode: 301, MatchType: redirects.Exact, Priority: 100},
	}, redirects.ImportReplace)
	if rep.Removed != 20 {
		t.Fatalf("replace removed %d, want 20", rep.Removed)
	}
	if _, err := e.s.UndoImport(e.ctx, p.ID, rep.UndoID); err != nil {
		t.Fatalf("UndoImport(replace): %v", err)
	}
	wantDraft(t, "draft after undoing a replace", e.draftOf(p.ID), before)
	// The match keys came back: a source that folds onto a restored one
	// still clashes.
	err := e.s.AddRule(e.ctx, &redirects.Rule{ProjectID: p.ID, Source: "/old/3", Destination: "/z", StatusCode: 301, MatchType: redirects.Exact, Priority: 100})
	wantCode(t, "AddRule of a source that clashes with a restored one", err, redirects.ECONFLICT)
}

// testImportUndoLarge: a 100,000-rule draft replaced by a small file comes
// back whole.
func testImportUndoLarge(t *testing.T, e *env) {
	if testing.Short() {
		t.Skip("a 100,000-rule draft")
	}
	p := e.newProject()
	rules := benchRules(100_000)
	rules[7].PreservePath, rules[9].PreserveQuery = rules[7].MatchType == redirects.StartsWith, true
	rules[11].Destination += "#f"
	rules[11].PreserveQuery, rules[11].QueryAfterFragment = true, true
	rules[13].Destination = "/merged?m=1"
	rules[13].PreserveQuery, rules[13].MergeQuery = true, true
	e.importRules(p.ID, rules, redirects.ImportAppend)
	before := e.rules(p.ID)
	e.clock.Add(time.Hour)
	rep := e.importRules(p.ID, rules[:10], redirects.ImportReplace)
	start := time.Now()
	n, err := e.s.UndoImport(e.ctx, p.ID, rep.UndoID)
	if err != nil {
		t.Fatalf("UndoImport: %v", err)
	}
	t.Logf("undo of a replace of 100,000 rules: %v", time.Since(start))
	if n != len(rules) {
		t.Errorf("UndoImport restored %d rules, want %d", n, len(rules))
	}
	after := e.rules(p.ID)
	wantRules(t, "the 100,000-rule draft after the undo", after, before)
	for i := range min(len(after), len(before)) {
		if after[i].PreservePath != before[i].PreservePath || after[i].PreserveQuery != before[i].PreserveQuery ||
			after[i].QueryAfterFragment != before[i].QueryAfterFragment || after[i].MergeQuery != before[i].MergeQuery {
			t.Fatalf("rule %d: options %t/%t, want %t/%t", after[i].ID, after[i].PreservePath, after[i].PreserveQuery,
				before[i].PreservePath, before[i].PreserveQuery)
		}
	}
}

// testImportUndoKeepsLatest: only the latest MaxImportUndos imports keep
// a record; undoing the latest brings the draft back to what the one
// before left, which can then be undone in turn.
func testImportUndoKeepsLatest(t *testing.T, e *env) {
	p := e.newProject()
	var (
		reps   []*redirects.ImportReport
		drafts [][]redirects.Rule
	)
	for i := range redirects.MaxImportUndos + 1 {
		drafts = append(drafts, e.draftOf(p.ID))
		reps = append(reps, e.importRules(p.ID, []redirects.Rule{{Source: fmt.Sprintf("/r%d", i), Destination: "/to", StatusCode: 301,
			MatchType: redirects.Exact, Priority: 100}}, redirects.ImportAppend))
	}
	_, err := e.s.UndoImport(e.ctx, p.ID, reps[0].UndoID)
	wantCode(t, "UndoImport of an import older than the latest MaxImportUndos", err, redirects.ENOTFOUND)
	last := len(reps) - 1
	for _, i := range []int{last, last - 1} {
		if _, err := e.s.UndoImport(e.ctx, p.ID, reps[i].UndoID); err != nil {
			t.Fatalf("UndoImport of import %d: %v", i, err)
		}
		wantDraft(t, fmt.Sprintf("draft after undoing import %d", i), e.draftOf(p.ID), drafts[i])
	}
}

// testRewriteDraft: RewriteDraft refuses expected destinations and returns
// its rewrite's error, both changing nothing; a rewrite of some of the draft's rules is audited
// under the action asked for, and undone exactly; a project that does not
// exist is ENOTFOUND before any rewrite runs.
func testRewriteDraft(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/a", "/b", redirects.Exact, 100)
	e.rule(p.ID, "/b", "/c", redirects.Exact, 100)
	e.rule(p.ID, "/old/", "/b", redirects.StartsWith, 7)
	e.clock.Add(time.Hour)
	before := e.draftOf(p.ID)
	pointAtC := func(_ *redirects.Project, draft []redirects.Rule) ([]redirects.Rule, error) {
		var out []redirects.Rule
		for _, r := range draft {
			if r.Destination == "/b" {
				r.Destination = "/c"
				out = append(out, r)
			}
		}
		return out, nil
	}
	upsert := redirects.ImportOptions{Mode: redirects.ImportUpsert, Action: redirects.AuditRuleFlatten}

	bad := upsert
	bad.Expect = []string{"/b", "/b"}
	_, err := e.s.RewriteDraft(e.ctx, p.ID, pointAtC, bad)
	wantCode(t, "RewriteDraft with expected destinations", err, redirects.EINVALID)
	failed := errors.New("the rewrite failed")
	_, err = e.s.RewriteDraft(e.ctx, p.ID, func(*redirects.Project, []redirects.Rule) ([]redirects.Rule, error) {
		return nil, failed
	}, upsert)
	if !errors.Is(err, failed) {
		t.Fatalf("RewriteDraft whose rewrite fails = %v, want its error", err)
	}
	_, err = e.s.RewriteDraft(e.ctx, "prj_missing", func(*redirects.Project, []redirects.Rule) ([]redirects.Rule, error) {
		t.Fatal("the rewrite of a missing project ran")
		return nil, nil
	}, upsert)
	wantCode(t, "RewriteDraft of a missing project", err, redirects.ENOTFOUND)
	wantDraft(t, "draft after refused rewrites", e.draftOf(p.ID), before)
	if n := len(e.audit(redirects.AuditFilter{ProjectID: p.ID, Action: redirects.AuditRuleFlatten})); n != 0 {
		t.Fatalf("%d audit entries of refused rewrites, want none", n)
	}

	rep, err := e.s.RewriteDraft(e.ctx, p.ID, pointAtC, upsert)
	if err != nil {
		t.Fatalf("RewriteDraft: %v", err)
	}
	if rep.Updated != 2 || rep.Added != 0 || rep.UndoID == 0 {
		t.Fatalf("RewriteDraft reported %+v, want 2 updated and an undo record", *rep)
	}
	for _, r := range e.rules(p.ID) {
		if r.Destination == "/b" {
			t.Errorf("rule %s still redirects to /b", r.Source)
		}
	}
	if n := len(e.audit(redirects.AuditFilter{ProjectID: p.ID, Action: redirects.AuditRuleFlatten})); n != 1 {
		t.Fatalf("%d audit entries of the rewrite, want 1", n)
	}
	e.clock.Add(time.Minute)
	if _, err := e.s.UndoImport(e.ctx, p.ID, rep.UndoID); err != nil {
		t.Fatalf("UndoImport of the rewrite: %v", err)
	}
	wantDraft(t, "draft after undoing the rewrite", e.draftOf(p.ID), before)
}

// testRewriteDraftDeletes: a delete of one rule, or of rules by a filter,
// started while a RewriteDraft's rewrite computes, waits for the rewrite's
// write: the draft the rewrite read is the draft it writes over, its report
// counts what it changed, and its undo record describes the draft it left
// (the undo is refused only because the delete came after it).
func testRewriteDraftDeletes(t *testing.T, e *env) {
	for _, byFilter := range []bool{false, true} {
		p := e.newProject()
		e.rule(p.ID, "/a", "/b", redirects.Exact, 100)
		e.rule(p.ID, "/b", "/c", redirects.Exact, 100)
		c := e.rule(p.ID, "/c", "/d", redirects.Exact, 100)
		deleted := make(chan error, 1)
		early := false
		rep, err := e.s.RewriteDraft(e.ctx, p.ID, func(_ *redirects.Project, draft []redirects.Rule) ([]redirects.Rule, error) {
			go func() {
				if byFilter {
					_, err := e.s.DeleteRules(e.ctx, p.ID, redirects.RuleFilter{Query: "/c*"})
					deleted <- err
					return
				}
				deleted <- e.s.DeleteRule(e.ctx, p.ID, c.ID)
			}()
			// A delete that does not wait has long finished after
			// this; one that waits cannot finish before the write.
			select {
			case <-deleted:
				early = true
			case <-time.After(500 * time.Millisecond):
			}
			var out []redirects.Rule
			for _, r := range draft {
				if r.Destination == "/b" || r.Destination == "/c" {
					r.Destination = "/d"
					out = append(out, r)
				}
			}
			return out, nil
		}, redirects.ImportOptions{Mode: redirects.ImportUpsert, Action: redirects.AuditRuleFlatten})
		if err != nil {
			t.Fatalf("RewriteDraft: %v", err)
		}
		if early {
			t.Fatalf("a delete (by filter %t) finished while the rewrite computed, between its read of the draft and its write", byFilter)
		}
		if err := <-deleted; err != nil {
			t.Fatalf("the delete after the rewrite: %v", err)
		}
		if rep.Updated != 2 {
			t.Fatalf("RewriteDraft reported %d updated, want 2", rep.Updated)
		}
		got := map[string]string{}
		for _, r := range e.rules(p.ID) {
			got[r.Source] = r.Destination
		}
		if len(got) != 2 || got["/a"] != "/d" || got["/b"] != "/d" {
			t.Fatalf("draft after the rewrite and the delete: %v, want /a and /b to /d", got)
		}
	}
}
