package edge

import (
	"context"
	"path/filepath"
	"testing"

	"redirects"
	"redirects/export"
	"redirects/service"
	"redirects/sqlite"
)

// fixture is a catalog over a real SQLite store in t.TempDir(): one
// organization, one project with two deployments (version 1: /a, version
// 2: /a and /b), and a live key.
type fixture struct {
	t       *testing.T
	ctx     context.Context
	db      *sqlite.DB
	org     *redirects.Org
	project *redirects.Project
	catalog *Catalog
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "redirects.db"))
	if err != nil {
		t.Fatalf("opening the store: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	f := &fixture{t: t, ctx: ctx, db: db, org: &redirects.Org{Name: "acme", Tier: redirects.TierEnterprise}}
	f.ok(db.CreateOrg(ctx, f.org))
	f.project = &redirects.Project{OrgID: f.org.ID, Name: "site"}
	f.ok(db.CreateProject(ctx, f.project))
	f.addRule("/a", "/to-a")
	f.deploy()
	f.addRule("/b", "/to-b")
	f.deploy()
	k, _ := redirects.NewKey(f.project.ID, "", false, redirects.SystemClock{}.Now())
	f.ok(db.CreateKey(ctx, k))
	f.catalog, err = LoadCatalog(ctx, db, 4)
	f.ok(err)
	return f
}

func (f *fixture) ok(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) addRule(source, dest string) {
	f.t.Helper()
	f.ok(f.db.AddRule(f.ctx, &redirects.Rule{ProjectID: f.project.ID, Source: source, Destination: dest, StatusCode: 301, MatchType: redirects.Exact}))
}

func (f *fixture) deploy() int {
	f.t.Helper()
	d, err := service.DeployUnchecked(f.ctx, f.db, f.project.ID, redirects.DeployOptions{}, export.Build)
	f.ok(err)
	return d.Version
}
