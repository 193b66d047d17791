package storetest

import (
	"slices"
	"testing"
	"time"

	"redirects"
)

// filled makes a project with rules, a key and two deployments with their
// exports, and returns it with its key.
func (e *env) filled(orgID, name string) (*redirects.Project, *redirects.Key) {
	e.t.Helper()
	p := e.project(orgID, name)
	if _, err := e.s.ImportRules(e.ctx, p.ID, batch("/a", "/b", "/c*"), false); err != nil {
		e.t.Fatalf("ImportRules: %v", err)
	}
	k, _ := e.key(p.ID, false)
	e.deploy(p.ID, redirects.DeployOptions{})
	e.deploy(p.ID, redirects.DeployOptions{})
	return p, k
}

// wantProjectGone fails unless nothing of project p can be found.
func wantProjectGone(t *testing.T, e *env, p *redirects.Project, k *redirects.Key) {
	t.Helper()
	_, err := e.s.FindProjectByID(e.ctx, p.ID)
	wantCode(t, "FindProjectByID(deleted)", err, redirects.ENOTFOUND, p.ID)
	_, err = e.s.FindRules(e.ctx, p.ID)
	wantCode(t, "FindRules(deleted project)", err, redirects.ENOTFOUND, p.ID)
	_, err = e.s.FindRulePage(e.ctx, p.ID, redirects.RulePageQuery{})
	wantCode(t, "FindRulePage(deleted project)", err, redirects.ENOTFOUND, p.ID)
	_, _, err = e.s.FindDeployment(e.ctx, p.ID, 1)
	wantCode(t, "FindDeployment(deleted project)", err, redirects.ENOTFOUND)
	_, _, err = e.s.FindExport(e.ctx, p.ID, 0, redirects.Formats[0])
	wantCode(t, "FindExport(deleted project)", err, redirects.ENOTFOUND)
	_, err = e.s.FindKeys(e.ctx, p.ID)
	wantCode(t, "FindKeys(deleted project)", err, redirects.ENOTFOUND, p.ID)
	for _, got := range e.keys("") {
		if got.ID == k.ID || got.ProjectID == p.ID {
			t.Fatalf("FindKeys(\"\") still holds key %s of the deleted project", got.ID)
		}
	}
	// A new project's rules start afresh: nothing of the old one remains
	// under a reused ID (IDs are never reused, but its rows must be gone).
	if ps, err := e.s.FindProjects(e.ctx, ""); err != nil {
		t.Fatalf("FindProjects: %v", err)
	} else if slices.ContainsFunc(ps, func(q *redirects.Project) bool { return q.ID == p.ID }) {
		t.Fatalf("FindProjects still lists the deleted project %s", p.ID)
	}
}

// wantProjectIntact fails unless p still has its 3 rules, its key and 2
// deployments.
func wantProjectIntact(t *testing.T, e *env, p *redirects.Project, k *redirects.Key) {
	t.Helper()
	if n := len(e.rules(p.ID)); n != 3 {
		t.Fatalf("project %s has %d rules, want 3", p.ID, n)
	}
	wantTotal(t, e, p.ID, 3)
	if ks := e.keys(p.ID); len(ks) != 1 || ks[0].ID != k.ID {
		t.Fatalf("project %s keys = %v, want [%s]", p.ID, keyIDs(ks), k.ID)
	}
	if ds, err := e.s.FindDeployments(e.ctx, p.ID); err != nil || len(ds) != 2 {
		t.Fatalf("FindDeployments(%s) = %d, %v; want 2", p.ID, len(ds), err)
	}
	if _, x, err := e.s.FindExport(e.ctx, p.ID, 2, redirects.Formats[0]); err != nil || len(x.Body) == 0 {
		t.Fatalf("FindExport(%s) = %v; want the export", p.ID, err)
	}
}

