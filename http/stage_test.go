package http

import (
	"context"
	"testing"
	"time"

	"redirects"
	"redirects/edge"
	"redirects/export"
	"redirects/service"
	"redirects/sqlite"
)

// TestCatalogStaged (docs/contract.md#staged-deploys): a staged version
// answers only with version=N and counts no hit and no miss, even with a
// live key; after its promote and a refresh it is the default, and the
// catalog no longer holds it compiled as staged.
func TestCatalogStaged(t *testing.T) {
	f := newFixture(t, nil)
	id := f.project.ID
	f.addRule("/c", "/to-c")
	d, err := service.DeployUnchecked(f.ctx, f.db, id, redirects.DeployOptions{Stage: true}, export.Build)
	f.ok(err)
	if d.Version != 3 {
		t.Fatalf("staged version %d, want 3", d.Version)
	}
	f.refresh()
	if w := f.handle("GET", "/v1/lookup", f.lookupQuery("/c"), f.secret); w.Status != 204 {
		t.Fatalf("/c without a version: %d, want 204 (version 2 is live)", w.Status)
	}
	for range 3 {
		if w := f.handle("GET", "/v1/lookup", f.lookupQuery("/c")+"&version=3", f.secret); w.Status != 200 {
			t.Fatalf("/c with version=3: %d %s", w.Status, w.Body)
		}
		f.handle("GET", "/v1/lookup", f.lookupQuery("/a")+"&version=3", f.secret)
		f.handle("GET", "/v1/lookup", f.lookupQuery("/nowhere")+"&version=3", f.secret)
	}
	// The control: a live lookup of version 2 counts.
	f.handle("GET", "/v1/lookup", f.lookupQuery("/a"), f.secret)
	f.handle("GET", "/v1/lookup", f.lookupQuery("/gone"), f.secret)
	f.ok(f.catalog.Flush(f.ctx, nil, time.Now()))
	hits, err := f.db.FindHits(f.ctx, id, nil)
	f.ok(err)
	if len(hits) != 1 || hits[0].Source != "/a" || hits[0].Hits != 1 {
		t.Fatalf("hits %+v, want /a once (the live lookup) alone", hits)
	}
	misses, err := f.db.FindMisses(f.ctx, id, 10)
	f.ok(err)
	// /c was missed once in version 2, the live one; /nowhere, in the
	// staged version 3 only, never.
	if len(misses) != 2 || misses[0].Path != "/c" || misses[1].Path != "/gone" {
		t.Fatalf("misses %+v, want /c and /gone (the live lookups) alone", misses)
	}
	if d := f.catalog.CachedVersion(id, 3); d == nil || !d.Staged {
		t.Fatalf("version 3 cached as %+v, want staged", d)
	}

	_, err = f.db.PromoteDeployment(f.ctx, id, 3)
	f.ok(err)
	f.refresh()
	if d := f.catalog.CachedVersion(id, 3); d != nil {
		t.Fatal("the promoted version is still cached as staged")
	}
	if ps := f.catalog.View().Project(id); ps.Latest == nil || ps.Latest.Version != 3 || ps.Latest.Staged {
		t.Fatalf("live after the promote: %+v", ps.Latest)
	}
	if w := f.handle("GET", "/v1/lookup", f.lookupQuery("/c"), f.secret); w.Status != 200 {
		t.Fatalf("/c after the promote: %d", w.Status)
	}
}

// racyStore answers FindDeployment of one version as the store had it,
// after running between the read and the answer what hook does.
type racyStore struct {
	*sqlite.DB
	version int
	hook    func()
}

func (s *racyStore) FindDeployment(ctx context.Context, projectID string, version int) (*redirects.Deployment, []redirects.Rule, error) {
	d, rules, err := s.DB.FindDeployment(ctx, projectID, version)
	if version == s.version && s.hook != nil {
		hook := s.hook
		s.hook = nil
		hook()
	}
	return d, rules, err
}

// TestCatalogDiscardDuringLoad: a version read from the store before its
// discard's event was applied answers the request that read it, but is not
// kept in the cache, where it would answer after the discard.
func TestCatalogDiscardDuringLoad(t *testing.T) {
	f := newFixture(t, nil)
	id := f.project.ID
	f.addRule("/c", "/to-c")
	_, err := service.DeployUnchecked(f.ctx, f.db, id, redirects.DeployOptions{Stage: true}, export.Build)
	f.ok(err)
	rs := &racyStore{DB: f.db, version: 3}
	c, err := edge.LoadCatalog(f.ctx, rs, 4)
	f.ok(err)
	rs.hook = func() {
		f.ok(f.db.DiscardDeployment(f.ctx, id, 3))
		if n, err := c.Refresh(f.ctx); err != nil || n == 0 {
			t.Errorf("Refresh after the discard: %d, %v", n, err)
		}
	}
	d, err := c.Version(f.ctx, id, 3)
	if err != nil || d.Version != 3 {
		t.Fatalf("Version(3) read before the discard: %+v, %v", d, err)
	}
	if c.CachedVersion(id, 3) != nil {
		t.Fatal("a version discarded while it was read stayed in the cache")
	}
	if _, err := c.Version(f.ctx, id, 3); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Fatalf("Version(3) after the discard: %v, want ENOTFOUND", err)
	}
}
