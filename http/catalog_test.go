package http

import (
	"testing"

	"redirects"
)

func TestLoadCatalog(t *testing.T) {
	f := newFixture(t, nil)
	empty := &redirects.Project{OrgID: f.org.ID, Name: "empty"}
	f.ok(f.db.CreateProject(f.ctx, empty))
	c, err := LoadCatalog(f.ctx, f.db, 4)
	f.ok(err)
	v := c.view()
	if v.orgs[f.org.ID] == nil {
		t.Fatal("the organization is not loaded")
	}
	ps := v.projects[f.project.ID]
	if ps == nil || ps.latest == nil || ps.latest.version != 2 {
		t.Fatalf("project: %+v, want the latest version 2 loaded", ps)
	}
	if m, ok := ps.latest.snap.Lookup("/b"); !ok || string(m.JSON()) == "" {
		t.Fatal("/b is not in the latest deployment")
	}
	if ps := v.projects[empty.ID]; ps == nil || ps.latest != nil {
		t.Fatalf("project without deployments: %+v", ps)
	}
	if len(v.keys) != 1 {
		t.Fatalf("%d keys loaded, want 1", len(v.keys))
	}
	if n, err := c.Refresh(f.ctx); err != nil || n != 0 {
		t.Fatalf("Refresh after loading: %d, %v, want no events", n, err)
	}
}

func TestCatalogRefresh(t *testing.T) {
	f := newFixture(t, nil)
	before := f.catalog.view()

	// A deploy replaces the project's latest deployment.
	f.addRule("/c", "/to-c")
	v3 := f.deploy()
	if w := f.handle("GET", "/v1/lookup", f.lookupQuery("/c"), f.secret); w.Status != 204 {
		t.Fatalf("before the refresh: %d, want 204", w.Status)
	}
	if n := f.refresh(); n == 0 {
		t.Fatal("Refresh applied no event after a deploy")
	}
	after := f.catalog.view()
	if after == before || after.projects[f.project.ID].latest.version != v3 {
		t.Fatalf("latest version %d, want %d in a new view", after.projects[f.project.ID].latest.version, v3)
	}
	if before.projects[f.project.ID].latest.version != 2 {
		t.Fatal("the old view changed: views must be immutable")
	}
	if w := f.handle("GET", "/v1/lookup", f.lookupQuery("/c"), f.secret); w.Status != 200 {
		t.Fatalf("after the refresh: %d %s, want 200", w.Status, w.Body)
	}

	// A key works once the catalog has seen it, and stops once revoked.
	secret := f.newKey(true)
	wantError(t, f.handle("GET", "/v1/lookup", f.lookupQuery("/a"), secret), errInvalidKey)
	f.refresh()
	if w := f.handle("GET", "/v1/lookup", f.lookupQuery("/a"), secret); w.Status != 200 {
		t.Fatalf("new key: %d %s", w.Status, w.Body)
	}
	_, err := f.db.RevokeKey(f.ctx, f.project.ID, secret)
	f.ok(err)
	f.refresh()
	wantError(t, f.handle("GET", "/v1/lookup", f.lookupQuery("/a"), secret), errInvalidKey)

	// A catalog event reloads projects, carrying deployments over.
	latest := f.catalog.view().projects[f.project.ID].latest
	p := &redirects.Project{OrgID: f.org.ID, Name: "new"}
	f.ok(f.db.CreateProject(f.ctx, p))
	f.refresh()
	v := f.catalog.view()
	if v.projects[p.ID] == nil {
		t.Fatal("a new project is not in the catalog after a refresh")
	}
	if v.projects[f.project.ID].latest != latest {
		t.Fatal("a catalog reload recompiled a deployment it should have kept")
	}
}

func TestCatalogOldVersions(t *testing.T) {
	f := newFixture(t, nil)
	id := f.project.ID
	if f.catalog.cachedVersion(id, 1) != nil {
		t.Fatal("version 1 cached before anyone asked")
	}
	// The first lookup of an old version reads the store on the slow path;
	// the next one answers from the cache.
	w := new(Resp)
	slow := f.edge.Handle(&Req{Method: "GET", Path: "/v1/lookup", RawQuery: f.lookupQuery("/b") + "&version=1", APIKey: f.secret}, w)
	if slow == nil {
		t.Fatal("an uncompiled version was answered without the store")
	}
	slow(w)
	if w.Status != 204 {
		t.Fatalf("/b in version 1: %d, want 204", w.Status)
	}
	d := f.catalog.cachedVersion(id, 1)
	if d == nil || d.version != 1 {
		t.Fatalf("version 1 not cached after a lookup: %+v", d)
	}
	w = new(Resp)
	if slow := f.edge.Handle(&Req{Method: "GET", Path: "/v1/lookup", RawQuery: f.lookupQuery("/a") + "&version=1", APIKey: f.secret}, w); slow != nil {
		t.Fatal("a cached version took the slow path")
	}
	if w.Status != 200 {
		t.Fatalf("/a in version 1: %d", w.Status)
	}
	got, err := f.catalog.Version(f.ctx, id, 1)
	if err != nil || got != d {
		t.Fatalf("Version(1) = %p, %v, want the cached %p", got, err, d)
	}
	if _, err := f.catalog.Version(f.ctx, id, 99); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Fatalf("Version(99): %v, want ENOTFOUND", err)
	}
}

func TestCatalogEviction(t *testing.T) {
	f := newFixture(t, nil)
	c, err := LoadCatalog(f.ctx, f.db, 1)
	f.ok(err)
	id := f.project.ID
	if _, err := c.Version(f.ctx, id, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Version(f.ctx, id, 2); err != nil {
		t.Fatal(err)
	}
	if c.cachedVersion(id, 1) != nil {
		t.Fatal("version 1 still cached in a cache of one version")
	}
	if d := c.cachedVersion(id, 2); d == nil || d.version != 2 {
		t.Fatal("version 2, the last loaded, is not cached")
	}
}
