package service_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"redirects"
)

func TestProjects(t *testing.T) {
	f := newOrgsFixture(t)
	ctx := context.Background()
	projects := f.svc.Projects

	if ps, err := projects.Projects(f.as(redirects.RoleViewer), ""); err != nil || len(ps) != 1 || ps[0].ID != f.pa.ID {
		t.Fatalf("a viewer's projects: %v %v, want only %s", ps, err, f.pa.ID)
	}
	if ps, err := projects.Projects(asLocal(), ""); err != nil || len(ps) != 2 {
		t.Fatalf("every project: %d %v, want 2", len(ps), err)
	}
	_, err := projects.Projects(f.as(redirects.RoleOwner), f.b.ID)
	wantOrgsErr(t, "another organization's projects", err, redirects.ENOTFOUND, `organization "`+f.b.ID+`" not found`)

	_, err = projects.Project(f.as(redirects.RoleOwner), f.pb.ID)
	wantOrgsErr(t, "another organization's project", err, redirects.ENOTFOUND, `project "`+f.pb.ID+`" not found`)
	ov, err := projects.ProjectOverview(f.as(redirects.RoleViewer), f.pa.ID)
	if err != nil || ov.Project.ID != f.pa.ID || ov.Live != nil || ov.RuleCount != 0 {
		t.Fatalf("overview of a new project: %+v %v", ov, err)
	}

	err = projects.CreateProject(f.as(redirects.RoleEditor), &redirects.Project{OrgID: f.a.ID, Name: "blog"})
	wantOrgsErr(t, "an editor creates a project", err, redirects.EFORBIDDEN, "")
	err = projects.CreateProject(f.as(redirects.RoleOwner), &redirects.Project{OrgID: f.b.ID, Name: "blog"})
	wantOrgsErr(t, "a project in another organization", err, redirects.ENOTFOUND, `organization "`+f.b.ID+`" not found`)
	p := &redirects.Project{OrgID: f.a.ID, Name: "blog"}
	if err := projects.CreateProject(f.as(redirects.RoleOwner), p); err != nil || p.ID == "" {
		t.Fatalf("an owner creates a project: %v", err)
	}

	owner := f.as(redirects.RoleOwner)
	_, err = projects.UpdateProject(owner, p.ID, redirects.ProjectUpdate{})
	wantOrgsErr(t, "an empty update", err, redirects.EINVALID, "")
	name, bad := "renamed", 0
	_, err = projects.UpdateProject(owner, p.ID, redirects.ProjectUpdate{Name: &name, ExportRetention: &bad})
	wantOrgsErr(t, "a bad retention", err, redirects.EINVALID, "")
	if got, _ := projects.Project(owner, p.ID); got.Name != "blog" {
		t.Fatalf("a refused update renamed the project to %q", got.Name)
	}
	_, err = projects.UpdateProject(f.as(redirects.RoleEditor), p.ID, redirects.ProjectUpdate{Name: &name})
	wantOrgsErr(t, "an editor renames a project", err, redirects.EFORBIDDEN, "")

	for _, src := range []string{"/Docs", "/docs"} {
		if err := f.db.AddRule(ctx, &redirects.Rule{ProjectID: p.ID, Source: src, Destination: "/x", StatusCode: 301, MatchType: redirects.Exact}); err != nil {
			t.Fatalf("add rule: %v", err)
		}
	}
	ci, limit, hosts, stage := true, 25, []string{"www.example.com"}, true
	_, err = projects.UpdateProject(owner, p.ID, redirects.ProjectUpdate{Name: &name, CaseInsensitive: &ci})
	wantOrgsErr(t, "clashing settings", err, redirects.ECONFLICT, "")
	if msg := redirects.ErrorMessage(err); !strings.Contains(msg, "nothing changed") || !strings.Contains(msg, `"/Docs" and rule`) {
		t.Fatalf("the refusal of clashing settings: %s", msg)
	}
	got, err := projects.UpdateProject(owner, p.ID, redirects.ProjectUpdate{Name: &name, ShrinkLimit: &limit, Hosts: &hosts, RequireStage: &stage})
	if err != nil || got.Name != name || got.ShrinkLimit != limit || len(got.Hosts) != 1 || !got.RequireStage {
		t.Fatalf("an update: %+v %v", got, err)
	}
	if ov, err := projects.ProjectOverview(owner, p.ID); err != nil || ov.RuleCount != 2 {
		t.Fatalf("overview: %+v %v, want 2 rules", ov, err)
	}

	err = projects.DeleteProject(f.as(redirects.RoleEditor), p.ID, name)
	wantOrgsErr(t, "an editor deletes a project", err, redirects.EFORBIDDEN, "")
	err = projects.DeleteProject(owner, p.ID, "blog")
	if !errors.Is(err, redirects.ErrNotConfirmed) {
		t.Fatalf("the old name typed back: %v, want ErrNotConfirmed", err)
	}
	if err := projects.DeleteProject(owner, p.ID, name); err != nil {
		t.Fatalf("delete: %v", err)
	}
	_, err = projects.Project(owner, p.ID)
	wantOrgsErr(t, "a deleted project", err, redirects.ENOTFOUND, "")
}
