package manage

import (
	"testing"

	"redirects"
)

func TestKeepExports(t *testing.T) { runSuite(t, testKeepExports) }

func testKeepExports(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	o := e.newOrg("Acme")
	admin := o.tokens[redirects.RoleOwner]
	pbase := "/manage/v1/projects/" + o.project.ID
	var p projectJSON
	admin.do("GET", pbase, nil).want(t, 200).decode(t, &p)
	if p.KeepExports != redirects.DefaultExportRetention {
		t.Fatalf("project = %+v, want keepExports %d", p, redirects.DefaultExportRetention)
	}
	admin.do("PATCH", pbase, map[string]any{"keepExports": 3}).want(t, 200).decode(t, &p)
	if p.KeepExports != 3 || p.Name != "Acme-site" {
		t.Fatalf("after PATCH keepExports = %+v", p)
	}
	// Bad input changes nothing, the name included.
	admin.do("PATCH", pbase, map[string]any{"name": "renamed", "keepExports": 0}).want(t, 400, "INVALID_INPUT")
	admin.do("PATCH", pbase, map[string]any{"name": "", "keepExports": 5}).want(t, 400, "INVALID_INPUT")
	admin.do("PATCH", pbase, map[string]any{}).want(t, 400, codeMissingField)
	if got, err := e.store.FindProjectByID(e.ctx, o.project.ID); err != nil || got.ExportRetention != 3 || got.Name != "Acme-site" {
		t.Fatalf("stored project = %+v, %v", got, err)
	}
	admin.do("PATCH", pbase, map[string]any{"name": "www", "keepExports": 1}).want(t, 200).decode(t, &p)
	if p.KeepExports != 1 || p.Name != "www" {
		t.Fatalf("after PATCH both = %+v", p)
	}
	// Viewers may not.
	o.tokens[redirects.RoleViewer].do("PATCH", pbase, map[string]any{"keepExports": 2}).want(t, 403)
	admin.do("POST", "/manage/v1/orgs/"+o.org.ID+"/projects", map[string]any{"name": "kept", "keepExports": 7}).want(t, 201).decode(t, &p)
	if p.KeepExports != 7 {
		t.Fatalf("created project = %+v", p)
	}
	admin.do("POST", "/manage/v1/orgs/"+o.org.ID+"/projects", map[string]any{"name": "bad", "keepExports": 10001}).want(t, 400, "INVALID_INPUT")
}