func testProjectUpdate(t *testing.T, e *env) {
	p := e.newProject()
	at := e.clock.Add(time.Second)
	got, err := e.s.UpdateProject(e.ctx, p.ID, "renamed")
	if err != nil || got.Name != "renamed" || got.ID != p.ID || got.OrgID != p.OrgID || !got.CreatedAt.Equal(p.CreatedAt) {
		t.Fatalf("UpdateProject = %+v, %v; want %s named renamed", got, err, p.ID)
	}
	if found, err := e.s.FindProjectByID(e.ctx, p.ID); err != nil || found.Name != "renamed" {
		t.Fatalf("FindProjectByID after rename = %+v, %v", found, err)
	}
	evs := e.events()
	last := evs[len(evs)-1]
	if last.Kind != redirects.EventProject || last.ProjectID != p.ID || last.OrgID != p.OrgID {
		t.Fatalf("last event = %+v, want a project event of %s", last, p.ID)
	}
	wantTime(t, "rename event", last.CreatedAt, at)

	_, err = e.s.UpdateProject(e.ctx, p.ID, "")
	wantCode(t, "UpdateProject(empty name)", err, redirects.EINVALID, "name")
	_, err = e.s.UpdateProject(e.ctx, p.ID, "bad\x01name")
	wantCode(t, "UpdateProject(control character)", err, redirects.EINVALID, "name")
	if found, _ := e.s.FindProjectByID(e.ctx, p.ID); found.Name != "renamed" {
		t.Fatalf("a refused rename changed the name to %q", found.Name)
	}
	if n := len(e.events()); n != len(evs) {
		t.Fatalf("a refused rename recorded %d events", n-len(evs))
	}
	_, err = e.s.UpdateProject(e.ctx, "prj_nope", "x")
	wantCode(t, "UpdateProject(unknown)", err, redirects.ENOTFOUND, "prj_nope")
}

func testProjectDelete(t *testing.T, e *env) {
	o := e.org("Acme")
	p, pk := e.filled(o.ID, "doomed")
	q, qk := e.filled(o.ID, "kept")
	at := e.clock.Add(time.Second)
	if err := e.s.DeleteProject(e.ctx, p.ID); err != nil {
		t.Fatalf("DeleteProject: %v", err)
	}
	wantProjectGone(t, e, p, pk)
	wantProjectIntact(t, e, q, qk)
	evs := e.events()
	last := evs[len(evs)-1]
	if last.Kind != redirects.EventProject || last.ProjectID != p.ID || last.OrgID != o.ID {
		t.Fatalf("last event = %+v, want a project event of %s", last, p.ID)
	}
	wantTime(t, "delete event", last.CreatedAt, at)
	err := e.s.DeleteProject(e.ctx, p.ID)
	wantCode(t, "DeleteProject(again)", err, redirects.ENOTFOUND, p.ID)
	if n := len(e.events()); n != len(evs) {
		t.Fatalf("a refused delete recorded %d events", n-len(evs))
	}
}

func testOrgDelete(t *testing.T, e *env) {
	o, other := e.org("Doomed"), e.org("Kept")
	p1, k1 := e.filled(o.ID, "one")
	p2, k2 := e.filled(o.ID, "two")
	q, qk := e.filled(other.ID, "kept")
	if err := e.s.AddUsage(e.ctx, "2026-03", map[string]int64{o.ID: 5, other.ID: 7}); err != nil {
		t.Fatalf("AddUsage: %v", err)
	}
	at := e.clock.Add(time.Second)
	if err := e.s.DeleteOrg(e.ctx, o.ID); err != nil {
		t.Fatalf("DeleteOrg: %v", err)
	}
	_, err := e.s.FindOrgByID(e.ctx, o.ID)
	wantCode(t, "FindOrgByID(deleted)", err, redirects.ENOTFOUND, o.ID)
	_, err = e.s.FindProjects(e.ctx, o.ID)
	wantCode(t, "FindProjects(deleted org)", err, redirects.ENOTFOUND, o.ID)
	wantProjectGone(t, e, p1, k1)
	wantProjectGone(t, e, p2, k2)
	wantProjectIntact(t, e, q, qk)
	if orgs, err := e.s.FindOrgs(e.ctx); err != nil || len(orgs) != 1 || orgs[0].ID != other.ID {
		t.Fatalf("FindOrgs = %v, %v; want only %s", orgIDs(orgs), err, other.ID)
	}
	if u, err := e.s.FindUsage(e.ctx, "2026-03"); err != nil || len(u) != 1 || u[other.ID] != 7 {
		t.Fatalf("FindUsage = %v, %v; want only %s's 7", u, err, other.ID)
	}
	evs := e.events()
	last := evs[len(evs)-1]
	if last.Kind != redirects.EventOrg || last.OrgID != o.ID || last.ProjectID != "" {
		t.Fatalf("last event = %+v, want an org event of %s", last, o.ID)
	}
	wantTime(t, "delete event", last.CreatedAt, at)
	err = e.s.DeleteOrg(e.ctx, o.ID)
	wantCode(t, "DeleteOrg(again)", err, redirects.ENOTFOUND, o.ID)
}
