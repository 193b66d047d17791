// Package storetest is the behaviour suite of redirects.Store. Every store
// implementation runs it, so the SQLite and PostgreSQL stores cannot drift
// apart: a behaviour either holds for every store or is not promised.
//
// The suite uses only the redirects.Store interface. It asserts what the
// interface documents (error codes, ordering, atomicity, the clock as the
// source of CreatedAt) and that error messages name the thing they are
// about, never a message's exact wording.
package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"redirects"
)

// Opener returns a new, empty store that takes its times from clock. The
// suite closes the store when the test ends.
type Opener func(t *testing.T, clock redirects.Clock) redirects.Store

// Run runs the behaviour suite against the stores that open returns, one
// fresh store per subtest.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(t *testing.T, e *env)
	}{
		{"Org/CreateAndFind", testOrgCreateAndFind},
		{"Org/Invalid", testOrgInvalid},
		{"Org/Update", testOrgUpdate},
		{"Org/NotFound", testOrgNotFound},
		{"Project/CreateAndFind", testProjectCreateAndFind},
		{"Project/UnknownOrg", testProjectUnknownOrg},
		{"Project/Invalid", testProjectInvalid},
		{"Rule/Add", testRuleAdd},
		{"Rule/Invalid", testRuleInvalid},
		{"Rule/Conflict", testRuleConflict},
		{"Rule/Sorted", testRuleSorted},
		{"Rule/Delete", testRuleDelete},
		{"Import/Stores", testImportStores},
		{"Import/AllOrNothing", testImportAllOrNothing},
		{"Import/ConflictOnly", testImportConflictOnly},
		{"Import/Replace", testImportReplace},
		{"Import/UnknownProject", testImportUnknownProject},
		{"Key/CreateAndFind", testKeyCreateAndFind},
		{"Key/Revoke", testKeyRevoke},
		{"Key/OtherProject", testKeyOtherProject},
		{"Deploy/Versions", testDeployVersions},
		{"Deploy/SnapshotImmutable", testDeploySnapshotImmutable},
		{"Deploy/Rollback", testDeployRollback},
		{"Deploy/UnknownVersion", testDeployUnknownVersion},
		{"Deploy/BuilderError", testDeployBuilderError},
		{"Deploy/BuilderSeesSortedRules", testDeployBuilderSeesSortedRules},
		{"Deploy/BuilderCannotChangeSnapshot", testDeployBuilderCannotChangeSnapshot},
		{"Deploy/Exports", testDeployExports},
		{"Deploy/NotFound", testDeployNotFound},
		{"Event/Recorded", testEventRecorded},
		{"Event/Paging", testEventPaging},
		{"Usage/Add", testUsageAdd},
		{"RulePage/Model", testRulePageModel},
		{"RulePage/Defaults", testRulePageDefaults},
		{"RulePage/Invalid", testRulePageInvalid},
		{"Rule/Update", testRuleUpdate},
		{"Rule/DeleteRevision", testRuleDeleteRevision},
		{"Rule/DeleteMatching", testDeleteRules},
		{"Project/Update", testProjectUpdate},
		{"Project/Delete", testProjectDelete},
		{"Org/Delete", testOrgDelete},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := NewClock(Start)
			s := open(t, clock)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			tc.fn(t, &env{t: t, s: s, clock: clock, ctx: context.Background()})
		})
	}
}

// env is what a test of the suite works with.
type env struct {
	t     *testing.T
	s     redirects.Store
	clock *Clock
	ctx   context.Context
}

func (e *env) org(name string) *redirects.Org {
	e.t.Helper()
	o := &redirects.Org{Name: name, Tier: redirects.TierFree}
	if err := e.s.CreateOrg(e.ctx, o); err != nil {
		e.t.Fatalf("CreateOrg(%q): %v", name, err)
	}
	return o
}

func (e *env) project(orgID, name string) *redirects.Project {
	e.t.Helper()
	p := &redirects.Project{OrgID: orgID, Name: name}
	if err := e.s.CreateProject(e.ctx, p); err != nil {
		e.t.Fatalf("CreateProject(%q): %v", name, err)
	}
	return p
}

// newProject makes an organization and a project in it.
func (e *env) newProject() *redirects.Project {
	e.t.Helper()
	return e.project(e.org("Acme").ID, "site")
}

func (e *env) rule(projectID, source, dest string, m redirects.MatchType, priority int) *redirects.Rule {
	e.t.Helper()
	r := &redirects.Rule{ProjectID: projectID, Source: source, Destination: dest, StatusCode: 301, MatchType: m, Priority: priority}
	if err := e.s.AddRule(e.ctx, r); err != nil {
		e.t.Fatalf("AddRule(%s %q): %v", m, source, err)
	}
	return r
}

func (e *env) rules(projectID string) []redirects.Rule {
	e.t.Helper()
	rules, err := e.s.FindRules(e.ctx, projectID)
	if err != nil {
		e.t.Fatalf("FindRules: %v", err)
	}
	return rules
}

func (e *env) deploy(projectID string, opts redirects.DeployOptions) *redirects.Deployment {
	e.t.Helper()
	d, err := e.s.Deploy(e.ctx, projectID, opts, build)
	if err != nil {
		e.t.Fatalf("Deploy(%+v): %v", opts, err)
	}
	return d
}

func (e *env) events() []redirects.Event {
	e.t.Helper()
	evs, err := e.s.FindEvents(e.ctx, 0, 1000)
	if err != nil {
		e.t.Fatalf("FindEvents: %v", err)
	}
	return evs
}

// build is the suite's Builder: each export is the format's name, the rule
// count and the sources, enough to tell versions apart. The real renderer
// is tested elsewhere.
func build(rules []redirects.Rule) (*redirects.DeployContent, error) {
	c := &redirects.DeployContent{Report: fmt.Sprintf("%d rules rendered", len(rules))}
	for _, f := range redirects.Formats {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %d\n", f, len(rules))
		for _, r := range rules {
			fmt.Fprintf(&b, "%s %s\n", r.Source, r.Destination)
		}
		c.Exports = append(c.Exports, redirects.Export{Format: f, Body: []byte(b.String()), ETag: etag([]byte(b.String()))})
	}
	return c, nil
}

func etag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// wantCode fails unless err is a domain error with the code, and its message
// holds every one of names.
func wantCode(t *testing.T, what string, err error, code string, names ...string) {
	t.Helper()
	if got := redirects.ErrorCode(err); got != code {
		t.Fatalf("%s: error code %q (%v), want %q", what, got, err, code)
	}
	msg := redirects.ErrorMessage(err)
	for _, n := range names {
		if !strings.Contains(msg, n) {
			t.Errorf("%s: message %q does not name %q", what, msg, n)
		}
	}
}

// wantTime fails unless got is want's instant, in UTC.
func wantTime(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	if !got.Equal(want) {
		t.Errorf("%s = %v, want %v (the clock's time)", what, got, want)
	}
	if got.Location() != time.UTC {
		t.Errorf("%s = %v is not in UTC", what, got)
	}
}

