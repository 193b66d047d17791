package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"redirects"
)

// Pattern rules, query conditions and hosts in the store
// (docs/contract.md#pattern-rules): every field round-trips through every
// write and read, a project holds one rule per match type, host and source
// key (docs/contract.md#keys), bad input changes nothing.
var patternTests = []struct {
	name string
	fn   func(t *testing.T, e *env)
}{
	{"Patterns/RoundTrip", testPatternsRoundTrip},
	{"Patterns/HostKeys", testPatternsHostKeys},
	{"Patterns/KeysUnderSettings", testPatternsKeysUnderSettings},
	{"Patterns/Update", testPatternsUpdate},
	{"Patterns/PageFilter", testPatternsPageFilter},
	{"Patterns/Import", testPatternsImport},
	{"Patterns/ImportUndo", testPatternsImportUndo},
	{"Patterns/Deploy", testPatternsDeploy},
	{"Patterns/BadInputChangesNothing", testPatternsBadInput},
	{"Patterns/RegexLimit", testPatternsRegexLimit},
}

// patternRules are rules of every match type, with hosts (as written, not
// as stored) and conditions.
func patternRules() []redirects.Rule {
	return []redirects.Rule{
		{Source: "/index.php?p=123", Destination: "/post-123", StatusCode: 301},
		{Source: "/index.php", Destination: "/home", StatusCode: 301},
		{Source: "/store?id=:id", Destination: "/items/:id", StatusCode: 302, PreserveQuery: true},
		{Source: "/blog/", Destination: "https://blog.example.com/", StatusCode: 301, MatchType: redirects.StartsWith, PreservePath: true, Host: "Old.Example.COM."},
		{Source: "/:lang/guide/*", Destination: "/:lang/docs/:splat", StatusCode: 308, MatchType: redirects.Pattern, Priority: 5},
		{Source: "/lit%3Acolon/:x(\\d+)", Destination: "/c/:x", StatusCode: 301, MatchType: redirects.Pattern, Host: "*.example.net"},
		{Source: `/(dom|d)/(?P<id>\d+)$?p=:p`, Destination: "/dd/$1/${id}/${p}?$$", StatusCode: 301, MatchType: redirects.Regex, Host: "bücher.example"},
		{Source: "/gone/*", StatusCode: 410, MatchType: redirects.Pattern},
		{Source: "/index.php", Destination: "/home", StatusCode: 301, Host: "*.example.org"},
	}
}

// sameExtended compares what a store keeps of a rule, its host included.
func sameExtended(a, b redirects.Rule) bool { return sameStored(a, b) && a.Host == b.Host }

// storedForm returns the rules as Validate stores them.
func storedForm(t *testing.T, in []redirects.Rule) []redirects.Rule {
	t.Helper()
	out := slices.Clone(in)
	for i := range out {
		if out[i].Priority == 0 {
			out[i].Priority = redirects.DefaultPriority
		}
		if err := out[i].Validate(); err != nil {
			t.Fatalf("rule %d: %v", i, err)
		}
	}
	return out
}

// wantHas fails unless every rule of want is among got.
func wantHas(t *testing.T, what string, got, want []redirects.Rule) {
	t.Helper()
	for _, w := range want {
		if !slices.ContainsFunc(got, func(r redirects.Rule) bool { return sameExtended(r, w) }) {
			t.Errorf("%s lacks %s %q (host %q): %+v", what, w.MatchType, w.Source, w.Host, got)
		}
	}
}

