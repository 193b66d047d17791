package storetest

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"redirects"
)

// fataler is what pageAll needs of a *testing.T or a *rapid.T.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// pageAll reads every page of a listing and fails unless each page is full
// but the last, every page reports want as its Total, and the last has no
// cursor. It returns the rules in the order the pages gave them.
func pageAll(t fataler, s redirects.Store, e *env, projectID string, q redirects.RulePageQuery, total int) []redirects.Rule {
	t.Helper()
	limit := q.Limit
	if limit == 0 {
		limit = redirects.DefaultRuleLimit
	}
	var out []redirects.Rule
	for pages := 0; ; pages++ {
		if pages > total+1 {
			t.Fatalf("FindRulePage(%+v): more than %d pages for %d rules", q, total+1, total)
		}
		page, err := s.FindRulePage(e.ctx, projectID, q)
		if err != nil {
			t.Fatalf("FindRulePage(%+v): %v", q, err)
		}
		if page.Total != total {
			t.Fatalf("FindRulePage(%+v).Total = %d, want %d", q, page.Total, total)
		}
		if len(page.Rules) > limit {
			t.Fatalf("FindRulePage(%+v) gave %d rules, more than the limit", q, len(page.Rules))
		}
		out = append(out, page.Rules...)
		if page.Next == "" {
			return out
		}
		if len(page.Rules) != limit {
			t.Fatalf("FindRulePage(%+v) gave %d rules and a next cursor; a page before the last must be full (%d)", q, len(page.Rules), limit)
		}
		q.After = page.Next
	}
}

// model returns the rules a page listing should give, in order: the
// brute-force definition that the stores' queries implement.
func model(rules []redirects.Rule, f redirects.RuleFilter, sort redirects.RuleSort) []redirects.Rule {
	var out []redirects.Rule
	for i := range rules {
		if f.Match(&rules[i]) {
			out = append(out, rules[i])
		}
	}
	o, _ := redirects.ParseRuleSort(string(sort))
	slices.SortFunc(out, func(a, b redirects.Rule) int {
		if o.Less(&a, &b) {
			return -1
		} else if o.Less(&b, &a) {
			return 1
		}
		return 0
	})
	return out
}

// samePage reports how a listing differs from the model's, or "".
func samePage(got, want []redirects.Rule) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rules %v, want %d %v", len(got), ruleIDs(got), len(want), ruleIDs(want))
	}
	for i := range got {
		if d := sameRule(&got[i], &want[i]); d != "" {
			return fmt.Sprintf("rule %d: %s (got %v, want %v)", i, d, ruleIDs(got), ruleIDs(want))
		}
		if got[i].Revision != want[i].Revision {
			return fmt.Sprintf("rule %d (%d): revision %d, want %d", i, got[i].ID, got[i].Revision, want[i].Revision)
		}
	}
	return ""
}

// wantTotal fails unless an unfiltered page of the project counts n rules.
func wantTotal(t *testing.T, e *env, projectID string, n int) {
	t.Helper()
	page, err := e.s.FindRulePage(e.ctx, projectID, redirects.RulePageQuery{})
	if err != nil {
		t.Fatalf("FindRulePage: %v", err)
	}
	if page.Total != n || len(page.Rules) != n {
		t.Fatalf("FindRulePage(%s) = %d rules, total %d; want %d", projectID, len(page.Rules), page.Total, n)
	}
}

func ruleIDs(rules []redirects.Rule) []int64 {
	out := make([]int64, len(rules))
	for i, r := range rules {
		out[i] = r.ID
	}
	return out
}

// pathChars are the characters of generated sources, destinations and
// queries: LIKE's wildcards, the '*' of a prefix query, upper and lower
// case, and a non-ASCII letter whose bytes sort after every ASCII byte.
var pathChars = []rune("ab/%_*Aé")

