package storetest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"redirects"
)

func testProjectCreateAndFind(t *testing.T, e *env) {
	a, b := e.org("A"), e.org("B")
	e.clock.Add(time.Minute)
	p1 := &redirects.Project{OrgID: a.ID, Name: "one"}
	if err := e.s.CreateProject(e.ctx, p1); err != nil {
		t.Fatalf("CreateProject: %v", err)
	}
	if !strings.HasPrefix(p1.ID, "prj_") {
		t.Errorf("ID = %q, want prj_...", p1.ID)
	}
	wantTime(t, "CreatedAt", p1.CreatedAt, e.clock.Now())
	e.clock.Add(time.Second)
	p2 := e.project(b.ID, "two")
	e.clock.Add(time.Second)
	p3 := e.project(a.ID, "three")

	got, err := e.s.FindProjectByID(e.ctx, p1.ID)
	if err != nil {
		t.Fatalf("FindProjectByID: %v", err)
	}
	if got.ID != p1.ID || got.OrgID != a.ID || got.Name != "one" {
		t.Errorf("FindProjectByID = %+v, want %+v", got, p1)
	}
	wantTime(t, "found CreatedAt", got.CreatedAt, p1.CreatedAt)

	for _, tc := range []struct {
		org  string
		want []string
	}{
		{a.ID, []string{p1.ID, p3.ID}},
		{b.ID, []string{p2.ID}},
		{"", []string{p1.ID, p2.ID, p3.ID}},
	} {
		ps, err := e.s.FindProjects(e.ctx, tc.org)
		if err != nil {
			t.Fatalf("FindProjects(%q): %v", tc.org, err)
		}
		var ids []string
		for _, p := range ps {
			ids = append(ids, p.ID)
		}
		if !slices.Equal(ids, tc.want) {
			t.Errorf("FindProjects(%q) = %v, want %v (oldest first)", tc.org, ids, tc.want)
		}
	}

	_, err = e.s.FindProjectByID(e.ctx, "prj_nope")
	wantCode(t, "FindProjectByID(unknown)", err, redirects.ENOTFOUND, "prj_nope")
	_, err = e.s.FindProjects(e.ctx, "org_nope")
	wantCode(t, "FindProjects(unknown org)", err, redirects.ENOTFOUND, "org_nope")
}

func testProjectUnknownOrg(t *testing.T, e *env) {
	err := e.s.CreateProject(e.ctx, &redirects.Project{OrgID: "org_nope", Name: "x"})
	wantCode(t, "CreateProject(unknown org)", err, redirects.ENOTFOUND, "org_nope")
	ps, err := e.s.FindProjects(e.ctx, "")
	if err != nil || len(ps) != 0 {
		t.Errorf("FindProjects after a failed create = %d projects, %v; want none", len(ps), err)
	}
}

func testProjectInvalid(t *testing.T, e *env) {
	o := e.org("A")
	wantCode(t, "CreateProject(no name)", e.s.CreateProject(e.ctx, &redirects.Project{OrgID: o.ID}), redirects.EINVALID)
	wantCode(t, "CreateProject(no org)", e.s.CreateProject(e.ctx, &redirects.Project{Name: "x"}), redirects.EINVALID)
	ps, err := e.s.FindProjects(e.ctx, o.ID)
	if err != nil || len(ps) != 0 {
		t.Errorf("FindProjects after invalid creates = %d projects, %v; want none", len(ps), err)
	}
}