func testPatternsRoundTrip(t *testing.T, e *env) {
	p := e.newProject()
	in := patternRules()
	want := storedForm(t, in)
	if want[3].Host != "old.example.com" || want[6].Host != "xn--bcher-kva.example" || want[5].Source != "/lit%3Acolon/:x(\\d+)" {
		t.Fatalf("stored forms: %+v", want)
	}
	for i := range in {
		r := in[i]
		r.ProjectID = p.ID
		if r.Priority == 0 {
			r.Priority = redirects.DefaultPriority
		}
		if err := e.s.AddRule(e.ctx, &r); err != nil {
			t.Fatalf("AddRule(%+v): %v", in[i], err)
		}
		got, err := e.s.FindRule(e.ctx, p.ID, r.ID)
		if err != nil || !sameExtended(*got, want[i]) {
			t.Fatalf("FindRule = %+v, %v; want %+v", got, err, want[i])
		}
	}
	wantHas(t, "FindRules", e.rules(p.ID), want)
	page, err := e.s.FindRulePage(e.ctx, p.ID, redirects.RulePageQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	wantHas(t, "FindRulePage", page.Rules, want)
	if page.Total != len(want) {
		t.Errorf("page total %d, want %d", page.Total, len(want))
	}
	// The source order merges every match type's sources; rules of one
	// source (on several hosts) follow their IDs.
	o := redirects.SortSource
	if !slices.IsSortedFunc(page.Rules, func(a, b redirects.Rule) int {
		if o.Less(&a, &b) {
			return -1
		}
		return 1
	}) {
		t.Errorf("the default page is not in source order: %v", sourcesOf(page.Rules))
	}
}

func sourcesOf(rules []redirects.Rule) []string {
	var out []string
	for _, r := range rules {
		out = append(out, r.MatchType.String()+" "+r.Source+" "+r.Host)
	}
	return out
}

// testPatternsHostKeys: two rules that differ only in host coexist (the
// host written in any of its forms names one host key); a second rule of
// one match type, host and source is a conflict naming the host.
func testPatternsHostKeys(t *testing.T, e *env) {
	p := e.newProject()
	add := func(mt redirects.MatchType, host, src string) error {
		r := &redirects.Rule{ProjectID: p.ID, Source: src, Destination: "/x", StatusCode: 301, MatchType: mt, Priority: 100, Host: host}
		return e.s.AddRule(e.ctx, r)
	}
	for _, mt := range redirects.MatchTypes {
		src := "/a"
		if mt == redirects.Regex {
			src = "/a.*"
		}
		for _, h := range []string{"", "example.com", "*.example.com", "bücher.example"} {
			if err := add(mt, h, src); err != nil {
				t.Fatalf("AddRule(%s %q host %q): %v", mt, src, h, err)
			}
		}
		for _, h := range []string{"EXAMPLE.com.", "example.com:8443", "xn--bcher-kva.example", ""} {
			err := add(mt, h, src)
			wantCode(t, fmt.Sprintf("AddRule(%s %q host %q) again", mt, src, h), err, redirects.ECONFLICT, src)
			if h != "" && !strings.Contains(err.Error(), "on host ") {
				t.Errorf("the conflict %q does not name the host", err)
			}
		}
	}
	if n := len(e.rules(p.ID)); n != 16 {
		t.Fatalf("%d rules stored, want 16", n)
	}
}

// testPatternsKeysUnderSettings: under settings that are not the default,
// an exact source's key folds its path, not its conditions; a pattern's
// key is its source as written; hosts keep rules apart.
func testPatternsKeysUnderSettings(t *testing.T, e *env) {
	p := e.newProject()
	if _, err := e.s.SetProjectSettings(e.ctx, p.ID, redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}); err != nil {
		t.Fatal(err)
	}
	add := func(mt redirects.MatchType, host, src string) error {
		return e.s.AddRule(e.ctx, &redirects.Rule{ProjectID: p.ID, Source: src, Destination: "/x", StatusCode: 301, MatchType: mt, Priority: 100, Host: host})
	}
	for _, ok := range []struct {
		mt   redirects.MatchType
		host string
		src  string
	}{
		{redirects.Exact, "", "/A?x=1"},
		{redirects.Exact, "", "/a?X=1"}, // conditions compare case-sensitively
		{redirects.Exact, "", "/a"},
		{redirects.Exact, "example.com", "/A/?x=1"},
		{redirects.Pattern, "", "/:x"},
		{redirects.Pattern, "", "/:X"},
	} {
		if err := add(ok.mt, ok.host, ok.src); err != nil {
			t.Fatalf("AddRule(%s %q host %q): %v", ok.mt, ok.src, ok.host, err)
		}
	}
	for _, clash := range []struct {
		mt   redirects.MatchType
		host string
		src  string
	}{
		{redirects.Exact, "", "/a/?x=1"},
		{redirects.Exact, "Example.com", "/a?x=1"},
		{redirects.Exact, "", "/A/"},
	} {
		wantCode(t, fmt.Sprintf("AddRule(%s %q host %q)", clash.mt, clash.src, clash.host), add(clash.mt, clash.host, clash.src), redirects.ECONFLICT, "clashes")
	}
	// Back to the default settings and on again: the keys are rewritten
	// from the stored rules without a clash.
	for _, s := range []redirects.Settings{{}, {CaseInsensitive: true, IgnoreTrailingSlash: true}} {
		if _, err := e.s.SetProjectSettings(e.ctx, p.ID, s); err != nil {
			t.Fatalf("SetProjectSettings(%v): %v", s, err)
		}
	}
	// Two host-less exact rules that differ in case clash under case
	// folding: the settings are refused.
	if err := add(redirects.Exact, "", "/B"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.SetProjectSettings(e.ctx, p.ID, redirects.Settings{}); err != nil {
		t.Fatal(err)
	}
	if err := add(redirects.Exact, "", "/b"); err != nil {
		t.Fatal(err)
	}
	_, err := e.s.SetProjectSettings(e.ctx, p.ID, redirects.Settings{CaseInsensitive: true})
	wantCode(t, "SetProjectSettings(case-insensitive) with /B and /b", err, redirects.ECONFLICT, `"/B"`, `"/b"`)
}

func testPatternsUpdate(t *testing.T, e *env) {
	p := e.newProject()
	a := e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	b := e.rule(p.ID, "/a", "/y", redirects.Pattern, 100)
	host := "Example.COM"
	got, err := e.s.UpdateRule(e.ctx, p.ID, a.ID, redirects.RuleUpdate{Host: &host})
	if err != nil || got.Host != "example.com" || got.Revision != 2 {
		t.Fatalf("UpdateRule(host) = %+v, %v; want host example.com at revision 2", got, err)
	}
	if r, _ := e.s.FindRule(e.ctx, p.ID, a.ID); r.Host != "example.com" {
		t.Fatalf("FindRule after the update: host %q", r.Host)
	}
	// A host-less exact /a may now be added; giving it the host clashes.
	c := e.rule(p.ID, "/a", "/z", redirects.Exact, 100)
	_, err = e.s.UpdateRule(e.ctx, p.ID, c.ID, redirects.RuleUpdate{Host: &host})
	wantCode(t, "UpdateRule(host) into a clash", err, redirects.ECONFLICT, "/a", "example.com")
	// A match type changed to regex, with a regex source and captures.
	mt, src, dest := redirects.Regex, `/a/(\d+)`, "/n/$1"
	got, err = e.s.UpdateRule(e.ctx, p.ID, b.ID, redirects.RuleUpdate{MatchType: &mt, Source: &src, Destination: &dest})
	if err != nil || got.MatchType != redirects.Regex || got.Source != src || got.Destination != dest {
		t.Fatalf("UpdateRule(to regex) = %+v, %v", got, err)
	}
	// Removing the host.
	none := ""
	if got, err = e.s.UpdateRule(e.ctx, p.ID, a.ID, redirects.RuleUpdate{Host: &none, Source: pointerTo("/a2")}); err != nil || got.Host != "" {
		t.Fatalf("UpdateRule(no host) = %+v, %v", got, err)
	}
	// A bad update changes nothing.
	before := e.draftOf(p.ID)
	bad := "/:a:b"
	pat := redirects.Pattern
	_, err = e.s.UpdateRule(e.ctx, p.ID, c.ID, redirects.RuleUpdate{MatchType: &pat, Source: &bad})
	wantCode(t, "UpdateRule(bad pattern)", err, redirects.EINVALID, `source "/:a:b": at byte 3`)
	wantDraft(t, "the draft after a refused update", e.draftOf(p.ID), before)
}

func testPatternsPageFilter(t *testing.T, e *env) {
	p := e.newProject()
	in := patternRules()
	in = storedForm(t, in)
	for i := range in {
		r := in[i]
		r.ProjectID = p.ID
		if err := e.s.AddRule(e.ctx, &r); err != nil {
			t.Fatal(err)
		}
	}
	all := e.rules(p.ID)
	hosts := []string{"", "old.example.com", "*.example.net", "xn--bcher-kva.example", "bücher.example", "nowhere.example"}
	var filters []redirects.RuleFilter
	for _, mt := range redirects.MatchTypes {
		filters = append(filters, redirects.RuleFilter{MatchType: &mt})
	}
	for _, h := range hosts {
		filters = append(filters, redirects.RuleFilter{Host: &h})
		for _, mt := range redirects.MatchTypes {
			filters = append(filters, redirects.RuleFilter{Host: &h, MatchType: &mt})
		}
		filters = append(filters, redirects.RuleFilter{Host: &h, Query: "/*"})
	}
	for _, f := range filters {
		desc := fmt.Sprintf("%+v", f)
		if f.Host != nil {
			desc += " host " + *f.Host
		}
		q := redirects.RulePageQuery{Filter: f, Limit: 3}
		var got []redirects.Rule
		for {
			page, err := e.s.FindRulePage(e.ctx, p.ID, q)
			if err != nil {
				t.Fatalf("FindRulePage(%s): %v", desc, err)
			}
			got = append(got, page.Rules...)
			if page.Next == "" {
				break
			}
			q.After = page.Next
		}
		check := f
		if err := check.Validate(); err != nil {
			t.Fatal(err)
		}
		var want []redirects.Rule
		for _, r := range all {
			if check.Match(&r) {
				want = append(want, r)
			}
		}
		if len(got) != len(want) {
			t.Errorf("filter %s: %d rules %v, want %d %v", desc, len(got), sourcesOf(got), len(want), sourcesOf(want))
			continue
		}
		wantHas(t, "filter "+desc, got, want)
	}
	bad := "a b"
	_, err := e.s.FindRulePage(e.ctx, p.ID, redirects.RulePageQuery{Filter: redirects.RuleFilter{Host: &bad}})
	wantCode(t, "FindRulePage(host \"a b\")", err, redirects.EINVALID, "host")
	// DeleteRules with a host filter deletes that host's rules only.
	h := "*.EXAMPLE.net"
	n, err := e.s.DeleteRules(e.ctx, p.ID, redirects.RuleFilter{Host: &h})
	if err != nil || n != 1 {
		t.Fatalf("DeleteRules(host %s) = %d, %v; want 1", h, n, err)
	}
	if left := e.rules(p.ID); len(left) != len(all)-1 || slices.ContainsFunc(left, func(r redirects.Rule) bool { return r.Host == "*.example.net" }) {
		t.Fatalf("after DeleteRules(host): %v", sourcesOf(left))
	}
}

func testPatternsImport(t *testing.T, e *env) {
	p := e.newProject()
	in := patternRules()
	for i := range in {
		if in[i].Priority == 0 {
			in[i].Priority = redirects.DefaultPriority
		}
	}
	want := storedForm(t, in)
	rep := e.importRules(p.ID, slices.Clone(in), redirects.ImportAppend)
	if rep.Added != len(in) {
		t.Fatalf("append: %+v, want %d added", rep, len(in))
	}
	wantHas(t, "the draft after an append", e.rules(p.ID), want)
	// The same file again, hosts written otherwise: unchanged.
	again := slices.Clone(in)
	again[3].Host = "OLD.example.com:443"
	again[6].Host = "xn--bcher-kva.example."
	rep, err := e.s.Import(e.ctx, p.ID, again, redirects.ImportOptions{Mode: redirects.ImportAppend})
	if err != nil || rep.Unchanged != len(in) || rep.Added != 0 {
		t.Fatalf("append again = %+v, %v; want every rule unchanged", rep, err)
	}
	// Upsert: one rule changed, one new rule that differs only in host.
	up := []redirects.Rule{in[4], in[4]}
	up[0].Destination = "/:lang/new/:splat"
	up[1].Host = "example.org"
	rep, err = e.s.Import(e.ctx, p.ID, up, redirects.ImportOptions{Mode: redirects.ImportUpsert})
	if err != nil || rep.Updated != 1 || rep.Added != 1 {
		t.Fatalf("upsert = %+v, %v; want 1 updated, 1 added", rep, err)
	}
	draft := e.rules(p.ID)
	if len(draft) != len(in)+1 {
		t.Fatalf("%d rules after the upsert, want %d", len(draft), len(in)+1)
	}
	wantHas(t, "the draft after the upsert", draft, storedForm(t, up))
	// An append of a changed rule of one host clashes; of the other host
	// it does not exist yet.
	clash := []redirects.Rule{in[3]}
	clash[0].Destination = "/elsewhere"
	_, err = e.s.Import(e.ctx, p.ID, clash, redirects.ImportOptions{Mode: redirects.ImportAppend})
	wantCode(t, "append of a changed host-scoped rule", err, redirects.ECONFLICT, "/blog/", "old.example.com")
	// A repeat within one host in one file is refused; the same source on
	// two hosts is not.
	rep2 := []redirects.Rule{in[6], in[6]}
	rep2[1].Host = "XN--BCHER-KVA.example"
	_, err = e.s.Import(e.ctx, p.ID, rep2, redirects.ImportOptions{Mode: redirects.ImportReplace})
	wantCode(t, "a repeat within one host", err, redirects.EINVALID, "rule 2", "already rule 1")
	// Replace: the draft becomes the file, hosts and all.
	rep2[1].Host = "other.example"
	rep, err = e.s.Import(e.ctx, p.ID, rep2, redirects.ImportOptions{Mode: redirects.ImportReplace})
	if err != nil || rep.Removed != len(in) || rep.Added != 1 || rep.Unchanged != 1 {
		t.Fatalf("replace = %+v, %v", rep, err)
	}
	draft = e.rules(p.ID)
	if len(draft) != 2 {
		t.Fatalf("%d rules after the replace, want 2: %v", len(draft), sourcesOf(draft))
	}
	wantHas(t, "the draft after the replace", draft, storedForm(t, rep2))
}

func testPatternsImportUndo(t *testing.T, e *env) {
	p := e.newProject()
	in := patternRules()
	for i := range in {
		if in[i].Priority == 0 {
			in[i].Priority = redirects.DefaultPriority
		}
	}
	first := e.importRules(p.ID, in[:4], redirects.ImportAppend)
	before := e.draftOf(p.ID)
	rep := e.importRules(p.ID, in[2:], redirects.ImportReplace)
	if _, err := e.s.UndoImport(e.ctx, p.ID, rep.UndoID); err != nil {
		t.Fatalf("UndoImport: %v", err)
	}
	after := e.draftOf(p.ID)
	wantDraft(t, "the draft after the undo", after, before)
	for i := range after {
		if after[i].Host != before[i].Host || after[i].MatchType != before[i].MatchType {
			t.Errorf("rule %d: host %q %s after the undo, want %q %s", after[i].ID, after[i].Host, after[i].MatchType, before[i].Host, before[i].MatchType)
		}
	}
	// The draft is again what the first import left (a host-scoped rule
	// among them): that import is undone too, to an empty draft.
	if n, err := e.s.UndoImport(e.ctx, p.ID, first.UndoID); err != nil || n != 0 {
		t.Fatalf("UndoImport(first) = %d, %v; want an empty draft", n, err)
	}
	if left := e.rules(p.ID); len(left) != 0 {
		t.Fatalf("the draft after both undos: %v", sourcesOf(left))
	}
}

// testPatternsDeploy: a deployed version, a staged one, its promote and a
// rollback carry every rule's match type, host and conditions.
func testPatternsDeploy(t *testing.T, e *env) {
	p := e.newProject()
	in := patternRules()
	for i := range in {
		if in[i].Priority == 0 {
			in[i].Priority = redirects.DefaultPriority
		}
	}
	want := storedForm(t, in)
	e.importRules(p.ID, in, redirects.ImportAppend)
	d1 := e.deploy(p.ID, redirects.DeployOptions{Message: "patterns"})
	_, rules, err := e.s.FindDeployment(e.ctx, p.ID, d1.Version)
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != len(want) {
		t.Fatalf("version 1 holds %d rules, want %d", len(rules), len(want))
	}
	wantHas(t, "version 1", rules, want)
	// A literal draft, staged; then promoted; then version 1 rolled back.
	e.importRules(p.ID, []redirects.Rule{{Source: "/plain", Destination: "/p", StatusCode: 301, Priority: 100}}, redirects.ImportReplace)
	d2 := e.deploy(p.ID, redirects.DeployOptions{Message: "staged", Stage: true})
	if _, err := e.s.PromoteDeployment(e.ctx, p.ID, d2.Version); err != nil {
		t.Fatalf("PromoteDeployment: %v", err)
	}
	_, live, err := e.s.FindDeployment(e.ctx, p.ID, 0)
	if err != nil || len(live) != 1 || live[0].Host != "" || live[0].Source != "/plain" {
		t.Fatalf("live after the promote: %+v, %v", live, err)
	}
	d3 := e.deploy(p.ID, redirects.DeployOptions{Message: "back", FromVersion: d1.Version, Stage: true})
	_, staged, err := e.s.FindDeployment(e.ctx, p.ID, d3.Version)
	if err != nil {
		t.Fatal(err)
	}
	wantHas(t, "the staged rollback", staged, want)
	if _, err := e.s.PromoteDeployment(e.ctx, p.ID, d3.Version); err != nil {
		t.Fatalf("PromoteDeployment(rollback): %v", err)
	}
	_, live, err = e.s.FindDeployment(e.ctx, p.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantHas(t, "the promoted rollback", live, want)
}

// testPatternsBadInput: a bad pattern, regex, capture or host is refused
// with the field (and the byte) named, by AddRule and by an import, and
// nothing changes.
func testPatternsBadInput(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/keep", "/k", redirects.Exact, 100)
	before := e.draftOf(p.ID)
	for _, c := range []struct {
		rule redirects.Rule
		want []string
	}{
		{redirects.Rule{MatchType: redirects.Pattern, Source: "/:a:b", Destination: "/"}, []string{`source "/:a:b": at byte 3`}},
		{redirects.Rule{MatchType: redirects.Regex, Source: "/a(b", Destination: "/"}, []string{"source", "at byte", "missing closing )"}},
		{redirects.Rule{MatchType: redirects.Regex, Source: "/" + strings.Repeat("a", 1024), Destination: "/"}, []string{"source", "longer than 1024 bytes"}},
		{redirects.Rule{MatchType: redirects.Pattern, Source: "/a/:x", Destination: "/b/:y"}, []string{"destination", ":y is not defined"}},
		{redirects.Rule{MatchType: redirects.Pattern, Source: "/go/:site", Destination: "https://:site.example/"}, []string{"destination", "scheme or host"}},
		{redirects.Rule{MatchType: redirects.Exact, Source: "/a", Destination: "/b", Host: "exa mple.com"}, []string{`host "exa mple.com"`}},
		{redirects.Rule{MatchType: redirects.Exact, Source: "/a?x=1&&y", Destination: "/b"}, []string{"source", "at byte 7", "empty query condition"}},
	} {
		r := c.rule
		r.ProjectID, r.StatusCode, r.Priority = p.ID, 301, 100
		err := e.s.AddRule(e.ctx, &r)
		wantCode(t, fmt.Sprintf("AddRule(%s %q → %q host %q)", r.MatchType, c.rule.Source, c.rule.Destination, c.rule.Host), err, redirects.EINVALID, c.want...)
		batch := []redirects.Rule{{Source: "/fine", Destination: "/f", StatusCode: 301, Priority: 100}, c.rule}
		batch[1].StatusCode, batch[1].Priority = 301, 100
		_, err = e.s.Import(e.ctx, p.ID, batch, redirects.ImportOptions{Mode: redirects.ImportReplace})
		wantCode(t, "Import of it", err, redirects.EINVALID, append([]string{"rule 2: "}, c.want...)...)
	}
	wantDraft(t, "the draft after refused writes", e.draftOf(p.ID), before)
}

// testPatternsRegexLimit: a project holds at most 10,000 regex rules; an
// AddRule, an update and an import past it are refused naming the limit,
// and change nothing.
func testPatternsRegexLimit(t *testing.T, e *env) {
	p := e.newProject()
	regex := func(i int) redirects.Rule {
		return redirects.Rule{ProjectID: p.ID, MatchType: redirects.Regex, Source: fmt.Sprintf(`/r%d/(\d+)`, i), Destination: "/n/$1", StatusCode: 301, Priority: 100}
	}
	rules := make([]redirects.Rule, redirects.MaxRegexRules+1)
	for i := range rules {
		rules[i] = regex(i)
	}
	_, err := e.s.Import(e.ctx, p.ID, rules, redirects.ImportOptions{Mode: redirects.ImportReplace})
	wantCode(t, "Import of 10,001 regex rules", err, redirects.EINVALID, "at most 10000 regex rules")
	if n := len(e.rules(p.ID)); n != 0 {
		t.Fatalf("%d rules stored after a refused import", n)
	}
	e.importRules(p.ID, rules[:redirects.MaxRegexRules-1], redirects.ImportAppend)
	// An append of the rules already there and two more is one too many;
	// of one more it fits.
	_, err = e.s.Import(e.ctx, p.ID, rules[redirects.MaxRegexRules-3:], redirects.ImportOptions{Mode: redirects.ImportAppend})
	wantCode(t, "append past the limit", err, redirects.EINVALID, "at most 10000 regex rules", "10001")
	e.importRules(p.ID, rules[redirects.MaxRegexRules-3:redirects.MaxRegexRules], redirects.ImportUpsert)
	before := e.rules(p.ID)
	if len(before) != redirects.MaxRegexRules {
		t.Fatalf("%d rules, want %d", len(before), redirects.MaxRegexRules)
	}
	r := regex(redirects.MaxRegexRules)
	wantCode(t, "AddRule past the limit", e.s.AddRule(e.ctx, &r), redirects.EINVALID, "at most 10000 regex rules")
	other := e.rule(p.ID, "/x", "/y", redirects.Exact, 100)
	mt, src := redirects.Regex, "/x/(.*)"
	_, err = e.s.UpdateRule(e.ctx, p.ID, other.ID, redirects.RuleUpdate{MatchType: &mt, Source: &src})
	wantCode(t, "UpdateRule to regex past the limit", err, redirects.EINVALID, "at most 10000 regex rules")
	// A regex rule updated in place is no new one.
	dest := "/m/$1"
	if _, err := e.s.UpdateRule(e.ctx, p.ID, before[0].ID, redirects.RuleUpdate{Destination: &dest}); err != nil {
		t.Fatalf("UpdateRule of a regex rule at the limit: %v", err)
	}
	if n := len(e.rules(p.ID)); n != redirects.MaxRegexRules+1 {
		t.Fatalf("%d rules after the refused writes, want %d", n, redirects.MaxRegexRules+1)
	}
}