// testRulePageModel holds FindRulePage against a brute-force model: under
// every order, filter and page size, the pages give every selected rule
// exactly once, in order, with the right total.
func testRulePageModel(t *testing.T, e *env) {
	o := e.org("Acme")
	n := 0
	rapid.Check(t, func(rt *rapid.T) {
		n++
		p := e.project(o.ID, fmt.Sprint("site ", n))
		str := rapid.StringOfN(rapid.SampledFrom(pathChars), 0, 4, -1)
		count := rapid.IntRange(0, 25).Draw(rt, "count")
		var batch []redirects.Rule
		seen := map[string]bool{}
		for i := 0; i < count; i++ {
			r := redirects.Rule{
				Source:      "/" + str.Draw(rt, "source"),
				Destination: rapid.SampledFrom([]string{"/to", "https://x.example/"}).Draw(rt, "host") + str.Draw(rt, "dest"),
				StatusCode:  rapid.SampledFrom([]int{301, 302}).Draw(rt, "status"),
				MatchType:   rapid.SampledFrom([]redirects.MatchType{redirects.Exact, redirects.StartsWith}).Draw(rt, "match"),
				Priority:    rapid.IntRange(0, 3).Draw(rt, "priority"),
			}
			// Sources are stored decoded, with no '%' and no empty
			// segment (docs/contract.md#matching): draws that are not a
			// stored form are left out, and '%' stays in destinations.
			if redirects.ValidateSource(r.Source) != nil {
				continue
			}
			if k := r.MatchType.String() + r.Source; !seen[k] {
				seen[k] = true
				batch = append(batch, r)
			}
		}
		if len(batch) > 0 {
			if _, err := e.s.ImportRules(e.ctx, p.ID, batch, false); err != nil {
				rt.Fatalf("ImportRules: %v", err)
			}
		}
		rules, err := e.s.FindRules(e.ctx, p.ID)
		if err != nil {
			rt.Fatalf("FindRules: %v", err)
		}
		for i := range rules {
			rules[i].Revision = 1
		}
		// Some updates, so revisions and priorities differ.
		for _, i := range rapid.SliceOfN(rapid.IntRange(0, max(0, len(rules)-1)), 0, 3).Draw(rt, "updates") {
			if len(rules) == 0 {
				break
			}
			prio := rapid.IntRange(0, 3).Draw(rt, "new priority")
			got, err := e.s.UpdateRule(e.ctx, p.ID, rules[i].ID, redirects.RuleUpdate{Priority: &prio, Revision: rules[i].Revision})
			if err != nil {
				rt.Fatalf("UpdateRule(%d): %v", rules[i].ID, err)
			}
			rules[i].Priority = prio
			rules[i].Revision++
			if d := samePage([]redirects.Rule{*got}, rules[i:i+1]); d != "" {
				rt.Fatalf("UpdateRule returned %s", d)
			}
		}
		for k := rapid.IntRange(1, 4).Draw(rt, "queries"); k > 0; k-- {
			var f redirects.RuleFilter
			if rapid.Bool().Draw(rt, "search") {
				f.Query = rapid.StringOfN(rapid.SampledFrom(pathChars), 1, 3, -1).Draw(rt, "query")
			}
			if m := rapid.IntRange(0, 2).Draw(rt, "match filter"); m > 0 {
				mt := redirects.MatchType(m - 1)
				f.MatchType = &mt
			}
			f.StatusCode = rapid.SampledFrom([]int{0, 0, 301, 302}).Draw(rt, "status filter")
			sort := redirects.RuleSort(rapid.SampledFrom([]string{"", "source", "-source", "id", "-id", "created", "-created", "priority", "-priority"}).Draw(rt, "sort"))
			q := redirects.RulePageQuery{Filter: f, Sort: sort, Limit: rapid.IntRange(1, 7).Draw(rt, "limit")}
			want := model(rules, f, sort)
			got := pageAll(rt, e.s, e, p.ID, q, len(want))
			if d := samePage(got, want); d != "" {
				rt.Fatalf("pages of %+v: %s", q, d)
			}
		}
	})
}