// sameRule reports how got differs from want, or "".
func sameRule(got, want *redirects.Rule) string {
	switch {
	case got.ID != want.ID:
		return fmt.Sprintf("ID %d, want %d", got.ID, want.ID)
	case got.ProjectID != want.ProjectID:
		return fmt.Sprintf("ProjectID %q, want %q", got.ProjectID, want.ProjectID)
	case got.Source != want.Source || got.Destination != want.Destination:
		return fmt.Sprintf("%q -> %q, want %q -> %q", got.Source, got.Destination, want.Source, want.Destination)
	case got.StatusCode != want.StatusCode:
		return fmt.Sprintf("StatusCode %d, want %d", got.StatusCode, want.StatusCode)
	case got.MatchType != want.MatchType:
		return fmt.Sprintf("MatchType %s, want %s", got.MatchType, want.MatchType)
	case got.Priority != want.Priority:
		return fmt.Sprintf("Priority %d, want %d", got.Priority, want.Priority)
	case !got.CreatedAt.Equal(want.CreatedAt):
		return fmt.Sprintf("CreatedAt %v, want %v", got.CreatedAt, want.CreatedAt)
	}
	return ""
}

// wantRules fails unless got holds want's rules, in want's order.
func wantRules(t *testing.T, what string, got, want []redirects.Rule) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rules %v, want %d %v", what, len(got), sources(got), len(want), sources(want))
	}
	for i := range got {
		if d := sameRule(&got[i], &want[i]); d != "" {
			t.Errorf("%s: rule %d (%q): %s", what, i, got[i].Source, d)
		}
	}
}

func sources(rules []redirects.Rule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.MatchType.String() + " " + r.Source
	}
	return out
}

// sorted returns a sorted copy of rules.
func sorted(rules ...redirects.Rule) []redirects.Rule {
	out := slices.Clone(rules)
	redirects.SortRules(out)
	return out
}

func limit(n int64) *redirects.Limit {
	l := redirects.Limit(n)
	return &l
}

func limitString(l *redirects.Limit) string {
	if l == nil {
		return "<nil>"
	}
	return l.String()
}

// Organizations.

func testOrgCreateAndFind(t *testing.T, e *env) {
	o := &redirects.Org{Name: "Acme", Tier: redirects.TierPro, RateLimitOverride: limit(5), QuotaOverride: limit(int64(redirects.Unlimited))}
	if err := e.s.CreateOrg(e.ctx, o); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	if !strings.HasPrefix(o.ID, "org_") {
		t.Errorf("ID = %q, want org_...", o.ID)
	}
	wantTime(t, "CreatedAt", o.CreatedAt, Start)

	got, err := e.s.FindOrgByID(e.ctx, o.ID)
	if err != nil {
		t.Fatalf("FindOrgByID: %v", err)
	}
	if got.ID != o.ID || got.Name != "Acme" || got.Tier != redirects.TierPro {
		t.Errorf("FindOrgByID = %+v, want %+v", got, o)
	}
	wantTime(t, "found CreatedAt", got.CreatedAt, Start)
	if limitString(got.RateLimitOverride) != "5" || limitString(got.QuotaOverride) != "unlimited" {
		t.Errorf("overrides = %s, %s; want 5, unlimited", limitString(got.RateLimitOverride), limitString(got.QuotaOverride))
	}
	if got.RateLimit() != 5 || !got.MonthlyQuota().IsUnlimited() {
		t.Errorf("limits in force = %v, %v; want 5, unlimited", got.RateLimit(), got.MonthlyQuota())
	}

	later := e.clock.Add(time.Second)
	o2 := &redirects.Org{Name: "Beta", Tier: redirects.TierFree}
	if err := e.s.CreateOrg(e.ctx, o2); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	if o2.ID == o.ID {
		t.Errorf("two organizations got the ID %s", o.ID)
	}
	got2, err := e.s.FindOrgByID(e.ctx, o2.ID)
	if err != nil {
		t.Fatalf("FindOrgByID: %v", err)
	}
	if got2.RateLimitOverride != nil || got2.QuotaOverride != nil {
		t.Errorf("overrides = %s, %s; want none", limitString(got2.RateLimitOverride), limitString(got2.QuotaOverride))
	}
	wantTime(t, "second CreatedAt", got2.CreatedAt, later)

	orgs, err := e.s.FindOrgs(e.ctx)
	if err != nil {
		t.Fatalf("FindOrgs: %v", err)
	}
	if len(orgs) != 2 || orgs[0].ID != o.ID || orgs[1].ID != o2.ID {
		t.Errorf("FindOrgs = %v, want [%s %s] (oldest first)", orgIDs(orgs), o.ID, o2.ID)
	}
}

func orgIDs(orgs []*redirects.Org) []string {
	var out []string
	for _, o := range orgs {
		out = append(out, o.ID)
	}
	return out
}

func testOrgInvalid(t *testing.T, e *env) {
	for _, o := range []*redirects.Org{
		{Name: "", Tier: redirects.TierFree},
		{Name: "Acme", Tier: "gold"},
		{Name: strings.Repeat("x", 201), Tier: redirects.TierFree},
	} {
		wantCode(t, fmt.Sprintf("CreateOrg(%q, %q)", o.Name, o.Tier), e.s.CreateOrg(e.ctx, o), redirects.EINVALID)
	}
	orgs, err := e.s.FindOrgs(e.ctx)
	if err != nil {
		t.Fatalf("FindOrgs: %v", err)
	}
	if len(orgs) != 0 {
		t.Errorf("FindOrgs after invalid creates = %v, want none", orgIDs(orgs))
	}
}

func testOrgUpdate(t *testing.T, e *env) {
	o := e.org("Acme")
	created := o.CreatedAt
	e.clock.Add(time.Hour)

	name, tier := "Acme Inc", redirects.TierEnterprise
	got, err := e.s.UpdateOrg(e.ctx, o.ID, redirects.OrgUpdate{Name: &name, Tier: &tier, RateLimit: limit(7), MonthlyQuota: limit(-1)})
	if err != nil {
		t.Fatalf("UpdateOrg: %v", err)
	}
	check := func(what string, got *redirects.Org, name string, tier redirects.Tier, rate, quota string) {
		t.Helper()
		if got.ID != o.ID || got.Name != name || got.Tier != tier {
			t.Errorf("%s = %s %q %s, want %s %q %s", what, got.ID, got.Name, got.Tier, o.ID, name, tier)
		}
		if r, q := limitString(got.RateLimitOverride), limitString(got.QuotaOverride); r != rate || q != quota {
			t.Errorf("%s overrides = %s, %s; want %s, %s", what, r, q, rate, quota)
		}
		wantTime(t, what+" CreatedAt", got.CreatedAt, created)
	}
	check("UpdateOrg", got, "Acme Inc", redirects.TierEnterprise, "7", "unlimited")
	found, err := e.s.FindOrgByID(e.ctx, o.ID)
	if err != nil {
		t.Fatalf("FindOrgByID: %v", err)
	}
	check("FindOrgByID after update", found, "Acme Inc", redirects.TierEnterprise, "7", "unlimited")

	// Clearing one override leaves the other; a zero limit is a limit.
	got, err = e.s.UpdateOrg(e.ctx, o.ID, redirects.OrgUpdate{ClearRateLimit: true, MonthlyQuota: limit(0)})
	if err != nil {
		t.Fatalf("UpdateOrg(clear rate): %v", err)
	}
	check("UpdateOrg(clear rate)", got, "Acme Inc", redirects.TierEnterprise, "<nil>", "0")
	if !got.RateLimit().IsUnlimited() {
		t.Errorf("rate limit after clearing = %v, want the enterprise tier's unlimited", got.RateLimit())
	}

	got, err = e.s.UpdateOrg(e.ctx, o.ID, redirects.OrgUpdate{ClearQuota: true})
	if err != nil {
		t.Fatalf("UpdateOrg(clear quota): %v", err)
	}
	check("UpdateOrg(clear quota)", got, "Acme Inc", redirects.TierEnterprise, "<nil>", "<nil>")

	// An invalid update changes nothing.
	empty, bad := "", redirects.Tier("gold")
	_, err = e.s.UpdateOrg(e.ctx, o.ID, redirects.OrgUpdate{Name: &empty, RateLimit: limit(1)})
	wantCode(t, "UpdateOrg(empty name)", err, redirects.EINVALID)
	_, err = e.s.UpdateOrg(e.ctx, o.ID, redirects.OrgUpdate{Tier: &bad})
	wantCode(t, "UpdateOrg(bad tier)", err, redirects.EINVALID)
	found, err = e.s.FindOrgByID(e.ctx, o.ID)
	if err != nil {
		t.Fatalf("FindOrgByID: %v", err)
	}
	check("FindOrgByID after invalid updates", found, "Acme Inc", redirects.TierEnterprise, "<nil>", "<nil>")

	_, err = e.s.UpdateOrg(e.ctx, "org_nope", redirects.OrgUpdate{Name: &name})
	wantCode(t, "UpdateOrg(unknown)", err, redirects.ENOTFOUND, "org_nope")
}

