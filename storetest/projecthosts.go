package storetest

import (
	"slices"
	"strings"
	"testing"

	"redirects"
)

// testProjectHosts sets, reads, normalizes, refuses and audits the hosts
// a project declares.
func testProjectHosts(t *testing.T, e *env) {
	o := e.org("Hosts")
	p := &redirects.Project{OrgID: o.ID, Name: "site", Hosts: []string{"WWW.Example.com.", "example.com", "www.example.com"}}
	if err := e.s.CreateProject(e.ctx, p); err != nil {
		t.Fatalf("CreateProject with hosts: %v", err)
	}
	want := []string{"www.example.com", "example.com"}
	if !slices.Equal(p.Hosts, want) {
		t.Errorf("created hosts = %q, want %q", p.Hosts, want)
	}
	found, err := e.s.FindProjectByID(e.ctx, p.ID)
	if err != nil || !slices.Equal(found.Hosts, want) {
		t.Fatalf("FindProjectByID = %+v, %v; want hosts %q", found, err, want)
	}
	plain := e.project(o.ID, "plain")
	if found, _ := e.s.FindProjectByID(e.ctx, plain.ID); found.Hosts != nil {
		t.Errorf("a project without hosts reads back %q", found.Hosts)
	}

	e.ctx = redirects.WithActor(e.ctx, redirects.Actor{Kind: redirects.ActorCLI, Label: "ann"})
	got, err := e.s.SetProjectHosts(e.ctx, plain.ID, []string{" Shop.Example.org "})
	if err != nil || !slices.Equal(got.Hosts, []string{"shop.example.org"}) || got.Name != "plain" {
		t.Fatalf("SetProjectHosts = %+v, %v", got, err)
	}
	all, err := e.s.FindProjects(e.ctx, o.ID)
	if err != nil || len(all) != 2 || !slices.Equal(all[1].Hosts, []string{"shop.example.org"}) || !slices.Equal(all[0].Hosts, want) {
		t.Fatalf("FindProjects = %+v, %v", all, err)
	}
	entries := e.audit(redirects.AuditFilter{ProjectID: plain.ID, Action: redirects.AuditProjectUpdate})
	if len(entries) != 1 || entries[0].Actor.Label != "ann" {
		t.Fatalf("audit of SetProjectHosts = %v", auditActions(entries))
	}
	wantAuditJSON(t, "hosts entry's before", entries[0].Before, map[string]any{"hosts": nil})
	wantAuditJSON(t, "hosts entry's after", entries[0].After, map[string]any{"hosts": []string{"shop.example.org"}})

	many := make([]string, redirects.MaxProjectHosts+1)
	for i := range many {
		many[i] = "h" + strings.Repeat("x", i) + ".example"
	}
	for _, bad := range [][]string{{"https://www.example.com"}, {"www.example.com:8080"}, {"exa mple.com"}, {""}, {"-a.example"}, {"a..b"}, many} {
		_, err := e.s.SetProjectHosts(e.ctx, plain.ID, bad)
		wantCode(t, "SetProjectHosts(bad)", err, redirects.EINVALID)
	}
	err = e.s.CreateProject(e.ctx, &redirects.Project{OrgID: o.ID, Name: "bad", Hosts: []string{"http://x"}})
	wantCode(t, "CreateProject(bad host)", err, redirects.EINVALID, "host")
	if found, _ := e.s.FindProjectByID(e.ctx, plain.ID); !slices.Equal(found.Hosts, []string{"shop.example.org"}) {
		t.Fatalf("refused hosts changed them to %q", found.Hosts)
	}

	got, err = e.s.SetProjectHosts(e.ctx, plain.ID, nil)
	if err != nil || got.Hosts != nil {
		t.Fatalf("SetProjectHosts(none) = %+v, %v", got, err)
	}
	if found, _ := e.s.FindProjectByID(e.ctx, plain.ID); found.Hosts != nil {
		t.Fatalf("cleared hosts read back %q", found.Hosts)
	}
	_, err = e.s.SetProjectHosts(e.ctx, "prj_nope", want)
	wantCode(t, "SetProjectHosts(unknown)", err, redirects.ENOTFOUND)
}
