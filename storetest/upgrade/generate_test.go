//go:build fixturegen

package upgrade

// This file made the fixtures in testdata, with the program at the commit
// that README.md names; it is kept to show how, not run again: the fixtures
// stand for databases that release wrote. See testdata/README.md.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"redirects"
	"redirects/export"
	"redirects/postgres"
	"redirects/sqlite"
)

// stepClock starts at a fixed time and moves one second at each reading,
// so the fixtures' times do not depend on when they were made.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

const period = "2026-03"

func newClock() *stepClock {
	return &stepClock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
}

func TestGenerateSQLite(t *testing.T) {
	path := filepath.Join("testdata", "sqlite.db")
	os.Remove(path)
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	clock := newClock()
	db.Clock = clock
	f := populate(t, db, clock)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// The fixture is the file as populate left it; the answers come from
	// it afterwards (the edge's counts, flushed when it closes, go to the
	// file removed below).
	if out, err := exec.Command("gzip", "-9", "-k", "-f", path).CombinedOutput(); err != nil {
		t.Fatalf("gzip: %v: %s", err, out)
	}
	defer os.Remove(path)
	if db, err = sqlite.Open(ctx, path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f.Answers = collect(t, db, f)
	writeFile(t, filepath.Join("testdata", "sqlite.json"), encode(t, f))
}

func TestGeneratePostgres(t *testing.T) {
	admin := os.Getenv("REDIRECTS_TEST_POSTGRES")
	if admin == "" {
		t.Fatal("REDIRECTS_TEST_POSTGRES is not set")
	}
	ctx := context.Background()
	b := make([]byte, 6)
	rand.Read(b)
	name := "redirects_fixture_" + hex.EncodeToString(b)
	pgExec(t, admin, `CREATE DATABASE `+name)
	defer pgExec(t, admin, `DROP DATABASE `+name+` WITH (FORCE)`)
	url := withDatabase(t, admin, name)
	db, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	clock := newClock()
	db.Clock = clock
	f := populate(t, db, clock)
	db.Close()
	out, err := exec.Command("pg_dump", "--inserts", "--no-owner", "--no-privileges", "--dbname", url).Output()
	if err != nil {
		t.Fatalf("pg_dump: %v", err)
	}
	writeFile(t, filepath.Join("testdata", "postgres.sql"), out)
	if db, err = postgres.Open(ctx, url); err != nil {
		t.Fatal(err)
	}
	f.Answers = collect(t, db, f)
	db.Close()
	writeFile(t, filepath.Join("testdata", "postgres.json"), encode(t, f))
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// populate writes the fixture's state through the store's methods: two
// organizations with users, members, tokens and sessions; a project with
// hosts, a shrink limit, stored tests, an export retention of 2 and four
// deployments (the last a rollback, the first two with pruned exports);
// rules of both match types, added, imported, updated and deleted; live,
// test and revoked keys; usage, hits and misses.
func populate(t *testing.T, s store, clock *stepClock) *Fixture {
	t.Helper()
	ctx := redirects.WithActor(context.Background(), redirects.Actor{Kind: redirects.ActorCLI, ID: "fixture", Label: "fixture"})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	f := &Fixture{Keys: map[string]Secrets{}, Period: period}

	quota := redirects.Limit(5000)
	acme := &redirects.Org{Name: "acme", Tier: redirects.TierEnterprise}
	globex := &redirects.Org{Name: "globex", Tier: redirects.TierPro, QuotaOverride: &quota}
	must(s.CreateOrg(ctx, acme))
	must(s.CreateOrg(ctx, globex))
	name := "globex corp"
	_, err := s.UpdateOrg(ctx, globex.ID, redirects.OrgUpdate{Name: &name})
	must(err)

	hash, err := redirects.HashPassword("correct horse battery staple")
	must(err)
	alice := &redirects.User{Email: "alice@example.com", PasswordHash: hash, Operator: true}
	bob := &redirects.User{Email: "bob@example.com", PasswordHash: hash}
	carol := &redirects.User{Email: "carol@example.com", PasswordHash: hash}
	for _, u := range []*redirects.User{alice, bob, carol} {
		must(s.CreateUser(ctx, u))
	}
	must(s.SetMember(ctx, &redirects.Membership{OrgID: acme.ID, UserID: alice.ID, Role: redirects.RoleOwner}))
	must(s.SetMember(ctx, &redirects.Membership{OrgID: acme.ID, UserID: bob.ID, Role: redirects.RoleEditor}))
	must(s.SetMember(ctx, &redirects.Membership{OrgID: globex.ID, UserID: bob.ID, Role: redirects.RoleViewer}))
	must(s.SetMember(ctx, &redirects.Membership{OrgID: globex.ID, UserID: carol.ID, Role: redirects.RoleEditor}))
	tok, _ := redirects.NewManagementToken(acme.ID, redirects.RoleEditor, "deploy bot", alice.ID, clock.Now(), 0)
	must(s.CreateToken(ctx, tok))
	old, _ := redirects.NewManagementToken(acme.ID, redirects.RoleViewer, "old bot", alice.ID, clock.Now(), 0)
	must(s.CreateToken(ctx, old))
	_, err = s.RevokeToken(ctx, acme.ID, old.ID)
	must(err)
	ttl, _ := redirects.NewManagementToken(globex.ID, redirects.RoleEditor, "carol's", carol.ID, clock.Now(), 90*24*time.Hour)
	must(s.CreateToken(ctx, ttl))
	ses, _ := redirects.NewSession(alice.ID, clock.Now(), 24*time.Hour)
	must(s.CreateSession(ctx, ses))
	_, err = s.DisableUser(ctx, carol.ID)
	must(err)

	site := &redirects.Project{OrgID: acme.ID, Name: "site"}
	blog := &redirects.Project{OrgID: acme.ID, Name: "blog"}
	shop := &redirects.Project{OrgID: globex.ID, Name: "shop"}
	for _, p := range []*redirects.Project{site, blog, shop} {
		must(s.CreateProject(ctx, p))
	}
	_, err = s.UpdateProject(ctx, shop.ID, "store")
	must(err)
	_, err = s.SetProjectHosts(ctx, site.ID, []string{"www.example.com", "Example.com"})
	must(err)
	_, err = s.SetProjectShrinkLimit(ctx, site.ID, 30)
	must(err)
	_, err = s.SetExportRetention(ctx, site.ID, 2)
	must(err)
	must(s.SetProjectTests(ctx, site.ID, "path,status,destination\n/old,301,/new\n/gone,none,\n"))

	rule := func(src, dst string, code int, m redirects.MatchType, prio int) redirects.Rule {
		return redirects.Rule{Source: src, Destination: dst, StatusCode: code, MatchType: m, Priority: prio}
	}
	_, err = s.ImportRules(ctx, site.ID, []redirects.Rule{
		rule("/old", "/new", 301, redirects.Exact, 0),
		rule("/docs", "https://docs.example.com/", 302, redirects.StartsWith, 10),
		rule("/docs/v1", "https://docs.example.com/v1/", 301, redirects.StartsWith, 5),
		rule("/about-us", "/about", 301, redirects.Exact, 0),
		rule("/shop", "https://shop.example.com/", 302, redirects.StartsWith, 20),
		rule("/shop/sale", "/sale", 301, redirects.Exact, 0),
		rule("/Caf%C3%A9", "/cafe", 301, redirects.Exact, 0),
		rule("/team", "/about?section=team", 301, redirects.Exact, 0),
	}, false)
	must(err)
	deploy := func(p *redirects.Project, opts redirects.DeployOptions) {
		t.Helper()
		_, err := s.Deploy(ctx, p.ID, opts, export.Build)
		must(err)
	}
	deploy(site, redirects.DeployOptions{Message: "first"})
	r := rule("/press", "/news?from=press", 302, redirects.Exact, 0)
	r.ProjectID = site.ID
	must(s.AddRule(ctx, &r))
	rules, err := s.FindRules(ctx, site.ID)
	must(err)
	for _, x := range rules {
		switch x.Source {
		case "/about-us":
			dst := "/about/"
			_, err := s.UpdateRule(ctx, site.ID, x.ID, redirects.RuleUpdate{Destination: &dst})
			must(err)
		case "/team":
			must(s.DeleteRule(ctx, site.ID, x.ID))
		}
	}
	deploy(site, redirects.DeployOptions{Message: "second"})
	_, err = s.Import(ctx, site.ID, []redirects.Rule{
		rule("/old", "/newer", 301, redirects.Exact, 0),
		rule("/blog", "https://blog.example.com/", 301, redirects.StartsWith, 1),
	}, redirects.ImportOptions{Mode: redirects.ImportUpsert})
	must(err)
	deploy(site, redirects.DeployOptions{Message: "third", Override: redirects.DeployOverride{AllowShrink: true}})
	deploy(site, redirects.DeployOptions{Message: "back to the first", FromVersion: 1,
		Override: redirects.DeployOverride{Force: true, Reason: "rollback drill", AllowShrink: true}})

	_, err = s.ImportRules(ctx, blog.ID, []redirects.Rule{
		rule("/2019", "/archive/2019", 301, redirects.StartsWith, 0),
		rule("/feed", "/rss.xml", 301, redirects.Exact, 0),
	}, false)
	must(err)
	deploy(blog, redirects.DeployOptions{})
	_, err = s.ImportRules(ctx, shop.ID, []redirects.Rule{rule("/cart", "/basket", 302, redirects.Exact, 0)}, false)
	must(err)

	keys := map[*redirects.Project]*Secrets{}
	for _, p := range []*redirects.Project{site, blog} {
		sec := &Secrets{}
		k, live := redirects.NewKey(p.ID, "prod", false, clock.Now())
		must(s.CreateKey(ctx, k))
		kt, test := redirects.NewKey(p.ID, "ci", true, clock.Now())
		must(s.CreateKey(ctx, kt))
		kr, revoked := redirects.NewKey(p.ID, "old", false, clock.Now())
		must(s.CreateKey(ctx, kr))
		_, err := s.RevokeKey(ctx, p.ID, kr.ID)
		must(err)
		sec.Live, sec.Test, sec.Revoked = live, test, revoked
		keys[p] = sec
		f.Keys[p.ID] = *sec
		must(s.AddKeyUsage(ctx, []redirects.DailyUsage{
			{KeyID: k.ID, Day: period + "-01", Count: 40},
			{KeyID: k.ID, Day: period + "-02", Count: 7},
			{KeyID: kt.ID, Day: period + "-02", Count: 3},
		}))
	}
	kr2, secret := redirects.NewKey(shop.ID, "by secret", false, clock.Now())
	must(s.CreateKey(ctx, kr2))
	_, err = s.RevokeKey(ctx, shop.ID, secret)
	must(err)

	must(s.AddUsage(ctx, period, map[string]int64{acme.ID: 1234, globex.ID: 56}))
	must(s.AddUsage(ctx, period, map[string]int64{acme.ID: 1}))
	at := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	must(s.AddHits(ctx, []redirects.RuleHits{
		{ProjectID: site.ID, MatchType: redirects.Exact, Source: "/old", Hits: 12, LastHit: at},
		{ProjectID: site.ID, MatchType: redirects.StartsWith, Source: "/docs", Hits: 5, LastHit: at.Add(time.Minute)},
		{ProjectID: blog.ID, MatchType: redirects.Exact, Source: "/feed", Hits: 1, LastHit: at},
	}))
	must(s.AddMisses(ctx, []redirects.Miss{
		{ProjectID: site.ID, Path: "/missing", Count: 9, FirstSeen: at, LastSeen: at.Add(time.Hour)},
		{ProjectID: site.ID, Path: "/typo", Count: 2, FirstSeen: at, LastSeen: at},
		{ProjectID: site.ID, Path: "/fixed", Count: 4, FirstSeen: at, LastSeen: at},
	}))
	must(s.DeleteMiss(ctx, site.ID, "/fixed"))
	return f
}