func testOrgNotFound(t *testing.T, e *env) {
	_, err := e.s.FindOrgByID(e.ctx, "org_nope")
	wantCode(t, "FindOrgByID(unknown)", err, redirects.ENOTFOUND, "org_nope")
	orgs, err := e.s.FindOrgs(e.ctx)
	if err != nil || len(orgs) != 0 {
		t.Errorf("FindOrgs on an empty store = %v, %v; want none, nil", orgIDs(orgs), err)
	}
}

// Projects.

func testProjectCreateAndFind(t *testing.T, e *env) {
	a, b := e.org("A"), e.org("B")
	e.clock.Add(time.Minute)
	p1 := &redirects.Project{OrgID: a.ID, Name: "one"}
	if err := e.s.CreateProject(e.ctx, p1); err != nil {
		t.Fatalf("CreateProject: %v", err)
	}
	if !strings.HasPrefix(p1.ID, "prj_") {
		t.Errorf("ID = %q, want prj_...", p1.ID)
	}
	wantTime(t, "CreatedAt", p1.CreatedAt, e.clock.Now())
	e.clock.Add(time.Second)
	p2 := e.project(b.ID, "two")
	e.clock.Add(time.Second)
	p3 := e.project(a.ID, "three")

	got, err := e.s.FindProjectByID(e.ctx, p1.ID)
	if err != nil {
		t.Fatalf("FindProjectByID: %v", err)
	}
	if got.ID != p1.ID || got.OrgID != a.ID || got.Name != "one" {
		t.Errorf("FindProjectByID = %+v, want %+v", got, p1)
	}
	wantTime(t, "found CreatedAt", got.CreatedAt, p1.CreatedAt)

	for _, tc := range []struct {
		org  string
		want []string
	}{
		{a.ID, []string{p1.ID, p3.ID}},
		{b.ID, []string{p2.ID}},
		{"", []string{p1.ID, p2.ID, p3.ID}},
	} {
		ps, err := e.s.FindProjects(e.ctx, tc.org)
		if err != nil {
			t.Fatalf("FindProjects(%q): %v", tc.org, err)
		}
		var ids []string
		for _, p := range ps {
			ids = append(ids, p.ID)
		}
		if !slices.Equal(ids, tc.want) {
			t.Errorf("FindProjects(%q) = %v, want %v (oldest first)", tc.org, ids, tc.want)
		}
	}

	_, err = e.s.FindProjectByID(e.ctx, "prj_nope")
	wantCode(t, "FindProjectByID(unknown)", err, redirects.ENOTFOUND, "prj_nope")
	_, err = e.s.FindProjects(e.ctx, "org_nope")
	wantCode(t, "FindProjects(unknown org)", err, redirects.ENOTFOUND, "org_nope")
}

func testProjectUnknownOrg(t *testing.T, e *env) {
	err := e.s.CreateProject(e.ctx, &redirects.Project{OrgID: "org_nope", Name: "x"})
	wantCode(t, "CreateProject(unknown org)", err, redirects.ENOTFOUND, "org_nope")
	ps, err := e.s.FindProjects(e.ctx, "")
	if err != nil || len(ps) != 0 {
		t.Errorf("FindProjects after a failed create = %d projects, %v; want none", len(ps), err)
	}
}

func testProjectInvalid(t *testing.T, e *env) {
	o := e.org("A")
	wantCode(t, "CreateProject(no name)", e.s.CreateProject(e.ctx, &redirects.Project{OrgID: o.ID}), redirects.EINVALID)
	wantCode(t, "CreateProject(no org)", e.s.CreateProject(e.ctx, &redirects.Project{Name: "x"}), redirects.EINVALID)
	ps, err := e.s.FindProjects(e.ctx, o.ID)
	if err != nil || len(ps) != 0 {
		t.Errorf("FindProjects after invalid creates = %d projects, %v; want none", len(ps), err)
	}
}

// Rules.

func testRuleAdd(t *testing.T, e *env) {
	p := e.newProject()
	e.clock.Add(time.Minute)
	r := &redirects.Rule{ProjectID: p.ID, Source: "/old", Destination: "https://example.com/new?x=1", StatusCode: 302, MatchType: redirects.Exact, Priority: 7}
	if err := e.s.AddRule(e.ctx, r); err != nil {
		t.Fatalf("AddRule: %v", err)
	}
	if r.ID <= 0 {
		t.Errorf("ID = %d, want a positive ID", r.ID)
	}
	wantTime(t, "CreatedAt", r.CreatedAt, e.clock.Now())
	r2 := e.rule(p.ID, "/other", "/x", redirects.StartsWith, 100)
	if r2.ID == r.ID {
		t.Errorf("two rules got the ID %d", r.ID)
	}
	wantRules(t, "FindRules", e.rules(p.ID), []redirects.Rule{*r, *r2})

	_, err := e.s.FindRules(e.ctx, "prj_nope")
	wantCode(t, "FindRules(unknown project)", err, redirects.ENOTFOUND, "prj_nope")
	err = e.s.AddRule(e.ctx, &redirects.Rule{ProjectID: "prj_nope", Source: "/a", Destination: "/b", StatusCode: 301, Priority: 100})
	wantCode(t, "AddRule(unknown project)", err, redirects.ENOTFOUND, "prj_nope")
}

func testRuleInvalid(t *testing.T, e *env) {
	p := e.newProject()
	for _, r := range []redirects.Rule{
		{Source: "a", Destination: "/b", StatusCode: 301},
		{Source: "/a b", Destination: "/b", StatusCode: 301},
		{Source: "/a;", Destination: "/b", StatusCode: 301},
		{Source: "/a", Destination: "ftp://x", StatusCode: 301},
		{Source: "/a", Destination: "/b", StatusCode: 307},
		{Source: "/a", Destination: "/b", StatusCode: 301, MatchType: 9},
		{Source: "/a", Destination: "/b", StatusCode: 301, Priority: -1},
		{Source: "/a", Destination: "/b", StatusCode: 301, Priority: redirects.MaxPriority + 1},
	} {
		r.ProjectID = p.ID
		wantCode(t, fmt.Sprintf("AddRule(%+v)", r), e.s.AddRule(e.ctx, &r), redirects.EINVALID)
	}
	if rules := e.rules(p.ID); len(rules) != 0 {
		t.Errorf("FindRules after invalid adds = %v, want none", sources(rules))
	}
}

