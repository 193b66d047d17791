package edge

import (
	"testing"

	"redirects"
)

func TestLoadCatalog(t *testing.T) {
	f := newFixture(t)
	empty := &redirects.Project{OrgID: f.org.ID, Name: "empty"}
	f.ok(f.db.CreateProject(f.ctx, empty))
	c, err := LoadCatalog(f.ctx, f.db, 4)
	f.ok(err)
	v := c.View()
	if v.orgs[f.org.ID] == nil {
		t.Fatal("the organization is not loaded")
	}
	ps := v.projects[f.project.ID]
	if ps == nil || ps.Latest == nil || ps.Latest.Version != 2 {
		t.Fatalf("project: %+v, want the latest version 2 loaded", ps)
	}
	if m, ok := ps.Latest.Snap.Lookup("/b"); !ok || string(m.JSON()) == "" {
		t.Fatal("/b is not in the latest deployment")
	}
	if ps := v.projects[empty.ID]; ps == nil || ps.Latest != nil {
		t.Fatalf("project without deployments: %+v", ps)
	}
	if len(v.keys) != 1 {
		t.Fatalf("%d keys loaded, want 1", len(v.keys))
	}
	if n, err := c.Refresh(f.ctx); err != nil || n != 0 {
		t.Fatalf("Refresh after loading: %d, %v, want no events", n, err)
	}
}

func TestCatalogEviction(t *testing.T) {
	f := newFixture(t)
	c, err := LoadCatalog(f.ctx, f.db, 1)
	f.ok(err)
	id := f.project.ID
	if _, err := c.Version(f.ctx, id, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Version(f.ctx, id, 2); err != nil {
		t.Fatal(err)
	}
	if c.CachedVersion(id, 1) != nil {
		t.Fatal("version 1 still cached in a cache of one version")
	}
	if d := c.CachedVersion(id, 2); d == nil || d.Version != 2 {
		t.Fatal("version 2, the last loaded, is not cached")
	}
}
