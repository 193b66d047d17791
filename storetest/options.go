package storetest

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"redirects"
	"redirects/internal/rulemodel"
)

// The rule options and project settings (docs/contract.md#rule-options).
var optionTests = []struct {
	name string
	fn   func(t *testing.T, e *env)
}{
	{"Options/RoundTrip", testOptionsRoundTrip},
	{"Options/UpdateKeepsWhatItDoesNotName", testOptionsUpdateKeeps},
	{"Options/ImportRandom", testOptionsImportRandom},
	{"Options/ExceptHostsRoundTrip", testExceptHostsRoundTrip},
	{"Settings/SetAndClash", testSettingsClash},
	{"Settings/WritesClash", testSettingsWritesClash},
	{"Settings/ImportByKey", testSettingsImportByKey},
	{"Settings/DeployFreezes", testSettingsDeployFreezes},
}

// sameStored compares what a store keeps of a rule: every field but the
// times, IDs and revision.
func sameStored(a, b redirects.Rule) bool {
	return a.Source == b.Source && a.Destination == b.Destination && a.StatusCode == b.StatusCode &&
		a.MatchType == b.MatchType && a.Priority == b.Priority && a.PreservePath == b.PreservePath && a.PreserveQuery == b.PreserveQuery &&
		a.QueryAfterFragment == b.QueryAfterFragment && a.MergeQuery == b.MergeQuery
}