func testRuleConflict(t *testing.T, e *env) {
	p := e.newProject()
	q := e.project(p.OrgID, "other")
	a := e.rule(p.ID, "/a", "/x", redirects.StartsWith, 100)
	err := e.s.AddRule(e.ctx, &redirects.Rule{ProjectID: p.ID, Source: "/a", Destination: "/y", StatusCode: 301, MatchType: redirects.StartsWith, Priority: 5})
	wantCode(t, "AddRule(same match type and source)", err, redirects.ECONFLICT, `"/a"`)
	// The same source with the other match type, or in another project, is
	// another rule.
	b := e.rule(p.ID, "/a", "/y", redirects.Exact, 100)
	c := e.rule(q.ID, "/a", "/z", redirects.StartsWith, 100)
	wantRules(t, "FindRules", e.rules(p.ID), []redirects.Rule{*b, *a})
	wantRules(t, "FindRules(other project)", e.rules(q.ID), []redirects.Rule{*c})
}

func testRuleSorted(t *testing.T, e *env) {
	p := e.newProject()
	var all []redirects.Rule
	add := func(source string, m redirects.MatchType, priority int) {
		e.clock.Add(time.Second)
		all = append(all, *e.rule(p.ID, source, "/to"+source, m, priority))
	}
	add("/z", redirects.Exact, 100)
	add("/b/", redirects.StartsWith, 100)
	add("/a", redirects.Exact, 5)
	add("/b/long/", redirects.StartsWith, 100) // longer source wins a tie
	add("/c/", redirects.StartsWith, 100)      // younger than /b/, same length
	add("/low", redirects.StartsWith, 1)
	add("/B", redirects.Exact, 100) // bytes: "/B" < "/a"
	want := []redirects.Rule{all[6], all[2], all[0], all[5], all[3], all[1], all[4]}
	wantRules(t, "FindRules", e.rules(p.ID), want)
	wantRules(t, "SortRules of the same rules", sorted(all...), want)
}

func testRuleDelete(t *testing.T, e *env) {
	p := e.newProject()
	q := e.project(p.OrgID, "other")
	a := e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	b := e.rule(p.ID, "/b", "/x", redirects.Exact, 100)
	if err := e.s.DeleteRule(e.ctx, p.ID, a.ID); err != nil {
		t.Fatalf("DeleteRule: %v", err)
	}
	wantRules(t, "FindRules after delete", e.rules(p.ID), []redirects.Rule{*b})
	wantCode(t, "DeleteRule(deleted)", e.s.DeleteRule(e.ctx, p.ID, a.ID), redirects.ENOTFOUND)
	wantCode(t, "DeleteRule(other project's rule)", e.s.DeleteRule(e.ctx, q.ID, b.ID), redirects.ENOTFOUND)
	wantCode(t, "DeleteRule(unknown project)", e.s.DeleteRule(e.ctx, "prj_nope", b.ID), redirects.ENOTFOUND)
	wantRules(t, "FindRules after failed deletes", e.rules(p.ID), []redirects.Rule{*b})

	// A new rule never takes a deleted rule's ID.
	e.rule(p.ID, "/c", "/x", redirects.Exact, 100)
	if err := e.s.DeleteRule(e.ctx, p.ID, b.ID); err != nil {
		t.Fatalf("DeleteRule: %v", err)
	}
	c := e.rule(p.ID, "/d", "/x", redirects.Exact, 100)
	if c.ID == a.ID || c.ID == b.ID {
		t.Errorf("new rule got the ID %d of a deleted rule", c.ID)
	}
}

// Import.

// batch returns rules as an import file gives them: no ID, project or time.
func batch(specs ...string) []redirects.Rule {
	var out []redirects.Rule
	for _, s := range specs {
		m := redirects.Exact
		if strings.HasSuffix(s, "*") {
			m, s = redirects.StartsWith, strings.TrimSuffix(s, "*")
		}
		out = append(out, redirects.Rule{Source: s, Destination: "/to" + s, StatusCode: 301, MatchType: m, Priority: 100})
	}
	return out
}

func testImportStores(t *testing.T, e *env) {
	p := e.newProject()
	deleted := e.rule(p.ID, "/gone", "/x", redirects.Exact, 100)
	if err := e.s.DeleteRule(e.ctx, p.ID, deleted.ID); err != nil {
		t.Fatalf("DeleteRule: %v", err)
	}
	e.clock.Add(time.Hour)
	in := batch("/a", "/b*", "/c", "/b", "/d*")
	in[1].Priority = 3
	n, err := e.s.ImportRules(e.ctx, p.ID, in, false)
	if err != nil {
		t.Fatalf("ImportRules: %v", err)
	}
	if n != len(in) {
		t.Errorf("ImportRules = %d, want %d", n, len(in))
	}
	got := e.rules(p.ID)
	if len(got) != len(in) {
		t.Fatalf("FindRules = %v, want the %d imported", sources(got), len(in))
	}
	// IDs are new: unique, and never a deleted rule's.
	ids := map[int64]bool{deleted.ID: true}
	for _, r := range got {
		if r.ProjectID != p.ID {
			t.Errorf("rule %q: ProjectID = %q, want %q", r.Source, r.ProjectID, p.ID)
		}
		wantTime(t, "imported CreatedAt", r.CreatedAt, e.clock.Now())
		if r.ID <= 0 || ids[r.ID] {
			t.Errorf("rule %q got the ID %d, which is not positive, taken, or a deleted rule's", r.Source, r.ID)
		}
		ids[r.ID] = true
	}
	if got[3].Source != "/b" || got[3].Priority != 3 || got[3].MatchType != redirects.StartsWith {
		t.Errorf("first prefix rule = %+v, want starts_with /b with priority 3", got[3])
	}

	n, err = e.s.ImportRules(e.ctx, p.ID, nil, false)
	if err != nil || n != 0 {
		t.Errorf("ImportRules(nothing) = %d, %v; want 0, nil", n, err)
	}
	if len(e.rules(p.ID)) != len(in) {
		t.Errorf("ImportRules(nothing) changed the rules")
	}
}

func testImportAllOrNothing(t *testing.T, e *env) {
	p := e.newProject()
	taken := e.rule(p.ID, "/taken", "/x", redirects.Exact, 100)
	in := batch("/ok", "no-slash", "/ok2*", "/ok", "/taken", "/ok3", "/ok2*", "/ok", "/taken")
	in[5].StatusCode = 307
	_, err := e.s.ImportRules(e.ctx, p.ID, in, false)
	wantCode(t, "ImportRules(bad batch)", err, redirects.EINVALID)

	// One line per problem, in the order of the batch, each naming the
	// rule's 1-based position; a repeat names the first occurrence too.
	lines := strings.Split(redirects.ErrorMessage(err), "\n")
	want := []struct {
		prefix string
		names  []string
	}{
		{"rule 2: ", []string{"source", `"no-slash"`}},
		{"rule 4: ", []string{`"/ok"`, "rule 1"}},
		{"rule 5: ", []string{`"/taken"`}},
		{"rule 6: ", []string{"307"}},
		{"rule 7: ", []string{`"/ok2"`, "rule 3"}},
		{"rule 8: ", []string{`"/ok"`, "rule 1"}},
		{"rule 9: ", []string{`"/taken"`, "rule 5"}},
	}
	if len(lines) != len(want) {
		t.Fatalf("ImportRules error has %d lines, want %d:\n%s", len(lines), len(want), redirects.ErrorMessage(err))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w.prefix) {
			t.Errorf("line %d = %q, want it to start with %q", i+1, lines[i], w.prefix)
		}
		for _, n := range w.names {
			if !strings.Contains(lines[i], n) {
				t.Errorf("line %d = %q, want it to name %s", i+1, lines[i], n)
			}
		}
	}
	wantRules(t, "FindRules after a failed import", e.rules(p.ID), []redirects.Rule{*taken})

	// The same problems with replace, less the clash with a stored rule.
	_, err = e.s.ImportRules(e.ctx, p.ID, in, true)
	wantCode(t, "ImportRules(bad batch, replace)", err, redirects.EINVALID)
	if n := strings.Count(redirects.ErrorMessage(err), "\n") + 1; n != 6 {
		t.Errorf("ImportRules(replace) reports %d problems, want 6:\n%s", n, redirects.ErrorMessage(err))
	}
	wantRules(t, "FindRules after a failed replace", e.rules(p.ID), []redirects.Rule{*taken})
}

