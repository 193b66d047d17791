package storetest

import (
	"slices"
	"testing"

	"redirects"
)

// testExceptHostsRoundTrip: a rule's exceptHosts are stored as host keys in
// the order written and read back by every read (FindRule, FindRules,
// FindRulePage, a deployment); an update keeps them when it does not name
// them, replaces or clears them when it does, and is refused when it gives
// the rule a host; an import updates them and its undo puts them back; a
// refused rule stores nothing.
func testExceptHostsRoundTrip(t *testing.T, e *env) {
	p := e.newProject()
	r := &redirects.Rule{ProjectID: p.ID, Source: "/", Destination: "https://example.com/", StatusCode: 301, MatchType: redirects.StartsWith,
		ExceptHosts: []string{"Example.COM", "*.Bücher.example"}}
	if err := e.s.AddRule(e.ctx, r); err != nil {
		t.Fatal(err)
	}
	want := []string{"example.com", "*.xn--bcher-kva.example"}
	plain := &redirects.Rule{ProjectID: p.ID, Source: "/plain", Destination: "/p", StatusCode: 301}
	if err := e.s.AddRule(e.ctx, plain); err != nil {
		t.Fatal(err)
	}
	check := func(what string, rules []redirects.Rule, want []string) {
		t.Helper()
		for _, g := range rules {
			switch g.Source {
			case "/":
				if !slices.Equal(g.ExceptHosts, want) {
					t.Errorf("%s: exceptHosts %q, want %q", what, g.ExceptHosts, want)
				}
			case "/plain":
				if g.ExceptHosts != nil {
					t.Errorf("%s: a rule without exceptHosts reads %#v, want nil", what, g.ExceptHosts)
				}
			}
		}
	}
	got, err := e.s.FindRule(e.ctx, p.ID, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	check("FindRule", []redirects.Rule{*got}, want)
	check("FindRules", e.rules(p.ID), want)
	page, err := e.s.FindRulePage(e.ctx, p.ID, redirects.RulePageQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	check("FindRulePage", page.Rules, want)
	d := e.deploy(p.ID, redirects.DeployOptions{})
	_, deployed, err := e.s.FindDeployment(e.ctx, p.ID, d.Version)
	if err != nil {
		t.Fatal(err)
	}
	check("the deployment", deployed, want)

	dest := "https://example.com/x"
	got, err = e.s.UpdateRule(e.ctx, p.ID, r.ID, redirects.RuleUpdate{Destination: &dest})
	if err != nil || !slices.Equal(got.ExceptHosts, want) {
		t.Fatalf("UpdateRule(destination only) = %+v, %v; want exceptHosts kept", got, err)
	}
	host := "www.example.com"
	_, err = e.s.UpdateRule(e.ctx, p.ID, r.ID, redirects.RuleUpdate{Host: &host})
	wantCode(t, "UpdateRule(a host on a rule with exceptHosts)", err, redirects.EINVALID, "exceptHosts")
	bad := []string{"example.com", "EXAMPLE.com."}
	_, err = e.s.UpdateRule(e.ctx, p.ID, r.ID, redirects.RuleUpdate{ExceptHosts: &bad})
	wantCode(t, "UpdateRule(a repeated exceptHosts entry)", err, redirects.EINVALID, "exceptHosts")
	check("after refused updates", e.rules(p.ID), want)
	other := []string{"a.example.org"}
	got, err = e.s.UpdateRule(e.ctx, p.ID, r.ID, redirects.RuleUpdate{ExceptHosts: &other})
	if err != nil || !slices.Equal(got.ExceptHosts, other) {
		t.Fatalf("UpdateRule(exceptHosts) = %+v, %v", got, err)
	}
	none := []string{}
	got, err = e.s.UpdateRule(e.ctx, p.ID, r.ID, redirects.RuleUpdate{ExceptHosts: &none})
	if err != nil || got.ExceptHosts != nil {
		t.Fatalf("UpdateRule(exceptHosts []) = %+v, %v; want none", got, err)
	}
	check("after clearing", e.rules(p.ID), nil)

	// An import sets them; its undo takes them back off.
	before := e.draftOf(p.ID)
	in := redirects.Rule{Source: "/", Destination: "https://example.com/x", StatusCode: 301, MatchType: redirects.StartsWith,
		Priority: redirects.DefaultPriority, ExceptHosts: []string{"*.example.net", "example.net"}}
	rep := e.importRules(p.ID, []redirects.Rule{in}, redirects.ImportUpsert)
	if rep.Updated != 1 {
		t.Fatalf("an import that only sets exceptHosts: %+v, want one rule updated", rep)
	}
	check("after the import", e.rules(p.ID), in.ExceptHosts)
	if _, err := e.s.UndoImport(e.ctx, p.ID, rep.UndoID); err != nil {
		t.Fatal(err)
	}
	wantDraft(t, "after the undo", e.draftOf(p.ID), before)
	check("after the undo", e.rules(p.ID), nil)
	rep = e.importRules(p.ID, []redirects.Rule{in}, redirects.ImportReplace)
	check("after a replace", e.rules(p.ID), in.ExceptHosts)
	after := e.draftOf(p.ID)
	rep2 := e.importRules(p.ID, []redirects.Rule{{Source: "/n", Destination: "/m", StatusCode: 301, Priority: redirects.DefaultPriority}}, redirects.ImportReplace)
	if _, err := e.s.UndoImport(e.ctx, p.ID, rep2.UndoID); err != nil {
		t.Fatal(err)
	}
	wantDraft(t, "after undoing a replace of a rule with exceptHosts", e.draftOf(p.ID), after)
	check("after undoing a replace", e.rules(p.ID), in.ExceptHosts)
	_ = rep

	n := len(e.rules(p.ID))
	for _, bad := range []redirects.Rule{
		{Source: "/h", Destination: "/y", StatusCode: 301, Host: "example.org", ExceptHosts: []string{"example.com"}},
		{Source: "/h", Destination: "/y", StatusCode: 301, ExceptHosts: []string{"not a host"}},
	} {
		bad.ProjectID = p.ID
		wantCode(t, "AddRule(bad exceptHosts)", e.s.AddRule(e.ctx, &bad), redirects.EINVALID, "exceptHosts")
	}
	if m := len(e.rules(p.ID)); m != n {
		t.Errorf("%d rules after refused adds, want %d", m, n)
	}
}
