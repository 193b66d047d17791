package storetest

import (
	"fmt"
	"testing"
	"time"

	"redirects"
)

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
		{Source: "/a", Destination: "/b", StatusCode: 304},
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