func testOptionsRoundTrip(t *testing.T, e *env) {
	p := e.newProject()
	in := []redirects.Rule{
		{Source: "/gone", StatusCode: 410},
		{Source: "/see", Destination: "/other?x=1#top", StatusCode: 303},
		{Source: "/tmp", Destination: "https://ex.com", StatusCode: 307, PreserveQuery: true},
		{Source: "/docs/", Destination: "/d/", StatusCode: 308, MatchType: redirects.StartsWith, PreservePath: true, PreserveQuery: true},
		{Source: "/design", Destination: "/doc?v=1#design", StatusCode: 301, MatchType: redirects.StartsWith, PreservePath: true, PreserveQuery: true, QueryAfterFragment: true},
		{Source: "/vscode", Destination: "https://m.example/items?itemName=p.e", StatusCode: 308, PreserveQuery: true, MergeQuery: true},
	}
	for i := range in {
		r := in[i]
		r.ProjectID = p.ID
		if err := e.s.AddRule(e.ctx, &r); err != nil {
			t.Fatalf("AddRule(%+v): %v", r, err)
		}
		got, err := e.s.FindRule(e.ctx, p.ID, r.ID)
		if err != nil || !sameStored(*got, in[i]) {
			t.Fatalf("FindRule = %+v, %v; want %+v", got, err, in[i])
		}
	}
	rules := e.rules(p.ID)
	for _, want := range in {
		if !slices.ContainsFunc(rules, func(r redirects.Rule) bool { return sameStored(r, want) }) {
			t.Errorf("FindRules lacks %+v: %+v", want, rules)
		}
	}
	page, err := e.s.FindRulePage(e.ctx, p.ID, redirects.RulePageQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range in {
		if !slices.ContainsFunc(page.Rules, func(r redirects.Rule) bool { return sameStored(r, want) }) {
			t.Errorf("FindRulePage lacks %+v", want)
		}
	}
	d := e.deploy(p.ID, redirects.DeployOptions{})
	_, deployed, err := e.s.FindDeployment(e.ctx, p.ID, d.Version)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range in {
		if !slices.ContainsFunc(deployed, func(r redirects.Rule) bool { return sameStored(r, want) }) {
			t.Errorf("the deployment's rules lack %+v: %+v", want, deployed)
		}
	}
	// Refused: the options that do not apply, and nothing is stored.
	for _, bad := range []redirects.Rule{
		{Source: "/x", Destination: "/y", StatusCode: 301, PreservePath: true},
		{Source: "/x", Destination: "/y", StatusCode: 410},
		{Source: "/x", StatusCode: 410, PreserveQuery: true},
		{Source: "/x", Destination: "/y#a#b", StatusCode: 301},
		{Source: "/x", Destination: "/y#a", StatusCode: 301, QueryAfterFragment: true},
		{Source: "/x", Destination: "/y", StatusCode: 301, PreserveQuery: true, QueryAfterFragment: true},
		{Source: "/x", Destination: "/y?a=1", StatusCode: 301, MergeQuery: true},
		{Source: "/x", Destination: "/y?#f", StatusCode: 301, PreserveQuery: true, MergeQuery: true},
		{Source: "/x", Destination: "/y?a#f", StatusCode: 301, PreserveQuery: true, MergeQuery: true, QueryAfterFragment: true},
		{Source: "/x", StatusCode: 410, MergeQuery: true},
	} {
		bad.ProjectID = p.ID
		wantCode(t, "AddRule(bad options)", e.s.AddRule(e.ctx, &bad), redirects.EINVALID)
	}
	if n := len(e.rules(p.ID)); n != len(in) {
		t.Errorf("%d rules after refused adds, want %d", n, len(in))
	}
}

func testOptionsUpdateKeeps(t *testing.T, e *env) {
	p := e.newProject()
	r := &redirects.Rule{ProjectID: p.ID, Source: "/a/", Destination: "/b/", StatusCode: 308, MatchType: redirects.StartsWith,
		PreservePath: true, PreserveQuery: true}
	if err := e.s.AddRule(e.ctx, r); err != nil {
		t.Fatal(err)
	}
	dest := "/c/"
	got, err := e.s.UpdateRule(e.ctx, p.ID, r.ID, redirects.RuleUpdate{Destination: &dest})
	if err != nil || !got.PreservePath || !got.PreserveQuery || got.StatusCode != 308 || got.Destination != dest {
		t.Fatalf("UpdateRule(destination only) = %+v, %v; want the options and status kept", got, err)
	}
	off := false
	got, err = e.s.UpdateRule(e.ctx, p.ID, r.ID, redirects.RuleUpdate{PreserveQuery: &off})
	if err != nil || got.PreserveQuery || !got.PreservePath {
		t.Fatalf("UpdateRule(preserveQuery false) = %+v, %v", got, err)
	}
	// A match type change that would leave preservePath on an exact rule.
	exact := redirects.Exact
	_, err = e.s.UpdateRule(e.ctx, p.ID, r.ID, redirects.RuleUpdate{MatchType: &exact})
	wantCode(t, "UpdateRule(exact with preservePath)", err, redirects.EINVALID, "preservePath")
	stored, _ := e.s.FindRule(e.ctx, p.ID, r.ID)
	if stored.MatchType != redirects.StartsWith || !stored.PreservePath {
		t.Errorf("a refused update changed the rule: %+v", stored)
	}
	_, err = e.s.UpdateRule(e.ctx, p.ID, r.ID, redirects.RuleUpdate{MatchType: &exact, PreservePath: &off})
	if err != nil {
		t.Errorf("UpdateRule(exact, preservePath false): %v", err)
	}
	// queryAfterFragment: kept by an update that does not name it, refused
	// by one that would leave it without preserveQuery or a fragment.
	q := &redirects.Rule{ProjectID: p.ID, Source: "/design", Destination: "/doc#design", StatusCode: 301, PreserveQuery: true, QueryAfterFragment: true}
	if err := e.s.AddRule(e.ctx, q); err != nil {
		t.Fatal(err)
	}
	dest = "/doc?v=2#design"
	got, err = e.s.UpdateRule(e.ctx, p.ID, q.ID, redirects.RuleUpdate{Destination: &dest})
	if err != nil || !got.QueryAfterFragment || !got.PreserveQuery || got.Destination != dest {
		t.Fatalf("UpdateRule(destination only) = %+v, %v; want queryAfterFragment kept", got, err)
	}
	_, err = e.s.UpdateRule(e.ctx, p.ID, q.ID, redirects.RuleUpdate{PreserveQuery: &off})
	wantCode(t, "UpdateRule(preserveQuery false under queryAfterFragment)", err, redirects.EINVALID, "queryAfterFragment")
	noFragment := "/doc"
	_, err = e.s.UpdateRule(e.ctx, p.ID, q.ID, redirects.RuleUpdate{Destination: &noFragment})
	wantCode(t, "UpdateRule(a destination without a fragment under queryAfterFragment)", err, redirects.EINVALID, "queryAfterFragment")
	got, err = e.s.UpdateRule(e.ctx, p.ID, q.ID, redirects.RuleUpdate{QueryAfterFragment: &off})
	if err != nil || got.QueryAfterFragment || !got.PreserveQuery {
		t.Fatalf("UpdateRule(queryAfterFragment false) = %+v, %v", got, err)
	}
	// mergeQuery: kept by an update that does not name it, refused by one
	// that would leave it without preserveQuery or a destination query.
	m := &redirects.Rule{ProjectID: p.ID, Source: "/vscode", Destination: "/items?itemName=a", StatusCode: 308, PreserveQuery: true, MergeQuery: true}
	if err := e.s.AddRule(e.ctx, m); err != nil {
		t.Fatal(err)
	}
	dest = "/items?itemName=b#top"
	got, err = e.s.UpdateRule(e.ctx, p.ID, m.ID, redirects.RuleUpdate{Destination: &dest})
	if err != nil || !got.MergeQuery || !got.PreserveQuery || got.Destination != dest {
		t.Fatalf("UpdateRule(destination only) = %+v, %v; want mergeQuery kept", got, err)
	}
	_, err = e.s.UpdateRule(e.ctx, p.ID, m.ID, redirects.RuleUpdate{PreserveQuery: &off})
	wantCode(t, "UpdateRule(preserveQuery false under mergeQuery)", err, redirects.EINVALID, "mergeQuery")
	noQuery := "/items#top"
	_, err = e.s.UpdateRule(e.ctx, p.ID, m.ID, redirects.RuleUpdate{Destination: &noQuery})
	wantCode(t, "UpdateRule(a destination without a query under mergeQuery)", err, redirects.EINVALID, "mergeQuery")
	on := true
	_, err = e.s.UpdateRule(e.ctx, p.ID, m.ID, redirects.RuleUpdate{QueryAfterFragment: &on})
	wantCode(t, "UpdateRule(queryAfterFragment under mergeQuery)", err, redirects.EINVALID, "mergeQuery")
	if stored, _ := e.s.FindRule(e.ctx, p.ID, m.ID); stored.Destination != dest || !stored.MergeQuery || !stored.PreserveQuery || stored.QueryAfterFragment {
		t.Errorf("a refused update changed the rule: %+v", stored)
	}
	got, err = e.s.UpdateRule(e.ctx, p.ID, m.ID, redirects.RuleUpdate{MergeQuery: &off})
	if err != nil || got.MergeQuery || !got.PreserveQuery {
		t.Fatalf("UpdateRule(mergeQuery false) = %+v, %v", got, err)
	}
}

// testOptionsImportRandom imports random rules using every option and
// status, in every mode, and reads them back as they were.
func testOptionsImportRandom(t *testing.T, e *env) {
	rng := rand.New(rand.NewPCG(7, 19))
	for round := 0; round < 5; round++ {
		p := e.newProject()
		in := rulemodel.Rules(rng, 60, redirects.Settings{})
		rulemodel.WithQueryAfterFragment(rng, in)
		rulemodel.WithMergeQuery(rng, in)
		if _, err := e.s.ImportRules(e.ctx, p.ID, slices.Clone(in), false); err != nil {
			t.Fatalf("ImportRules: %v", err)
		}
		got := e.rules(p.ID)
		if len(got) != len(in) {
			t.Fatalf("%d rules stored, want %d", len(got), len(in))
		}
		for _, want := range in {
			if !slices.ContainsFunc(got, func(r redirects.Rule) bool { return sameStored(r, want) }) {
				t.Fatalf("imported rules lack %+v", want)
			}
		}
		// An upsert that flips every rule's options updates them all.
		flipped := slices.Clone(in)
		for i := range flipped {
			r := &flipped[i]
			if r.StatusCode == redirects.StatusGone {
				continue
			}
			r.PreserveQuery = !r.PreserveQuery
			r.QueryAfterFragment = r.PreserveQuery && strings.Contains(r.Destination, "#")
			_, query, _ := redirects.SplitDestination(r.Destination)
			r.MergeQuery = r.PreserveQuery && !r.QueryAfterFragment && query != ""
			if r.MatchType == redirects.StartsWith {
				r.PreservePath = !r.PreservePath
			}
		}
		rep, err := e.s.Import(e.ctx, p.ID, slices.Clone(flipped), redirects.ImportOptions{Mode: redirects.ImportUpsert})
		if err != nil {
			t.Fatalf("Import(upsert): %v", err)
		}
		if rep.Added != 0 {
			t.Errorf("upsert of the same sources added %d", rep.Added)
		}
		got = e.rules(p.ID)
		for _, want := range flipped {
			if !slices.ContainsFunc(got, func(r redirects.Rule) bool { return sameStored(r, want) }) {
				t.Fatalf("after the upsert the rules lack %+v", want)
			}
		}
	}
}

func testSettingsClash(t *testing.T, e *env) {
	p := e.newProject()
	if !p.Settings.IsDefault() {
		t.Fatalf("a new project's settings = %v, want the default", p.Settings)
	}
	a := e.rule(p.ID, "/Docs", "/x", redirects.Exact, 100)
	b := e.rule(p.ID, "/docs", "/y", redirects.Exact, 100)
	e.rule(p.ID, "/docs", "/z", redirects.StartsWith, 100) // another match type: no clash
	ci := redirects.Settings{CaseInsensitive: true}
	_, err := e.s.SetProjectSettings(e.ctx, p.ID, ci)
	wantCode(t, "SetProjectSettings(clash)", err, redirects.ECONFLICT, "/Docs", "/docs", "caseSensitive=false")
	got, _ := e.s.FindProjectByID(e.ctx, p.ID)
	if !got.Settings.IsDefault() {
		t.Fatalf("a refused change stored %v", got.Settings)
	}
	if err := e.s.DeleteRule(e.ctx, p.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	stored, err := e.s.SetProjectSettings(e.ctx, p.ID, ci)
	if err != nil || stored.Settings != ci {
		t.Fatalf("SetProjectSettings = %+v, %v", stored, err)
	}
	got, _ = e.s.FindProjectByID(e.ctx, p.ID)
	if got.Settings != ci {
		t.Errorf("FindProjectByID settings = %v, want %v", got.Settings, ci)
	}
	all, _ := e.s.FindProjects(e.ctx, p.OrgID)
	if len(all) != 1 || all[0].Settings != ci {
		t.Errorf("FindProjects = %+v", all)
	}
	entries := e.audit(redirects.AuditFilter{OrgID: p.OrgID})
	if !slices.ContainsFunc(entries, func(x *redirects.AuditEntry) bool {
		return x.Action == redirects.AuditProjectUpdate && strings.Contains(string(x.After), `"caseSensitive":false`)
	}) {
		t.Errorf("no project.update audit entry with caseSensitive false")
	}
	// Back to the default, then trailing slash: /Docs and /Docs/ clash.
	if _, err := e.s.SetProjectSettings(e.ctx, p.ID, redirects.Settings{}); err != nil {
		t.Fatal(err)
	}
	e.rule(p.ID, "/Docs/", "/w", redirects.Exact, 100)
	_, err = e.s.SetProjectSettings(e.ctx, p.ID, redirects.Settings{IgnoreTrailingSlash: true})
	wantCode(t, "SetProjectSettings(slash clash)", err, redirects.ECONFLICT, "/Docs/", "trailingSlash=ignore")
	_ = a
}

func testSettingsWritesClash(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/a/", "/x", redirects.Exact, 100)
	s := redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}
	if _, err := e.s.SetProjectSettings(e.ctx, p.ID, s); err != nil {
		t.Fatal(err)
	}
	r := &redirects.Rule{ProjectID: p.ID, Source: "/A", Destination: "/y", StatusCode: 301}
	wantCode(t, "AddRule(/A after /a/)", e.s.AddRule(e.ctx, r), redirects.ECONFLICT, `"/A"`, `"/a/"`)
	r.MatchType = redirects.StartsWith
	if err := e.s.AddRule(e.ctx, r); err != nil {
		t.Fatalf("AddRule(starts_with /A): %v", err)
	}
	other := e.rule(p.ID, "/b", "/z", redirects.Exact, 100)
	src := "/A/"
	_, err := e.s.UpdateRule(e.ctx, p.ID, other.ID, redirects.RuleUpdate{Source: &src})
	wantCode(t, "UpdateRule(source /A/)", err, redirects.ECONFLICT, `"/a/"`)
	// An update of the rule itself to another spelling of its own key.
	self := "/B/"
	if _, err := e.s.UpdateRule(e.ctx, p.ID, other.ID, redirects.RuleUpdate{Source: &self}); err != nil {
		t.Errorf("UpdateRule(own key, other spelling): %v", err)
	}
	if n := len(e.rules(p.ID)); n != 3 {
		t.Errorf("%d rules, want 3", n)
	}
}

func testSettingsImportByKey(t *testing.T, e *env) {
	p := e.newProject()
	stored := e.rule(p.ID, "/Old", "/x", redirects.Exact, 100)
	s := redirects.Settings{CaseInsensitive: true}
	if _, err := e.s.SetProjectSettings(e.ctx, p.ID, s); err != nil {
		t.Fatal(err)
	}
	// Append: a clash with the stored rule, and two in the batch.
	_, err := e.s.ImportRules(e.ctx, p.ID, batch("/OLD", "/new", "/NEW"), false)
	wantCode(t, "ImportRules(clashes under settings)", err, redirects.EINVALID, `"/OLD"`, `"/Old"`, `"/NEW"`, `"/new"`)
	if n := len(e.rules(p.ID)); n != 1 {
		t.Fatalf("a refused import stored %d rules", n-1)
	}
	// Upsert: /OLD is the stored rule, as the settings compare.
	rep, err := e.s.Import(e.ctx, p.ID, []redirects.Rule{{Source: "/OLD", Destination: "/y", StatusCode: 308}, {Source: "/n", Destination: "/z", StatusCode: 301}},
		redirects.ImportOptions{Mode: redirects.ImportUpsert})
	if err != nil || rep.Updated != 1 || rep.Added != 1 {
		t.Fatalf("Import(upsert) = %+v, %v; want 1 updated, 1 added", rep, err)
	}
	got, _ := e.s.FindRule(e.ctx, p.ID, stored.ID)
	if got.Destination != "/y" || got.StatusCode != 308 {
		t.Errorf("the upsert left the stored rule %+v", got)
	}
	// The added rule has its key: /N now clashes.
	r := &redirects.Rule{ProjectID: p.ID, Source: "/N", Destination: "/q", StatusCode: 301}
	wantCode(t, "AddRule(/N after importing /n)", e.s.AddRule(e.ctx, r), redirects.ECONFLICT, `"/n"`)
	// Replace: a batch that clashes within itself is refused.
	_, err = e.s.Import(e.ctx, p.ID, batch("/x", "/X"), redirects.ImportOptions{Mode: redirects.ImportReplace})
	wantCode(t, "Import(replace, clash in batch)", err, redirects.EINVALID, `"/X"`)
}

func testSettingsDeployFreezes(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/a", "/b", redirects.Exact, 100)
	d1 := e.deploy(p.ID, redirects.DeployOptions{})
	s := redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}
	if _, err := e.s.SetProjectSettings(e.ctx, p.ID, s); err != nil {
		t.Fatal(err)
	}
	got, _, err := e.s.FindDeployment(e.ctx, p.ID, d1.Version)
	if err != nil || !got.Settings.IsDefault() {
		t.Fatalf("version 1 after the settings changed = %+v, %v; want the default settings it was deployed with", got, err)
	}
	d2 := e.deploy(p.ID, redirects.DeployOptions{})
	if d2.Settings != s {
		t.Errorf("Deploy returned settings %v, want %v", d2.Settings, s)
	}
	got, _, _ = e.s.FindDeployment(e.ctx, p.ID, d2.Version)
	if got.Settings != s {
		t.Errorf("version 2 settings %v, want %v", got.Settings, s)
	}
	list, _ := e.s.FindDeployments(e.ctx, p.ID)
	if len(list) != 2 || !list[0].Settings.IsDefault() || list[1].Settings != s {
		t.Errorf("FindDeployments settings: %+v", list)
	}
	// A rollback to version 1 goes live with version 1's settings.
	d3 := e.deploy(p.ID, redirects.DeployOptions{FromVersion: 1})
	got, _, _ = e.s.FindDeployment(e.ctx, p.ID, d3.Version)
	if !got.Settings.IsDefault() {
		t.Errorf("the rollback to version 1 has settings %v, want version 1's", got.Settings)
	}
}
