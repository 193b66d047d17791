package service_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"redirects"
	"redirects/service"
	"redirects/sqlite"
)

// fixedClock is a Clock stopped at one time.
type fixedClock time.Time

func (c fixedClock) Now() time.Time { return time.Time(c) }

// fixture is the service over a real SQLite file, with two organizations
// (org, the one the principals below have roles in, and other) and a
// project in each.
type fixture struct {
	db             *sqlite.DB
	svc            *service.Service
	org, other     *redirects.Org
	project, elsew *redirects.Project
	now            time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "redirects.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &fixture{db: db, now: time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)}
	f.svc = service.New(service.Deps{Store: db, Accounts: db, Clock: fixedClock(f.now)})
	f.org = &redirects.Org{Name: "Acme", Tier: redirects.TierPro}
	f.other = &redirects.Org{Name: "Other", Tier: redirects.TierFree}
	for _, o := range []*redirects.Org{f.org, f.other} {
		if err := db.CreateOrg(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	f.project = &redirects.Project{OrgID: f.org.ID, Name: "Shop"}
	f.elsew = &redirects.Project{OrgID: f.other.ID, Name: "Elsewhere"}
	for _, p := range []*redirects.Project{f.project, f.elsew} {
		if err := db.CreateProject(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// as returns a context of a user with role in the fixture's organization
// ("" for none).
func (f *fixture) as(role redirects.Role) context.Context {
	p := redirects.Principal{Roles: map[string]redirects.Role{}}
	if role != "" {
		p.Roles[f.org.ID] = role
	}
	return redirects.WithPrincipal(context.Background(), p)
}

func local() context.Context {
	return redirects.WithPrincipal(context.Background(), redirects.LocalPrincipal())
}

// wantCode fails unless err has the error code want ("" for no error) and,
// when msg is not "", that message.
func wantCode(t *testing.T, what string, err error, want, msg string) {
	t.Helper()
	if got := redirects.ErrorCode(err); err == nil && want != "" || err != nil && got != want {
		t.Fatalf("%s: error %v (code %q), want code %q", what, err, got, want)
	}
	if msg != "" && redirects.ErrorMessage(err) != msg {
		t.Fatalf("%s: message %q, want %q", what, redirects.ErrorMessage(err), msg)
	}
}

func TestInsightUsage(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	if err := f.db.AddUsage(ctx, "2026-03", map[string]int64{f.org.ID: 12, f.other.ID: 5}); err != nil {
		t.Fatal(err)
	}
	if err := f.db.AddUsage(ctx, "2026-01", map[string]int64{f.org.ID: 3}); err != nil {
		t.Fatal(err)
	}
	k, _ := redirects.NewKey(f.project.ID, "web", false, f.now)
	if err := f.db.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	if err := f.db.AddKeyUsage(ctx, []redirects.DailyUsage{{KeyID: k.ID, Day: "2026-03-13", Count: 7}}); err != nil {
		t.Fatal(err)
	}

	u, err := f.svc.FindOrgUsage(f.as(redirects.RoleViewer), f.org.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if u.Month != "2026-03" || u.Total != 12 || len(u.Days) != 14 || u.Days[12] != (redirects.DayCount{Day: "2026-03-13", Count: 7}) ||
		len(u.Keys) != 1 || u.Keys[0].ID != k.ID || u.Keys[0].Count != 7 || u.Quota != f.org.MonthlyQuota() {
		t.Fatalf("usage of this month = %+v", u)
	}
	_, err = f.svc.FindOrgUsage(f.as(redirects.RoleViewer), f.org.ID, "2026-3")
	wantCode(t, "a month that is not one", err, redirects.EINVALID, `month "2026-3" is not a month such as 2026-03`)
	_, err = f.svc.FindOrgUsage(f.as(redirects.RoleOwner), f.other.ID, "")
	wantCode(t, "another organization's usage", err, redirects.ENOTFOUND, `organization "`+f.other.ID+`" not found`)

	ms, err := f.svc.FindUsageMonths(f.as(redirects.RoleViewer), f.org.ID, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []redirects.MonthUsage{{Month: "2026-01", Total: 3}, {Month: "2026-02"}, {Month: "2026-03", Total: 12}}
	if len(ms) != 3 || ms[0] != want[0] || ms[1] != want[1] || ms[2] != want[2] {
		t.Fatalf("three months = %+v, want %+v", ms, want)
	}
	_, err = f.svc.FindUsageMonths(f.as(redirects.RoleViewer), f.org.ID, 0)
	wantCode(t, "no month", err, redirects.EINVALID, "")
}

func TestInsightMissesAndHits(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	seen := f.now.Add(-time.Hour)
	if err := f.db.AddMisses(ctx, []redirects.Miss{
		{ProjectID: f.project.ID, Path: "/old", Count: 5, FirstSeen: seen, LastSeen: seen},
		{ProjectID: f.project.ID, Path: "/gone", Count: 2, FirstSeen: seen, LastSeen: seen},
	}); err != nil {
		t.Fatal(err)
	}
	viewer, editor := f.as(redirects.RoleViewer), f.as(redirects.RoleEditor)

	ms, err := f.svc.FindMisses(viewer, f.project.ID, 10)
	if err != nil || len(ms) != 2 || ms[0].Path != "/old" {
		t.Fatalf("misses = %+v, %v", ms, err)
	}
	_, err = f.svc.FindMisses(viewer, f.project.ID, 0)
	wantCode(t, "a limit of 0", err, redirects.EINVALID, "")
	_, err = f.svc.FindMisses(viewer, f.elsew.ID, 10)
	wantCode(t, "another organization's misses", err, redirects.ENOTFOUND, `project "`+f.elsew.ID+`" not found`)

	wantCode(t, "a viewer forgets a miss", f.svc.DeleteMiss(viewer, f.project.ID, "/gone"), redirects.EFORBIDDEN, "")
	wantCode(t, "an editor forgets a miss", f.svc.DeleteMiss(editor, f.project.ID, "/gone"), "", "")
	wantCode(t, "forgetting no path", f.svc.DeleteMiss(editor, f.project.ID, ""), redirects.EINVALID, "")

	rule := &redirects.Rule{ProjectID: f.project.ID, Source: "/old", Destination: "/new", StatusCode: 301,
		MatchType: redirects.Exact, Priority: redirects.DefaultPriority}
	wantCode(t, "a viewer makes a rule of a miss", f.svc.AddRuleFromMiss(viewer, rule), redirects.EFORBIDDEN, "")
	bad := *rule
	bad.StatusCode = 200
	wantCode(t, "a rule of a bad status", f.svc.AddRuleFromMiss(editor, &bad), redirects.EINVALID, "")
	if err := f.svc.AddRuleFromMiss(editor, rule); err != nil {
		t.Fatal(err)
	}
	if rule.ID == 0 || rule.Revision != 1 {
		t.Fatalf("the rule made of a miss is %+v", rule)
	}
	if ms, _ := f.svc.FindMisses(viewer, f.project.ID, 10); len(ms) != 0 {
		t.Fatalf("misses after a rule of /old and forgetting /gone: %+v", ms)
	}

	if err := f.db.AddHits(ctx, []redirects.RuleHits{{ProjectID: f.project.ID, MatchType: redirects.Exact, Source: "/old", Hits: 4, LastHit: seen}}); err != nil {
		t.Fatal(err)
	}
	rules, hits, err := f.svc.FindRuleHits(viewer, f.project.ID, time.Time{})
	if err != nil || len(rules) != 1 || len(hits) != 1 || hits[0].Hits != 4 {
		t.Fatalf("hits = %+v, %+v, %v", rules, hits, err)
	}
	rules, _, err = f.svc.FindRuleHits(viewer, f.project.ID, seen.Add(-time.Minute))
	if err != nil || len(rules) != 0 {
		t.Fatalf("rules not hit since before the last hit = %+v, %v", rules, err)
	}
	_, _, err = f.svc.FindRuleHits(f.as(""), f.project.ID, time.Time{})
	wantCode(t, "hits of a stranger", err, redirects.ENOTFOUND, `project "`+f.project.ID+`" not found`)
}

func TestInsightAudit(t *testing.T) {
	f := newFixture(t)
	viewer := f.as(redirects.RoleViewer)
	es, err := f.svc.FindAudit(viewer, redirects.AuditFilter{OrgID: f.org.ID})
	if err != nil || len(es) == 0 {
		t.Fatalf("the organization's audit log = %d entries, %v", len(es), err)
	}
	for _, e := range es {
		if e.OrgID != f.org.ID {
			t.Fatalf("the organization's audit log holds %+v", e)
		}
	}
	_, err = f.svc.FindAudit(viewer, redirects.AuditFilter{OrgID: f.other.ID})
	wantCode(t, "another organization's log", err, redirects.ENOTFOUND, `organization "`+f.other.ID+`" not found`)
	_, err = f.svc.FindAudit(viewer, redirects.AuditFilter{OrgID: f.org.ID, ProjectID: f.elsew.ID})
	wantCode(t, "another organization's project", err, redirects.ENOTFOUND, `project "`+f.elsew.ID+`" not found`)
	_, err = f.svc.FindAudit(viewer, redirects.AuditFilter{ProjectID: f.project.ID})
	wantCode(t, "the project's log", err, "", "")
	_, err = f.svc.FindAudit(viewer, redirects.AuditFilter{})
	wantCode(t, "every organization's log", err, redirects.EFORBIDDEN, "")
	_, err = f.svc.FindAudit(viewer, redirects.AuditFilter{OrgID: f.org.ID, Action: "Rule"})
	wantCode(t, "a bad action", err, redirects.EINVALID, "")
	es, err = f.svc.FindAudit(local(), redirects.AuditFilter{})
	if err != nil || len(es) < 4 {
		t.Fatalf("every organization's log through the database = %d entries, %v", len(es), err)
	}
}

func TestInsightAgents(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	// The store keeps the reports of the last AgentRetention by the wall
	// clock.
	now := time.Now().UTC()
	if err := f.db.RecordAgents(ctx, []redirects.AgentReport{
		{ProjectID: f.project.ID, Agent: "web-1", Format: "nginx", AppliedVersion: 1, SeenAt: now},
		{ProjectID: f.project.ID, Agent: "web-2", Format: "nginx", AppliedVersion: 1, SeenAt: now},
	}); err != nil {
		t.Fatal(err)
	}
	live, reports, err := f.svc.FindAgents(f.as(redirects.RoleViewer), f.project.ID)
	if err != nil || live != 0 || len(reports) != 2 {
		t.Fatalf("agents = %d, %+v, %v", live, reports, err)
	}
	_, _, err = f.svc.FindAgents(f.as(redirects.RoleViewer), f.elsew.ID)
	wantCode(t, "another organization's agents", err, redirects.ENOTFOUND, "")
	_, err = f.svc.DeleteAgents(f.as(redirects.RoleViewer), f.project.ID, redirects.AgentFilter{Agent: "web-1"})
	wantCode(t, "a viewer forgets an agent", err, redirects.EFORBIDDEN, "")
	_, err = f.svc.DeleteAgents(f.as(redirects.RoleEditor), f.project.ID, redirects.AgentFilter{Format: "iis"})
	wantCode(t, "an unknown format", err, redirects.EINVALID, "")
	n, err := f.svc.DeleteAgents(f.as(redirects.RoleEditor), f.project.ID, redirects.AgentFilter{Agent: "web-1"})
	if err != nil || n != 1 {
		t.Fatalf("forgetting web-1 = %d, %v", n, err)
	}
}
