package storetest

import (
	"testing"

	"redirects"
)

func testDeployExportRetention(t *testing.T, e *env) {
	p := e.newProject()
	if p.ExportRetention != redirects.DefaultExportRetention {
		t.Fatalf("a new project keeps %d deployments' exports, want %d", p.ExportRetention, redirects.DefaultExportRetention)
	}
	if got, err := e.s.FindProjectByID(e.ctx, p.ID); err != nil || got.ExportRetention != redirects.DefaultExportRetention {
		t.Fatalf("FindProjectByID = %+v, %v; want the default retention", got, err)
	}
	// Bad input changes nothing.
	for _, n := range []int{0, -1, redirects.MaxExportRetention + 1} {
		_, err := e.s.SetExportRetention(e.ctx, p.ID, n)
		wantCode(t, "SetExportRetention(bad)", err, redirects.EINVALID, "export retention")
	}
	_, err := e.s.SetExportRetention(e.ctx, "prj_nope", 1)
	wantCode(t, "SetExportRetention(unknown project)", err, redirects.ENOTFOUND, "prj_nope")

	e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	e.deploy(p.ID, redirects.DeployOptions{Message: "one"})
	_, v1 := e.export(p.ID, 1, "nginx")
	got, err := e.s.SetExportRetention(e.ctx, p.ID, 1)
	if err != nil || got.ExportRetention != 1 {
		t.Fatalf("SetExportRetention(1) = %+v, %v", got, err)
	}
	if got, err := e.s.FindProjects(e.ctx, p.OrgID); err != nil || len(got) != 1 || got[0].ExportRetention != 1 {
		t.Fatalf("FindProjects after SetExportRetention = %+v, %v", got, err)
	}
	// Setting a retention prunes nothing until the next deploy.
	e.export(p.ID, 1, "csv")
	e.rule(p.ID, "/b", "/y", redirects.Exact, 100)
	e.deploy(p.ID, redirects.DeployOptions{})
	e.rule(p.ID, "/c", "/z", redirects.Exact, 100)
	e.deploy(p.ID, redirects.DeployOptions{Message: "three"})

	// Versions 1 and 2 lost their files, not their rules.
	for _, v := range []int{1, 2} {
		d, x, err := e.s.FindExport(e.ctx, p.ID, v, "nginx")
		wantCode(t, "FindExport(pruned)", err, redirects.ENOTFOUND, "pruned")
		if !redirects.IsExportsPruned(err) || x != nil || d == nil || d.Version != v {
			t.Fatalf("FindExport(%d) of a pruned version = %+v, %+v, %v", v, d, x, err)
		}
		if _, rules, err := e.s.FindDeployment(e.ctx, p.ID, v); err != nil || len(rules) != v {
			t.Fatalf("FindDeployment(%d) = %d rules, %v; want %d", v, len(rules), err, v)
		}
	}
	e.export(p.ID, 3, "nginx")
	e.export(p.ID, 0, "nginx")
	_, _, err = e.s.FindExport(e.ctx, p.ID, 3, "apache")
	if redirects.ErrorCode(err) != redirects.ENOTFOUND || redirects.IsExportsPruned(err) {
		t.Fatalf("FindExport(unknown format of a kept version) = %v", err)
	}

	// Rendered again, the file is the deploy's, byte for byte.
	d, x, err := redirects.FindExport(e.ctx, e.s, build, p.ID, 1, "nginx")
	if err != nil || d.Version != 1 || d.Message != "one" || x.Format != "nginx" || string(x.Body) != string(v1.Body) || x.ETag != v1.ETag {
		t.Fatalf("FindExport(1) rendered again = %+v, %+v, %v; want %q %s", d, x, err, v1.Body, v1.ETag)
	}
	// Nothing was stored by rendering.
	if _, _, err := e.s.FindExport(e.ctx, p.ID, 1, "nginx"); !redirects.IsExportsPruned(err) {
		t.Fatalf("FindExport(1) after rendering again = %v, want still pruned", err)
	}
	_, _, err = redirects.FindExport(e.ctx, e.s, build, p.ID, 1, "apache")
	wantCode(t, "FindExport(unknown format of a pruned version)", err, redirects.ENOTFOUND, "apache")
	// Kept versions come from the store.
	if _, x, err := redirects.FindExport(e.ctx, e.s, nil, p.ID, 3, "csv"); err != nil || len(x.Body) == 0 {
		t.Fatalf("FindExport(3) = %+v, %v", x, err)
	}
	// Without a builder a pruned version is not found.
	_, _, err = redirects.FindExport(e.ctx, e.s, nil, p.ID, 1, "csv")
	wantCode(t, "FindExport(pruned, no builder)", err, redirects.ENOTFOUND, "pruned")

	// A larger retention keeps what is left: a rollback deploys version 1's
	// rules again with fresh files.
	if _, err := e.s.SetExportRetention(e.ctx, p.ID, 3); err != nil {
		t.Fatal(err)
	}
	e.deploy(p.ID, redirects.DeployOptions{FromVersion: 1})
	_, x4 := e.export(p.ID, 4, "nginx")
	if string(x4.Body) != string(v1.Body) {
		t.Fatalf("rollback to version 1 exports %q, want %q", x4.Body, v1.Body)
	}
	e.export(p.ID, 3, "nginx")
	if _, _, err := e.s.FindExport(e.ctx, p.ID, 2, "nginx"); !redirects.IsExportsPruned(err) {
		t.Fatalf("FindExport(2) = %v, want pruned", err)
	}
}