func testImportConflictOnly(t *testing.T, e *env) {
	p := e.newProject()
	a := e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	b := e.rule(p.ID, "/b", "/x", redirects.StartsWith, 100)
	_, err := e.s.ImportRules(e.ctx, p.ID, batch("/new", "/a", "/b", "/b*"), false)
	wantCode(t, "ImportRules(clashes)", err, redirects.ECONFLICT, "rule 2: ", "rule 4: ", `"/a"`, `"/b"`)
	if strings.Contains(redirects.ErrorMessage(err), "rule 3:") {
		t.Errorf("ImportRules reports rule 3, an exact /b beside a starts_with /b, as a problem:\n%s", redirects.ErrorMessage(err))
	}
	wantRules(t, "FindRules after a clash", e.rules(p.ID), []redirects.Rule{*a, *b})
}

func testImportReplace(t *testing.T, e *env) {
	p := e.newProject()
	q := e.project(p.OrgID, "other")
	e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	e.rule(p.ID, "/b", "/x", redirects.Exact, 100)
	other := e.rule(q.ID, "/a", "/x", redirects.Exact, 100)
	e.clock.Add(time.Hour)

	n, err := e.s.ImportRules(e.ctx, p.ID, batch("/a", "/c*"), true)
	if err != nil || n != 2 {
		t.Fatalf("ImportRules(replace) = %d, %v; want 2, nil", n, err)
	}
	got := e.rules(p.ID)
	if s := sources(got); !slices.Equal(s, []string{"exact /a", "starts_with /c"}) {
		t.Errorf("FindRules after replace = %v, want [exact /a starts_with /c]", s)
	}
	for _, r := range got {
		if r.Destination != "/to"+r.Source {
			t.Errorf("rule %q -> %q, want the imported destination", r.Source, r.Destination)
		}
		wantTime(t, "replaced CreatedAt", r.CreatedAt, e.clock.Now())
	}
	wantRules(t, "other project's rules", e.rules(q.ID), []redirects.Rule{*other})

	if _, err := e.s.ImportRules(e.ctx, p.ID, nil, true); err != nil {
		t.Fatalf("ImportRules(nothing, replace): %v", err)
	}
	if got := e.rules(p.ID); len(got) != 0 {
		t.Errorf("FindRules after replacing with nothing = %v, want none", sources(got))
	}
}

func testImportUnknownProject(t *testing.T, e *env) {
	_, err := e.s.ImportRules(e.ctx, "prj_nope", batch("/a"), false)
	wantCode(t, "ImportRules(unknown project)", err, redirects.ENOTFOUND, "prj_nope")
}

// Keys.

func (e *env) key(projectID string, test bool) (*redirects.Key, string) {
	e.t.Helper()
	k, secret := redirects.NewKey(projectID, "ci", test, e.clock.Now())
	if err := e.s.CreateKey(e.ctx, k); err != nil {
		e.t.Fatalf("CreateKey: %v", err)
	}
	return k, secret
}

func (e *env) keys(projectID string) []*redirects.Key {
	e.t.Helper()
	ks, err := e.s.FindKeys(e.ctx, projectID)
	if err != nil {
		e.t.Fatalf("FindKeys(%q): %v", projectID, err)
	}
	return ks
}

func testKeyCreateAndFind(t *testing.T, e *env) {
	p := e.newProject()
	q := e.project(p.OrgID, "other")
	e.clock.Add(time.Minute)
	live, liveSecret := e.key(p.ID, false)
	e.clock.Add(time.Second)
	test, testSecret := e.key(p.ID, true)
	e.clock.Add(time.Second)
	other, _ := e.key(q.ID, false)

	ks := e.keys(p.ID)
	if len(ks) != 2 || ks[0].ID != live.ID || ks[1].ID != test.ID {
		t.Fatalf("FindKeys = %v, want [%s %s] (oldest first)", keyIDs(ks), live.ID, test.ID)
	}
	for i, tc := range []struct {
		want   *redirects.Key
		secret string
	}{{live, liveSecret}, {test, testSecret}} {
		got := ks[i]
		if got.Hash != redirects.HashKey(tc.secret) {
			t.Errorf("key %s: Hash = %q, want HashKey(secret)", got.ID, got.Hash)
		}
		for name, v := range map[string]string{"ID": got.ID, "Name": got.Name, "Hash": got.Hash, "Last4": got.Last4, "ProjectID": got.ProjectID} {
			if strings.Contains(v, tc.secret) || strings.Contains(v, tc.secret[len(redirects.LiveKeyPrefix):]) {
				t.Errorf("key %s: %s holds the secret", got.ID, name)
			}
		}
		if got.ProjectID != p.ID || got.Name != "ci" || got.Test != tc.want.Test || got.Last4 != tc.secret[len(tc.secret)-4:] {
			t.Errorf("key = %+v, want %+v", got, tc.want)
		}
		if got.RevokedAt != nil {
			t.Errorf("key %s: RevokedAt = %v, want nil", got.ID, got.RevokedAt)
		}
		wantTime(t, "key CreatedAt", got.CreatedAt, tc.want.CreatedAt)
	}
	wantTime(t, "first key CreatedAt", ks[0].CreatedAt, Start.Add(time.Minute))

	all := e.keys("")
	if ids := keyIDs(all); !slices.Equal(ids, []string{live.ID, test.ID, other.ID}) {
		t.Errorf(`FindKeys("") = %v, want [%s %s %s]`, ids, live.ID, test.ID, other.ID)
	}

	_, err := e.s.FindKeys(e.ctx, "prj_nope")
	wantCode(t, "FindKeys(unknown project)", err, redirects.ENOTFOUND, "prj_nope")
	k, _ := redirects.NewKey("prj_nope", "x", false, e.clock.Now())
	wantCode(t, "CreateKey(unknown project)", e.s.CreateKey(e.ctx, k), redirects.ENOTFOUND, "prj_nope")
	if n := len(e.keys("")); n != 3 {
		t.Errorf("FindKeys after a failed create = %d keys, want 3", n)
	}
}

func keyIDs(ks []*redirects.Key) []string {
	var out []string
	for _, k := range ks {
		out = append(out, k.ID)
	}
	return out
}

