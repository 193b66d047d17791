package storetest

import (
	"strings"
	"testing"

	"redirects"
)

// testProjectShrinkLimit checks the shrink limit's default, its update
// and audit entry, and what it refuses.
func testProjectShrinkLimit(t *testing.T, e *env) {
	p := e.project(e.org("A").ID, "one")
	if p.ShrinkLimit != redirects.DefaultShrinkLimit {
		t.Errorf("created ShrinkLimit = %d, want %d", p.ShrinkLimit, redirects.DefaultShrinkLimit)
	}
	got, err := e.s.FindProjectByID(e.ctx, p.ID)
	if err != nil || got.ShrinkLimit != redirects.DefaultShrinkLimit {
		t.Fatalf("FindProjectByID = %+v, %v; want ShrinkLimit %d", got, err, redirects.DefaultShrinkLimit)
	}
	up, err := e.s.SetProjectShrinkLimit(e.ctx, p.ID, 25)
	if err != nil || up.ShrinkLimit != 25 || up.Name != "one" {
		t.Fatalf("SetProjectShrinkLimit(25) = %+v, %v", up, err)
	}
	ps, err := e.s.FindProjects(e.ctx, p.OrgID)
	if err != nil || len(ps) != 1 || ps[0].ShrinkLimit != 25 {
		t.Fatalf("FindProjects after the update = %+v, %v; want ShrinkLimit 25", ps, err)
	}
	entries := e.audit(redirects.AuditFilter{ProjectID: p.ID, Action: redirects.AuditProjectUpdate})
	if len(entries) != 1 {
		t.Fatalf("project.update entries = %d, want 1", len(entries))
	}
	wantAuditJSON(t, "before", entries[0].Before, map[string]any{"shrinkLimit": 10})
	wantAuditJSON(t, "after", entries[0].After, map[string]any{"shrinkLimit": 25})

	for _, n := range []int{-1, 101} {
		_, err := e.s.SetProjectShrinkLimit(e.ctx, p.ID, n)
		wantCode(t, "SetProjectShrinkLimit(bad)", err, redirects.EINVALID, "shrink limit")
	}
	_, err = e.s.SetProjectShrinkLimit(e.ctx, "prj_nope", 5)
	wantCode(t, "SetProjectShrinkLimit(unknown)", err, redirects.ENOTFOUND, "prj_nope")
	got, _ = e.s.FindProjectByID(e.ctx, p.ID)
	if got.ShrinkLimit != 25 {
		t.Errorf("ShrinkLimit after refused updates = %d, want 25", got.ShrinkLimit)
	}
}

// testProjectTests checks that a project's test file is stored as it came,
// replaced, removed, audited, and refused when it does not parse.
func testProjectTests(t *testing.T, e *env) {
	p := e.project(e.org("A").ID, "one")
	other := e.project(p.OrgID, "two")
	if csv, err := e.s.FindProjectTests(e.ctx, p.ID); err != nil || csv != "" {
		t.Fatalf("FindProjectTests of a new project = %q, %v; want none", csv, err)
	}
	file := "path,status,destination\r\n/a,301,/b\r\n/c,none,\r\n"
	if err := e.s.SetProjectTests(e.ctx, p.ID, file); err != nil {
		t.Fatalf("SetProjectTests: %v", err)
	}
	if csv, err := e.s.FindProjectTests(e.ctx, p.ID); err != nil || csv != file {
		t.Fatalf("FindProjectTests = %q, %v; want the file byte for byte", csv, err)
	}
	if csv, _ := e.s.FindProjectTests(e.ctx, other.ID); csv != "" {
		t.Fatalf("the other project's tests = %q, want none", csv)
	}

	bad := "path,status,destination\n/a,301,\nnope,302,/x\n"
	err := e.s.SetProjectTests(e.ctx, p.ID, bad)
	wantCode(t, "SetProjectTests(bad)", err, redirects.EINVALID, "line 2", "line 3")
	err = e.s.SetProjectTests(e.ctx, p.ID, "path,status,destination\n"+strings.Repeat("/a,none,\n", redirects.MaxTestsLen/9+1))
	wantCode(t, "SetProjectTests(too long)", err, redirects.EINVALID)
	err = e.s.SetProjectTests(e.ctx, "prj_nope", file)
	wantCode(t, "SetProjectTests(unknown)", err, redirects.ENOTFOUND, "prj_nope")
	_, err = e.s.FindProjectTests(e.ctx, "prj_nope")
	wantCode(t, "FindProjectTests(unknown)", err, redirects.ENOTFOUND, "prj_nope")
	if csv, _ := e.s.FindProjectTests(e.ctx, p.ID); csv != file {
		t.Fatalf("after refused files the tests = %q, want the first file", csv)
	}

	second := "path,status,destination,final_destination\n/a,301,/b,/z\n"
	if err := e.s.SetProjectTests(e.ctx, p.ID, second); err != nil {
		t.Fatalf("SetProjectTests(replace): %v", err)
	}
	if err := e.s.SetProjectTests(e.ctx, p.ID, ""); err != nil {
		t.Fatalf("SetProjectTests(remove): %v", err)
	}
	if csv, err := e.s.FindProjectTests(e.ctx, p.ID); err != nil || csv != "" {
		t.Fatalf("FindProjectTests after the removal = %q, %v; want none", csv, err)
	}

	entries := e.audit(redirects.AuditFilter{ProjectID: p.ID, Action: redirects.AuditProjectTests})
	if len(entries) != 3 {
		t.Fatalf("project.tests entries = %d, want 3 (store, replace, remove)", len(entries))
	}
	// Newest first.
	wantAuditJSON(t, "removal before", entries[0].Before, map[string]any{"cases": 1})
	wantAuditJSON(t, "removal after", entries[0].After, nil)
	wantAuditJSON(t, "replace before", entries[1].Before, map[string]any{"cases": 2})
	wantAuditJSON(t, "replace after", entries[1].After, map[string]any{"cases": 1})
	wantAuditJSON(t, "first before", entries[2].Before, nil)
	wantAuditJSON(t, "first after", entries[2].After, map[string]any{"cases": 2})

	// The test file goes with its project.
	if err := e.s.SetProjectTests(e.ctx, other.ID, file); err != nil {
		t.Fatalf("SetProjectTests(other): %v", err)
	}
	if err := e.s.DeleteProject(e.ctx, other.ID); err != nil {
		t.Fatalf("DeleteProject: %v", err)
	}
	_, err = e.s.FindProjectTests(e.ctx, other.ID)
	wantCode(t, "FindProjectTests(deleted project)", err, redirects.ENOTFOUND)
}