// testRulePageDefaults checks the default order and page size, and that a
// page after a cursor neither repeats nor skips rules that were there all
// along when rules are added and deleted between two requests.
func testRulePageDefaults(t *testing.T, e *env) {
	p := e.newProject()
	var specs []string
	for i := 0; i < 60; i++ {
		specs = append(specs, fmt.Sprintf("/p%02d", i))
	}
	if _, err := e.s.ImportRules(e.ctx, p.ID, batch(specs...), false); err != nil {
		t.Fatalf("ImportRules: %v", err)
	}
	page, err := e.s.FindRulePage(e.ctx, p.ID, redirects.RulePageQuery{})
	if err != nil {
		t.Fatalf("FindRulePage: %v", err)
	}
	if len(page.Rules) != redirects.DefaultRuleLimit || page.Total != 60 || page.Next == "" {
		t.Fatalf("first page: %d rules, total %d, next %q; want %d, 60 and a cursor", len(page.Rules), page.Total, page.Next, redirects.DefaultRuleLimit)
	}
	for i, r := range page.Rules {
		if r.Source != specs[i] || r.Revision != 1 || r.ProjectID != p.ID {
			t.Fatalf("first page rule %d = %q revision %d project %q, want %q revision 1 in source order", i, r.Source, r.Revision, r.ProjectID, specs[i])
		}
	}

	// Between the pages, a rule is deleted and one added on each side of
	// the cursor.
	ruleID := func(source string) int64 {
		t.Helper()
		pg, err := e.s.FindRulePage(e.ctx, p.ID, redirects.RulePageQuery{Filter: redirects.RuleFilter{Query: source + "*"}, Limit: 1})
		if err != nil || len(pg.Rules) != 1 || pg.Rules[0].Source != source {
			t.Fatalf("FindRulePage(%s*) = %+v, %v; want the rule %s", source, pg, err, source)
		}
		return pg.Rules[0].ID
	}
	for _, source := range []string{"/p03", "/p57"} {
		if err := e.s.DeleteRule(e.ctx, p.ID, ruleID(source)); err != nil {
			t.Fatalf("DeleteRule(%s): %v", source, err)
		}
	}
	e.rule(p.ID, "/p00a", "/x", redirects.Exact, 1)
	e.rule(p.ID, "/p55a", "/x", redirects.Exact, 1)
	page2, err := e.s.FindRulePage(e.ctx, p.ID, redirects.RulePageQuery{After: page.Next})
	if err != nil {
		t.Fatalf("FindRulePage(after): %v", err)
	}
	want := []string{"/p50", "/p51", "/p52", "/p53", "/p54", "/p55", "/p55a", "/p56", "/p58", "/p59"}
	var got []string
	for _, r := range page2.Rules {
		got = append(got, r.Source)
	}
	if !slices.Equal(got, want) || page2.Next != "" || page2.Total != 60 {
		t.Fatalf("second page = %v next %q total %d, want %v, no cursor, total 60", got, page2.Next, page2.Total, want)
	}
}

// testRulePageInvalid checks that every bad query is EINVALID and names
// what is wrong, and that an unknown project is ENOTFOUND.
func testRulePageInvalid(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/a", "/x", redirects.Exact, 1)
	e.rule(p.ID, "/b", "/x", redirects.Exact, 1)
	first, err := e.s.FindRulePage(e.ctx, p.ID, redirects.RulePageQuery{Limit: 1})
	if err != nil || first.Next == "" {
		t.Fatalf("FindRulePage(limit 1) = %+v, %v; want a page with a next cursor", first, err)
	}
	bad := redirects.MatchType(7)
	for _, tc := range []struct {
		what string
		q    redirects.RulePageQuery
		name string
	}{
		{"unknown sort", redirects.RulePageQuery{Sort: "destination"}, "destination"},
		{"negative limit", redirects.RulePageQuery{Limit: -1}, "-1"},
		{"limit above the maximum", redirects.RulePageQuery{Limit: redirects.MaxRuleLimit + 1}, "1001"},
		{"cursor not base64", redirects.RulePageQuery{After: "%%%"}, "cursor"},
		{"cursor not JSON", redirects.RulePageQuery{After: base64.RawURLEncoding.EncodeToString([]byte("nope"))}, "cursor"},
		{"cursor without ID", redirects.RulePageQuery{After: base64.RawURLEncoding.EncodeToString([]byte(`{"o":"source","s":"/a"}`))}, "cursor"},
		{"cursor of another order", redirects.RulePageQuery{Sort: redirects.SortPriority, After: first.Next}, "source"},
		{"query with a NUL byte", redirects.RulePageQuery{Filter: redirects.RuleFilter{Query: "a\x00"}}, "query"},
		{"query not UTF-8", redirects.RulePageQuery{Filter: redirects.RuleFilter{Query: "\xff"}}, "query"},
		{"query too long", redirects.RulePageQuery{Filter: redirects.RuleFilter{Query: strings.Repeat("a", redirects.MaxQueryLen+1)}}, "query"},
		{"unknown status", redirects.RulePageQuery{Filter: redirects.RuleFilter{StatusCode: 304}}, "304"},
		{"unknown match type", redirects.RulePageQuery{Filter: redirects.RuleFilter{MatchType: &bad}}, "matchType"},
	} {
		_, err := e.s.FindRulePage(e.ctx, p.ID, tc.q)
		wantCode(t, tc.what, err, redirects.EINVALID, tc.name)
	}
	_, err = e.s.FindRulePage(e.ctx, "prj_nope", redirects.RulePageQuery{})
	wantCode(t, "FindRulePage(unknown project)", err, redirects.ENOTFOUND, "prj_nope")
	_, err = e.s.FindRule(e.ctx, "prj_nope", 1)
	wantCode(t, "FindRule(unknown project)", err, redirects.ENOTFOUND, "prj_nope")
	_, err = e.s.FindRule(e.ctx, p.ID, first.Rules[0].ID+1000)
	wantCode(t, "FindRule(unknown rule)", err, redirects.ENOTFOUND, fmt.Sprint(first.Rules[0].ID+1000))
	// A rule of another project is not found through this one.
	q := e.project(p.OrgID, "other")
	_, err = e.s.FindRule(e.ctx, q.ID, first.Rules[0].ID)
	wantCode(t, "FindRule(rule of another project)", err, redirects.ENOTFOUND)
	_, err = e.s.DeleteRules(e.ctx, p.ID, redirects.RuleFilter{StatusCode: 200})
	wantCode(t, "DeleteRules(bad filter)", err, redirects.EINVALID, "200")
	if n := len(e.rules(p.ID)); n != 2 {
		t.Fatalf("after a refused DeleteRules: %d rules, want 2", n)
	}
}