func testKeyRevoke(t *testing.T, e *env) {
	p := e.newProject()
	byID, _ := e.key(p.ID, false)
	bySecret, secret := e.key(p.ID, true)
	kept, _ := e.key(p.ID, false)

	at := e.clock.Add(time.Hour)
	got, err := e.s.RevokeKey(e.ctx, p.ID, byID.ID)
	if err != nil {
		t.Fatalf("RevokeKey(ID): %v", err)
	}
	if got.ID != byID.ID || got.RevokedAt == nil {
		t.Fatalf("RevokeKey(ID) = %+v, want key %s revoked", got, byID.ID)
	}
	wantTime(t, "RevokedAt", *got.RevokedAt, at)

	e.clock.Add(time.Hour)
	got, err = e.s.RevokeKey(e.ctx, p.ID, secret)
	if err != nil {
		t.Fatalf("RevokeKey(secret): %v", err)
	}
	if got.ID != bySecret.ID || got.RevokedAt == nil {
		t.Fatalf("RevokeKey(secret) = %+v, want key %s revoked", got, bySecret.ID)
	}

	// Revoking again is no error, and revocation keeps its first time.
	e.clock.Add(time.Hour)
	got, err = e.s.RevokeKey(e.ctx, p.ID, byID.ID)
	if err != nil {
		t.Fatalf("RevokeKey(revoked): %v", err)
	}
	if got.RevokedAt == nil {
		t.Fatalf("RevokeKey(revoked) returned a key that is not revoked")
	}
	wantTime(t, "RevokedAt after revoking again", *got.RevokedAt, at)

	for _, k := range e.keys(p.ID) {
		switch {
		case k.ID == kept.ID && k.RevokedAt != nil:
			t.Errorf("key %s was revoked, but only the others were asked for", k.ID)
		case k.ID != kept.ID && k.RevokedAt == nil:
			t.Errorf("key %s is not revoked", k.ID)
		case k.ID == byID.ID:
			wantTime(t, "stored RevokedAt", *k.RevokedAt, at)
		}
	}

	_, err = e.s.RevokeKey(e.ctx, p.ID, "key_nope")
	wantCode(t, "RevokeKey(unknown ID)", err, redirects.ENOTFOUND)
	unknown := redirects.NewSecret(false)
	_, err = e.s.RevokeKey(e.ctx, p.ID, unknown)
	wantCode(t, "RevokeKey(unknown secret)", err, redirects.ENOTFOUND)
	if strings.Contains(redirects.ErrorMessage(err), unknown) {
		t.Errorf("RevokeKey's error %q repeats the secret", redirects.ErrorMessage(err))
	}
	_, err = e.s.RevokeKey(e.ctx, "prj_nope", kept.ID)
	wantCode(t, "RevokeKey(unknown project)", err, redirects.ENOTFOUND)
}

func testKeyOtherProject(t *testing.T, e *env) {
	p := e.newProject()
	q := e.project(p.OrgID, "other")
	k, secret := e.key(p.ID, false)
	for _, ref := range []string{k.ID, secret} {
		_, err := e.s.RevokeKey(e.ctx, q.ID, ref)
		wantCode(t, "RevokeKey(other project's key)", err, redirects.ENOTFOUND)
		if strings.Contains(redirects.ErrorMessage(err), secret) {
			t.Errorf("RevokeKey's error %q repeats the secret", redirects.ErrorMessage(err))
		}
	}
	if ks := e.keys(p.ID); len(ks) != 1 || ks[0].RevokedAt != nil {
		t.Errorf("the key was revoked through another project")
	}
}

// Deployments.

func testDeployVersions(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	e.rule(p.ID, "/b", "/x", redirects.StartsWith, 100)
	e.rule(p.ID, "/c", "/x", redirects.StartsWith, 100)
	var times []time.Time
	for v := 1; v <= 3; v++ {
		times = append(times, e.clock.Add(time.Minute))
		d := e.deploy(p.ID, redirects.DeployOptions{Message: fmt.Sprintf("release %d", v)})
		if d.Version != v || d.ProjectID != p.ID || d.FromVersion != 0 {
			t.Errorf("Deploy #%d = version %d of %s from %d, want version %d of %s from 0", v, d.Version, d.ProjectID, d.FromVersion, v, p.ID)
		}
		if d.ExactCount != 1 || d.PrefixCount != 2 {
			t.Errorf("Deploy #%d counts = %d exact, %d prefix; want 1, 2", v, d.ExactCount, d.PrefixCount)
		}
		if d.Report != "3 rules rendered" {
			t.Errorf("Deploy #%d Report = %q, want the builder's", v, d.Report)
		}
		wantTime(t, "Deploy CreatedAt", d.CreatedAt, times[v-1])
	}
	ds, err := e.s.FindDeployments(e.ctx, p.ID)
	if err != nil {
		t.Fatalf("FindDeployments: %v", err)
	}
	if len(ds) != 3 {
		t.Fatalf("FindDeployments = %d deployments, want 3", len(ds))
	}
	for i, d := range ds {
		if d.Version != i+1 || d.Message != fmt.Sprintf("release %d", i+1) || d.ExactCount != 1 || d.PrefixCount != 2 || d.Report != "3 rules rendered" {
			t.Errorf("FindDeployments[%d] = %+v, want version %d as deployed", i, d, i+1)
		}
		wantTime(t, "found CreatedAt", d.CreatedAt, times[i])
	}

	// Another project counts its own versions.
	q := e.project(p.OrgID, "other")
	if d := e.deploy(q.ID, redirects.DeployOptions{}); d.Version != 1 {
		t.Errorf("first deploy of another project = version %d, want 1", d.Version)
	}
}

func testDeploySnapshotImmutable(t *testing.T, e *env) {
	p := e.newProject()
	a := e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	b := e.rule(p.ID, "/b", "/x", redirects.StartsWith, 100)
	e.deploy(p.ID, redirects.DeployOptions{})

	if err := e.s.DeleteRule(e.ctx, p.ID, a.ID); err != nil {
		t.Fatalf("DeleteRule: %v", err)
	}
	e.rule(p.ID, "/c", "/x", redirects.Exact, 100)
	if _, err := e.s.ImportRules(e.ctx, p.ID, batch("/d", "/e*"), false); err != nil {
		t.Fatalf("ImportRules: %v", err)
	}
	d, rules, err := e.s.FindDeployment(e.ctx, p.ID, 1)
	if err != nil {
		t.Fatalf("FindDeployment(1): %v", err)
	}
	if d.Version != 1 {
		t.Errorf("FindDeployment(1) = version %d", d.Version)
	}
	wantRules(t, "version 1 after draft edits", rules, []redirects.Rule{*a, *b})
	_, body := e.export(p.ID, 1, "csv")
	if want := "csv 2\n/a /x\n/b /x\n"; string(body.Body) != want {
		t.Errorf("version 1 csv after draft edits = %q, want %q", body.Body, want)
	}

	if _, err := e.s.ImportRules(e.ctx, p.ID, batch("/z"), true); err != nil {
		t.Fatalf("ImportRules(replace): %v", err)
	}
	_, rules, err = e.s.FindDeployment(e.ctx, p.ID, 1)
	if err != nil {
		t.Fatalf("FindDeployment(1): %v", err)
	}
	wantRules(t, "version 1 after replacing the draft", rules, []redirects.Rule{*a, *b})
}

func (e *env) export(projectID string, version int, format string) (*redirects.Deployment, *redirects.Export) {
	e.t.Helper()
	d, x, err := e.s.FindExport(e.ctx, projectID, version, format)
	if err != nil {
		e.t.Fatalf("FindExport(%d, %s): %v", version, format, err)
	}
	return d, x
}

