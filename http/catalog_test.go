package http

import (
	"testing"

	"redirects"
)

func TestCatalogRefresh(t *testing.T) {
	f := newFixture(t, nil)
	before := f.catalog.View()

	// A deploy replaces the project's latest deployment.
	f.addRule("/c", "/to-c")
	v3 := f.deploy()
	if w := f.handle("GET", "/v1/lookup", f.lookupQuery("/c"), f.secret); w.Status != 204 {
		t.Fatalf("before the refresh: %d, want 204", w.Status)
	}
	if n := f.refresh(); n == 0 {
		t.Fatal("Refresh applied no event after a deploy")
	}
	after := f.catalog.View()
	if after == before || after.Project(f.project.ID).Latest.Version != v3 {
		t.Fatalf("latest version %d, want %d in a new view", after.Project(f.project.ID).Latest.Version, v3)
	}
	if before.Project(f.project.ID).Latest.Version != 2 {
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
	latest := f.catalog.View().Project(f.project.ID).Latest
	p := &redirects.Project{OrgID: f.org.ID, Name: "new"}
	f.ok(f.db.CreateProject(f.ctx, p))
	f.refresh()
	v := f.catalog.View()
	if v.Project(p.ID) == nil {
		t.Fatal("a new project is not in the catalog after a refresh")
	}
	if v.Project(f.project.ID).Latest != latest {
		t.Fatal("a catalog reload recompiled a deployment it should have kept")
	}
}

func TestCatalogOldVersions(t *testing.T) {
	f := newFixture(t, nil)
	id := f.project.ID
	if f.catalog.CachedVersion(id, 1) != nil {
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
	d := f.catalog.CachedVersion(id, 1)
	if d == nil || d.Version != 1 {
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