// testRuleUpdate checks updates in place: the revision grows by one, a
// stale revision, bad input or a clash changes nothing.
func testRuleUpdate(t *testing.T, e *env) {
	p := e.newProject()
	r := e.rule(p.ID, "/a", "/x", redirects.Exact, 10)
	other := e.rule(p.ID, "/b", "/y", redirects.StartsWith, 20)
	if r.Revision != 1 {
		t.Fatalf("AddRule set Revision %d, want 1", r.Revision)
	}
	find := func() *redirects.Rule {
		t.Helper()
		got, err := e.s.FindRule(e.ctx, p.ID, r.ID)
		if err != nil {
			t.Fatalf("FindRule: %v", err)
		}
		return got
	}
	if d := samePage([]redirects.Rule{*find()}, []redirects.Rule{*r}); d != "" {
		t.Fatalf("FindRule after AddRule: %s", d)
	}

	dest, status, match := "https://example.com/new", 302, redirects.StartsWith
	got, err := e.s.UpdateRule(e.ctx, p.ID, r.ID, redirects.RuleUpdate{Destination: &dest, StatusCode: &status, MatchType: &match, Revision: 1})
	if err != nil {
		t.Fatalf("UpdateRule: %v", err)
	}
	want := *r
	want.Destination, want.StatusCode, want.MatchType, want.Revision = dest, status, match, 2
	if d := samePage([]redirects.Rule{*got}, []redirects.Rule{want}); d != "" {
		t.Fatalf("UpdateRule returned %s", d)
	}
	if d := samePage([]redirects.Rule{*find()}, []redirects.Rule{want}); d != "" {
		t.Fatalf("FindRule after UpdateRule: %s", d)
	}

	// Without a revision the update is unconditional.
	src := "/a2"
	if got, err = e.s.UpdateRule(e.ctx, p.ID, r.ID, redirects.RuleUpdate{Source: &src}); err != nil || got.Revision != 3 || got.Source != src {
		t.Fatalf("UpdateRule(no revision) = %+v, %v; want source %s at revision 3", got, err, src)
	}
	want.Source, want.Revision = src, 3

	prio := 99
	bad := "no-slash"
	taken := "/b"
	for _, tc := range []struct {
		what string
		u    redirects.RuleUpdate
		code string
		name string
	}{
		{"stale revision", redirects.RuleUpdate{Priority: &prio, Revision: 2}, redirects.EREVISION, "revision 3"},
		{"negative revision", redirects.RuleUpdate{Priority: &prio, Revision: -1}, redirects.EINVALID, "-1"},
		{"invalid source", redirects.RuleUpdate{Source: &bad, Revision: 3}, redirects.EINVALID, "no-slash"},
		{"clash with another rule", redirects.RuleUpdate{Source: &taken, Revision: 3}, redirects.ECONFLICT, fmt.Sprint(other.ID)},
		{"no field", redirects.RuleUpdate{Revision: 3}, redirects.EINVALID, fmt.Sprint(r.ID)},
	} {
		_, err := e.s.UpdateRule(e.ctx, p.ID, r.ID, tc.u)
		wantCode(t, tc.what, err, tc.code, tc.name)
		if d := samePage([]redirects.Rule{*find()}, []redirects.Rule{want}); d != "" {
			t.Fatalf("after a refused update (%s): %s", tc.what, d)
		}
	}
	// The same source with the other match type is no clash.
	exact := redirects.Exact
	if got, err = e.s.UpdateRule(e.ctx, p.ID, other.ID, redirects.RuleUpdate{MatchType: &exact, Revision: 1}); err != nil || got.Revision != 2 {
		t.Fatalf("UpdateRule(match type) = %+v, %v; want revision 2", got, err)
	}
	_, err = e.s.UpdateRule(e.ctx, p.ID, r.ID+1000, redirects.RuleUpdate{Priority: &prio})
	wantCode(t, "UpdateRule(unknown rule)", err, redirects.ENOTFOUND, fmt.Sprint(r.ID+1000))
	_, err = e.s.UpdateRule(e.ctx, "prj_nope", r.ID, redirects.RuleUpdate{Priority: &prio})
	wantCode(t, "UpdateRule(unknown project)", err, redirects.ENOTFOUND, "prj_nope")
}