func testDeployRollback(t *testing.T, e *env) {
	p := e.newProject()
	a := e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	e.deploy(p.ID, redirects.DeployOptions{Message: "one"})
	if err := e.s.DeleteRule(e.ctx, p.ID, a.ID); err != nil {
		t.Fatalf("DeleteRule: %v", err)
	}
	b := e.rule(p.ID, "/b", "/y", redirects.StartsWith, 100)
	e.deploy(p.ID, redirects.DeployOptions{Message: "two"})

	at := e.clock.Add(time.Hour)
	var seen []redirects.Rule
	d, err := e.s.Deploy(e.ctx, p.ID, redirects.DeployOptions{Message: "back to one", FromVersion: 1}, func(rules []redirects.Rule) (*redirects.DeployContent, error) {
		seen = slices.Clone(rules)
		return build(rules)
	})
	if err != nil {
		t.Fatalf("Deploy(FromVersion 1): %v", err)
	}
	if d.Version != 3 || d.FromVersion != 1 || d.Message != "back to one" || d.ExactCount != 1 || d.PrefixCount != 0 {
		t.Errorf("rollback = %+v, want version 3 from 1 with one exact rule", d)
	}
	wantTime(t, "rollback CreatedAt", d.CreatedAt, at)
	wantRules(t, "rules given to the builder", seen, []redirects.Rule{*a})
	got, rules, err := e.s.FindDeployment(e.ctx, p.ID, 0)
	if err != nil {
		t.Fatalf("FindDeployment(0): %v", err)
	}
	if got.Version != 3 || got.FromVersion != 1 {
		t.Errorf("latest = version %d from %d, want 3 from 1", got.Version, got.FromVersion)
	}
	wantRules(t, "version 3", rules, []redirects.Rule{*a})
	wantRules(t, "draft after a rollback", e.rules(p.ID), []redirects.Rule{*b})
}

func testDeployUnknownVersion(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	e.deploy(p.ID, redirects.DeployOptions{})
	called := false
	_, err := e.s.Deploy(e.ctx, p.ID, redirects.DeployOptions{FromVersion: 9}, func(rules []redirects.Rule) (*redirects.DeployContent, error) {
		called = true
		return build(rules)
	})
	wantCode(t, "Deploy(FromVersion 9)", err, redirects.ENOTFOUND, "9")
	if called {
		t.Errorf("Deploy(FromVersion 9) called the builder")
	}
	if d := e.deploy(p.ID, redirects.DeployOptions{}); d.Version != 2 {
		t.Errorf("deploy after a failed rollback = version %d, want 2", d.Version)
	}
}

func testDeployBuilderError(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	last, err := e.s.LastEventID(e.ctx)
	if err != nil {
		t.Fatalf("LastEventID: %v", err)
	}
	errBuild := errors.New("renderer broke")
	_, err = e.s.Deploy(e.ctx, p.ID, redirects.DeployOptions{}, func([]redirects.Rule) (*redirects.DeployContent, error) {
		return nil, errBuild
	})
	if !errors.Is(err, errBuild) {
		t.Fatalf("Deploy with a failing builder = %v, want the builder's error", err)
	}
	ds, err := e.s.FindDeployments(e.ctx, p.ID)
	if err != nil || len(ds) != 0 {
		t.Errorf("FindDeployments after a failed deploy = %d, %v; want none", len(ds), err)
	}
	_, _, err = e.s.FindDeployment(e.ctx, p.ID, 1)
	wantCode(t, "FindDeployment(1) after a failed deploy", err, redirects.ENOTFOUND)
	if now, err := e.s.LastEventID(e.ctx); err != nil || now != last {
		t.Errorf("LastEventID after a failed deploy = %d, %v; want %d (no event)", now, err, last)
	}
	if d := e.deploy(p.ID, redirects.DeployOptions{}); d.Version != 1 {
		t.Errorf("deploy after a failed one = version %d, want 1", d.Version)
	}
}

func testDeployBuilderSeesSortedRules(t *testing.T, e *env) {
	p := e.newProject()
	if _, err := e.s.ImportRules(e.ctx, p.ID, batch("/z", "/b*", "/a", "/bb*", "/m*"), false); err != nil {
		t.Fatalf("ImportRules: %v", err)
	}
	e.rule(p.ID, "/first", "/x", redirects.StartsWith, 0)
	draft := e.rules(p.ID)
	var seen []redirects.Rule
	d, err := e.s.Deploy(e.ctx, p.ID, redirects.DeployOptions{}, func(rules []redirects.Rule) (*redirects.DeployContent, error) {
		seen = slices.Clone(rules)
		return build(rules)
	})
	if err != nil {
		t.Fatalf("Deploy: %v", err)
	}
	wantRules(t, "rules given to the builder", seen, sorted(draft...))
	wantRules(t, "rules given to the builder", seen, draft)
	_, rules, err := e.s.FindDeployment(e.ctx, p.ID, d.Version)
	if err != nil {
		t.Fatalf("FindDeployment: %v", err)
	}
	wantRules(t, "deployed rules", rules, draft)
}

func testDeployBuilderCannotChangeSnapshot(t *testing.T, e *env) {
	p := e.newProject()
	a := e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	b := e.rule(p.ID, "/b", "/y", redirects.StartsWith, 100)
	d, err := e.s.Deploy(e.ctx, p.ID, redirects.DeployOptions{}, func(rules []redirects.Rule) (*redirects.DeployContent, error) {
		c, err := build(rules)
		rules[0].Destination = "/changed"
		rules[0], rules[1] = rules[1], rules[0]
		return c, err
	})
	if err != nil {
		t.Fatalf("Deploy: %v", err)
	}
	if d.ExactCount != 1 || d.PrefixCount != 1 {
		t.Errorf("counts = %d exact, %d prefix; want 1, 1", d.ExactCount, d.PrefixCount)
	}
	wantRules(t, "snapshot after the builder edited its rules", mustRules(t, e, p.ID, 1), []redirects.Rule{*a, *b})
}

func testDeployExports(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	d1 := e.deploy(p.ID, redirects.DeployOptions{})
	e.rule(p.ID, "/b", "/y", redirects.Exact, 100)
	d2 := e.deploy(p.ID, redirects.DeployOptions{})

	want1, _ := build(mustRules(t, e, p.ID, 1))
	want2, _ := build(e.rules(p.ID))
	for _, tc := range []struct {
		version int
		want    *redirects.DeployContent
		d       *redirects.Deployment
	}{{1, want1, d1}, {2, want2, d2}, {0, want2, d2}} {
		for _, w := range tc.want.Exports {
			d, x := e.export(p.ID, tc.version, w.Format)
			if d.Version != tc.d.Version || d.ProjectID != p.ID {
				t.Errorf("FindExport(%d, %s) deployment = version %d of %s, want %d of %s", tc.version, w.Format, d.Version, d.ProjectID, tc.d.Version, p.ID)
			}
			wantTime(t, "export's deployment CreatedAt", d.CreatedAt, tc.d.CreatedAt)
			if x.Format != w.Format || string(x.Body) != string(w.Body) || x.ETag != w.ETag {
				t.Errorf("FindExport(%d, %s) = %s %q %s, want %s %q %s", tc.version, w.Format, x.Format, x.Body, x.ETag, w.Format, w.Body, w.ETag)
			}
		}
	}
	_, _, err := e.s.FindExport(e.ctx, p.ID, 1, "apache")
	wantCode(t, "FindExport(unknown format)", err, redirects.ENOTFOUND, "apache")
	_, _, err = e.s.FindExport(e.ctx, p.ID, 3, "csv")
	wantCode(t, "FindExport(unknown version)", err, redirects.ENOTFOUND, "3")
	_, _, err = e.s.FindExport(e.ctx, "prj_nope", 0, "csv")
	wantCode(t, "FindExport(unknown project)", err, redirects.ENOTFOUND, "prj_nope")
}

func mustRules(t *testing.T, e *env, projectID string, version int) []redirects.Rule {
	t.Helper()
	_, rules, err := e.s.FindDeployment(e.ctx, projectID, version)
	if err != nil {
		t.Fatalf("FindDeployment(%d): %v", version, err)
	}
	return rules
}