// testRuleDeleteRevision checks that a delete with a stale revision
// changes nothing.
func testRuleDeleteRevision(t *testing.T, e *env) {
	p := e.newProject()
	r := e.rule(p.ID, "/a", "/x", redirects.Exact, 10)
	prio := 5
	if _, err := e.s.UpdateRule(e.ctx, p.ID, r.ID, redirects.RuleUpdate{Priority: &prio}); err != nil {
		t.Fatalf("UpdateRule: %v", err)
	}
	err := e.s.DeleteRuleRevision(e.ctx, p.ID, r.ID, 1)
	wantCode(t, "DeleteRuleRevision(stale)", err, redirects.EREVISION, fmt.Sprint(r.ID), "revision 2")
	if n := len(e.rules(p.ID)); n != 1 {
		t.Fatalf("after a stale delete: %d rules, want 1", n)
	}
	if err := e.s.DeleteRuleRevision(e.ctx, p.ID, r.ID, 2); err != nil {
		t.Fatalf("DeleteRuleRevision(current): %v", err)
	}
	if n := len(e.rules(p.ID)); n != 0 {
		t.Fatalf("after the delete: %d rules, want 0", n)
	}
	err = e.s.DeleteRuleRevision(e.ctx, p.ID, r.ID, 2)
	wantCode(t, "DeleteRuleRevision(deleted rule)", err, redirects.ENOTFOUND, fmt.Sprint(r.ID))
}

// testDeleteRules checks a bulk delete by filter: it deletes what the
// filter selects in that project and nothing else.
func testDeleteRules(t *testing.T, e *env) {
	p := e.newProject()
	q := e.project(p.OrgID, "other")
	specs := []string{"/blog/a", "/blog/b", "/blog*", "/shop/a", "/shop*", "/about"}
	for _, id := range []string{p.ID, q.ID} {
		if _, err := e.s.ImportRules(e.ctx, id, batch(specs...), false); err != nil {
			t.Fatalf("ImportRules: %v", err)
		}
	}
	starts := redirects.StartsWith
	for _, tc := range []struct {
		f    redirects.RuleFilter
		n    int
		left []string
	}{
		{redirects.RuleFilter{Query: "/blog*", MatchType: &starts}, 1, []string{"exact /about", "exact /blog/a", "exact /blog/b", "exact /shop/a", "starts_with /shop"}},
		{redirects.RuleFilter{Query: "to/shop"}, 2, []string{"exact /about", "exact /blog/a", "exact /blog/b"}},
		{redirects.RuleFilter{StatusCode: 302}, 0, []string{"exact /about", "exact /blog/a", "exact /blog/b"}},
		{redirects.RuleFilter{}, 3, nil},
	} {
		n, err := e.s.DeleteRules(e.ctx, p.ID, tc.f)
		if err != nil || n != tc.n {
			t.Fatalf("DeleteRules(%+v) = %d, %v; want %d", tc.f, n, err, tc.n)
		}
		left := sources(e.rules(p.ID))
		slices.Sort(left)
		if !slices.Equal(left, tc.left) {
			t.Fatalf("after DeleteRules(%+v): %v, want %v", tc.f, left, tc.left)
		}
		wantTotal(t, e, p.ID, len(tc.left))
	}
	if n := len(e.rules(q.ID)); n != len(specs) {
		t.Fatalf("the other project has %d rules after the deletes, want %d", n, len(specs))
	}
	wantTotal(t, e, q.ID, len(specs))
	// A replacing import and an add are counted too.
	if _, err := e.s.ImportRules(e.ctx, q.ID, batch("/x", "/y"), true); err != nil {
		t.Fatalf("ImportRules(replace): %v", err)
	}
	e.rule(q.ID, "/z", "/to", redirects.Exact, 1)
	wantTotal(t, e, q.ID, 3)
	_, err := e.s.DeleteRules(e.ctx, "prj_nope", redirects.RuleFilter{})
	wantCode(t, "DeleteRules(unknown project)", err, redirects.ENOTFOUND, "prj_nope")
}