func testDeployNotFound(t *testing.T, e *env) {
	p := e.newProject()
	_, _, err := e.s.FindDeployment(e.ctx, p.ID, 0)
	wantCode(t, "FindDeployment(latest, none deployed)", err, redirects.ENOTFOUND, p.ID)
	_, _, err = e.s.FindExport(e.ctx, p.ID, 0, "csv")
	wantCode(t, "FindExport(latest, none deployed)", err, redirects.ENOTFOUND, p.ID)
	ds, err := e.s.FindDeployments(e.ctx, p.ID)
	if err != nil || len(ds) != 0 {
		t.Errorf("FindDeployments(none deployed) = %d, %v; want none", len(ds), err)
	}

	e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	e.deploy(p.ID, redirects.DeployOptions{})
	d, _, err := e.s.FindDeployment(e.ctx, p.ID, 0)
	if err != nil || d.Version != 1 {
		t.Errorf("FindDeployment(latest) = %v, %v; want version 1", d, err)
	}
	_, _, err = e.s.FindDeployment(e.ctx, p.ID, 2)
	wantCode(t, "FindDeployment(2)", err, redirects.ENOTFOUND, p.ID, "2")

	_, _, err = e.s.FindDeployment(e.ctx, "prj_nope", 0)
	wantCode(t, "FindDeployment(unknown project)", err, redirects.ENOTFOUND, "prj_nope")
	_, err = e.s.FindDeployments(e.ctx, "prj_nope")
	wantCode(t, "FindDeployments(unknown project)", err, redirects.ENOTFOUND, "prj_nope")
	called := false
	_, err = e.s.Deploy(e.ctx, "prj_nope", redirects.DeployOptions{}, func(rules []redirects.Rule) (*redirects.DeployContent, error) {
		called = true
		return build(rules)
	})
	wantCode(t, "Deploy(unknown project)", err, redirects.ENOTFOUND, "prj_nope")
	if called {
		t.Errorf("Deploy(unknown project) called the builder")
	}
}

// Events.

func testEventRecorded(t *testing.T, e *env) {
	if id, err := e.s.LastEventID(e.ctx); err != nil || id != 0 {
		t.Fatalf("LastEventID on an empty store = %d, %v; want 0", id, err)
	}
	type want struct {
		kind, org, project string
		version            int
		at                 time.Time
	}
	var wants []want
	step := func() time.Time { return e.clock.Add(time.Second) }

	at := step()
	o := e.org("Acme")
	wants = append(wants, want{redirects.EventOrg, o.ID, "", 0, at})
	at = step()
	name := "Acme Inc"
	if _, err := e.s.UpdateOrg(e.ctx, o.ID, redirects.OrgUpdate{Name: &name}); err != nil {
		t.Fatalf("UpdateOrg: %v", err)
	}
	wants = append(wants, want{redirects.EventOrg, o.ID, "", 0, at})
	at = step()
	p := e.project(o.ID, "site")
	wants = append(wants, want{redirects.EventProject, o.ID, p.ID, 0, at})
	at = step()
	k, _ := e.key(p.ID, false)
	wants = append(wants, want{redirects.EventKey, o.ID, p.ID, 0, at})

	// Draft edits are invisible to edge nodes: no event.
	step()
	r := e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	if _, err := e.s.ImportRules(e.ctx, p.ID, batch("/b"), false); err != nil {
		t.Fatalf("ImportRules: %v", err)
	}
	if err := e.s.DeleteRule(e.ctx, p.ID, r.ID); err != nil {
		t.Fatalf("DeleteRule: %v", err)
	}

	at = step()
	e.deploy(p.ID, redirects.DeployOptions{})
	wants = append(wants, want{redirects.EventDeploy, o.ID, p.ID, 1, at})
	at = step()
	if _, err := e.s.RevokeKey(e.ctx, p.ID, k.ID); err != nil {
		t.Fatalf("RevokeKey: %v", err)
	}
	wants = append(wants, want{redirects.EventKey, o.ID, p.ID, 0, at})
	at = step()
	e.deploy(p.ID, redirects.DeployOptions{FromVersion: 1})
	wants = append(wants, want{redirects.EventDeploy, o.ID, p.ID, 2, at})

	evs := e.events()
	if len(evs) != len(wants) {
		t.Fatalf("FindEvents = %d events %+v, want %d", len(evs), evs, len(wants))
	}
	for i, w := range wants {
		ev := evs[i]
		if ev.Kind != w.kind || ev.OrgID != w.org || ev.ProjectID != w.project || ev.Version != w.version {
			t.Errorf("event %d = %s org %q project %q version %d, want %s org %q project %q version %d",
				i, ev.Kind, ev.OrgID, ev.ProjectID, ev.Version, w.kind, w.org, w.project, w.version)
		}
		wantTime(t, fmt.Sprintf("event %d CreatedAt", i), ev.CreatedAt, w.at)
		if i > 0 && ev.ID <= evs[i-1].ID {
			t.Errorf("event %d has ID %d, not above the previous %d", i, ev.ID, evs[i-1].ID)
		}
	}
	if id, err := e.s.LastEventID(e.ctx); err != nil || id != evs[len(evs)-1].ID {
		t.Errorf("LastEventID = %d, %v; want %d", id, err, evs[len(evs)-1].ID)
	}
}

func testEventPaging(t *testing.T, e *env) {
	o := e.org("A")
	for i := 0; i < 4; i++ {
		e.project(o.ID, fmt.Sprint(i))
	}
	all := e.events()
	if len(all) != 5 {
		t.Fatalf("FindEvents = %d events, want 5", len(all))
	}
	ids := func(evs []redirects.Event) []int64 {
		var out []int64
		for _, ev := range evs {
			out = append(out, ev.ID)
		}
		return out
	}
	for _, tc := range []struct {
		after int64
		limit int
		want  []redirects.Event
	}{
		{0, 2, all[:2]},
		{all[1].ID, 2, all[2:4]},
		{all[3].ID, 2, all[4:]},
		{all[4].ID, 2, nil},
		{all[0].ID, 100, all[1:]},
	} {
		got, err := e.s.FindEvents(e.ctx, tc.after, tc.limit)
		if err != nil {
			t.Fatalf("FindEvents(%d, %d): %v", tc.after, tc.limit, err)
		}
		if !slices.Equal(ids(got), ids(tc.want)) {
			t.Errorf("FindEvents(%d, %d) = %v, want %v", tc.after, tc.limit, ids(got), ids(tc.want))
		}
	}
}

// Usage.

func testUsageAdd(t *testing.T, e *env) {
	a, b := e.org("A"), e.org("B")
	if err := e.s.AddUsage(e.ctx, "2026-03", map[string]int64{a.ID: 5, b.ID: 1}); err != nil {
		t.Fatalf("AddUsage: %v", err)
	}
	if err := e.s.AddUsage(e.ctx, "2026-03", map[string]int64{a.ID: 7, "org_nope": 3}); err != nil {
		t.Fatalf("AddUsage(with an unknown organization): %v", err)
	}
	if err := e.s.AddUsage(e.ctx, "2026-04", map[string]int64{b.ID: 2}); err != nil {
		t.Fatalf("AddUsage: %v", err)
	}
	for period, want := range map[string]map[string]int64{
		"2026-03": {a.ID: 12, b.ID: 1},
		"2026-04": {b.ID: 2},
		"2026-05": {},
	} {
		got, err := e.s.FindUsage(e.ctx, period)
		if err != nil {
			t.Fatalf("FindUsage(%s): %v", period, err)
		}
		if len(got) != len(want) {
			t.Errorf("FindUsage(%s) = %v, want %v", period, got, want)
		}
		for org, n := range want {
			if got[org] != n {
				t.Errorf("FindUsage(%s)[%s] = %d, want %d", period, org, got[org], n)
			}
		}
	}
}
