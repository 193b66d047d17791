package ui

import (
	"context"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/export"
	"redirects/manage"
)

// postFollow posts a form, follows its redirect with the flash cookie it
// set, and returns the page it leads to.
func (e *env) postFollow(t *testing.T, target string, form url.Values) string {
	t.Helper()
	form.Set("csrf", e.csrf)
	res, body := e.do("POST", target, form, true)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST %s: %d, want 303\n%s", target, res.StatusCode, body)
	}
	req := httptest.NewRequest("GET", res.Header.Get("Location"), nil)
	req.AddCookie(&http.Cookie{Name: manage.SessionCookie, Value: e.cookie})
	for _, c := range res.Cookies() {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return html.UnescapeString(rec.Body.String())
}

// flashText returns the flash message of a page.
func flashText(page string) string {
	m := regexp.MustCompile(`(?s)<div class="flash[^"]*"[^>]*>(.*?)</div>`).FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return m[1]
}

// rule returns the project's draft rule of source.
func (e *env) rule(t *testing.T, source string) *redirects.Rule {
	t.Helper()
	rules, err := e.db.FindRules(context.Background(), e.project.ID)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rules {
		if rules[i].Source == source {
			return &rules[i]
		}
	}
	return nil
}

// TestRuleFormOptions: the add and edit forms take every status and the
// options; an option that does not apply is refused naming it, and adds
// nothing.
func TestRuleFormOptions(t *testing.T) {
	e := newEnv(t)
	rules := "/projects/" + e.project.ID + "/rules"
	_, page := e.do("GET", rules, nil, true)
	for _, want := range []string{`data-rule-form`, `name="preserve-path"`, `name="preserve-query"`, `name="query-after-fragment"`, `name="merge-query"`, `data-option="path"`,
		`<option value="308">308 permanent, same method</option>`, `<option value="410">410 gone</option>`} {
		if !strings.Contains(page, want) {
			t.Fatalf("the rules page lacks %q:\n%s", want, page)
		}
	}

	got := e.postFollow(t, rules, url.Values{"source": {"/docs/"}, "destination": {"/manual/#top"}, "status": {"308"}, "match": {"starts_with"},
		"preserve-path": {"1"}, "preserve-query": {"1"}})
	if f := flashText(got); f != "Added starts_with rule /docs/ → /manual/#top (keeps path, keeps query). Deploy to make it live." {
		t.Fatalf("after adding a 308 with both options: %q", f)
	}
	if r := e.rule(t, "/docs/"); r == nil || r.StatusCode != 308 || !r.PreservePath || !r.PreserveQuery || r.Destination != "/manual/#top" {
		t.Fatalf("stored: %+v", r)
	}
	got = e.postFollow(t, rules, url.Values{"source": {"/design.html"}, "destination": {"/documentation#design"}, "status": {"301"}, "match": {"exact"},
		"preserve-query": {"1"}, "query-after-fragment": {"1"}})
	if f := flashText(got); f != "Added exact rule /design.html → /documentation#design (keeps query, query after fragment). Deploy to make it live." {
		t.Fatalf("after adding a rule with queryAfterFragment: %q", f)
	}
	if r := e.rule(t, "/design.html"); r == nil || !r.PreserveQuery || !r.QueryAfterFragment {
		t.Fatalf("stored: %+v", r)
	}
	if _, page := e.do("GET", rules+"/"+itoa(int(e.rule(t, "/design.html").ID))+"/edit", nil, true); !regexp.MustCompile(`id="query-after-fragment" name="query-after-fragment" value="1" checked`).MatchString(page) {
		t.Fatalf("the edit form does not show queryAfterFragment:\n%s", page)
	}
	got = e.postFollow(t, rules, url.Values{"source": {"/vscode"}, "destination": {"https://m.example/items?itemName=p.e"}, "status": {"308"}, "match": {"exact"},
		"preserve-query": {"1"}, "merge-query": {"1"}})
	if f := flashText(got); f != "Added exact rule /vscode → https://m.example/items?itemName=p.e (keeps query, merges query). Deploy to make it live." {
		t.Fatalf("after adding a rule with mergeQuery: %q", f)
	}
	if r := e.rule(t, "/vscode"); r == nil || !r.PreserveQuery || !r.MergeQuery {
		t.Fatalf("stored: %+v", r)
	}
	if _, page := e.do("GET", rules+"/"+itoa(int(e.rule(t, "/vscode").ID))+"/edit", nil, true); !regexp.MustCompile(`id="merge-query" name="merge-query" value="1" checked`).MatchString(page) {
		t.Fatalf("the edit form does not show mergeQuery:\n%s", page)
	}
	got = e.postFollow(t, rules, url.Values{"source": {"/retired"}, "destination": {""}, "status": {"410"}, "match": {"exact"}})
	if f := flashText(got); f != "Added exact rule /retired → 410 Gone. Deploy to make it live." {
		t.Fatalf("after adding a 410: %q", f)
	}
	for _, tc := range []struct {
		form url.Values
		says string
	}{
		{url.Values{"source": {"/x"}, "destination": {"/y"}, "status": {"301"}, "match": {"exact"}, "preserve-path": {"1"}}, "Keep the rest of the path: only a starts_with rule has a rest to keep. Choose starts_with, or uncheck it."},
		{url.Values{"source": {"/x"}, "destination": {"/y"}, "status": {"410"}, "match": {"exact"}}, "Destination: a 410 (Gone) has none. Empty it, or choose another status."},
		{url.Values{"source": {"/x"}, "destination": {""}, "status": {"410"}, "match": {"exact"}, "preserve-query": {"1"}}, "Options: a 410 (Gone) keeps nothing of the request. Uncheck them, or choose another status."},
		{url.Values{"source": {"/x"}, "destination": {""}, "status": {"301"}, "match": {"exact"}}, "Destination: give a path starting with / or an http(s):// URL. Only a 410 (Gone) has none."},
		{url.Values{"source": {"/x"}, "destination": {"/y"}, "status": {"304"}, "match": {"exact"}}, "Status: choose one of 301, 302, 303, 307, 308, 410."},
		{url.Values{"source": {"/x"}, "destination": {"/y#f"}, "status": {"301"}, "match": {"exact"}, "query-after-fragment": {"1"}}, "Query after the fragment: it says where the kept query goes."},
		{url.Values{"source": {"/x"}, "destination": {"/y"}, "status": {"301"}, "match": {"exact"}, "preserve-query": {"1"}, "query-after-fragment": {"1"}}, "Query after the fragment: the destination has no #fragment"},
		{url.Values{"source": {"/x"}, "destination": {"/y?a=1"}, "status": {"301"}, "match": {"exact"}, "merge-query": {"1"}}, "Merge the query: it says how the kept query joins the destination's."},
		{url.Values{"source": {"/x"}, "destination": {"/y"}, "status": {"301"}, "match": {"exact"}, "preserve-query": {"1"}, "merge-query": {"1"}}, "Merge the query: the destination has no ?query"},
		{url.Values{"source": {"/x"}, "destination": {"/y?a#f"}, "status": {"301"}, "match": {"exact"}, "preserve-query": {"1"}, "merge-query": {"1"}, "query-after-fragment": {"1"}}, "Merge the query and Query after the fragment do not go together"},
	} {
		// A refused rule comes back in its form, the error beside the
		// field and the summary above it (it was a flash message).
		status, _, text := e.ruleFormPost(t, rules, tc.form)
		if status != http.StatusUnprocessableEntity || !strings.Contains(text, "The rule was not added: "+tc.says) {
			t.Errorf("adding %v: %d %q, want 422 and it to say %q", tc.form, status, text, tc.says)
		}
	}
	if r := e.rule(t, "/x"); r != nil {
		t.Fatalf("a refused form added %+v", r)
	}

	// Edit: the form shows the options as stored; unchecking one changes
	// it alone, and a change to exact drops preservePath with it.
	docs := e.rule(t, "/docs/")
	edit := rules + "/" + itoa(int(docs.ID)) + "/edit"
	_, page = e.do("GET", edit, nil, true)
	if !regexp.MustCompile(`id="preserve-path" name="preserve-path" value="1" checked`).MatchString(page) ||
		!regexp.MustCompile(`id="preserve-query" name="preserve-query" value="1" checked`).MatchString(page) ||
		!strings.Contains(page, `<option value="308" selected>`) {
		t.Fatalf("the edit form does not show the rule's options:\n%s", page)
	}
	e.postFollow(t, edit, url.Values{"revision": {"1"}, "source": {"/docs/"}, "destination": {"/manual/#top"}, "status": {"308"}, "match": {"starts_with"},
		"priority": {"100"}, "preserve-path": {"1"}})
	if r := e.rule(t, "/docs/"); !r.PreservePath || r.PreserveQuery {
		t.Fatalf("after unchecking preserve-query: %+v", r)
	}
	e.postFollow(t, edit, url.Values{"revision": {"2"}, "source": {"/docs/"}, "destination": {"/manual/#top"}, "status": {"308"}, "match": {"exact"}, "priority": {"100"}})
	if r := e.rule(t, "/docs/"); r.PreservePath || r.MatchType != redirects.Exact {
		t.Fatalf("after a change to exact: %+v", r)
	}
}

// TestRulesTableShowsOptions: each rule's status and options are badges;
// a page without options has no column for them.
func TestRulesTableShowsOptions(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	rules := "/projects/" + e.project.ID + "/rules"
	if err := e.db.AddRule(ctx, &redirects.Rule{ProjectID: e.project.ID, Source: "/plain", Destination: "/b", StatusCode: 301}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{rules, "/projects/" + e.project.ID + "/deploy"} {
		if _, page := e.do("GET", p, nil, true); strings.Contains(page, ">Options</th>") || strings.Contains(page, `class="opt"`) {
			t.Fatalf("%s without options shows an Options column:\n%s", p, page)
		}
	}
	for _, r := range []redirects.Rule{
		{Source: "/docs/", Destination: "/manual/", StatusCode: 308, MatchType: redirects.StartsWith, PreservePath: true, PreserveQuery: true},
		{Source: "/gone", StatusCode: 410},
		{Source: "/see", Destination: "/other?a=1", StatusCode: 303, PreserveQuery: true},
	} {
		r.ProjectID = e.project.ID
		if err := e.db.AddRule(ctx, &r); err != nil {
			t.Fatal(err)
		}
	}
	_, page := e.do("GET", "/projects/"+e.project.ID+"/deploy", nil, true)
	if !strings.Contains(page, `<td class="opts"><span class="opt">keeps path</span> <span class="opt">keeps query</span> </td>`) {
		t.Fatalf("the deploy page's added rules do not show their options:\n%s", page)
	}
	_, page = e.do("GET", rules, nil, true)
	for _, want := range []string{
		">Options</th>",
		`<span class="badge s308" title="308 Permanent Redirect (keeps the method and body)">308</span>`,
		`<span class="badge s410" title="410 Gone (no destination)">410 Gone</span>`,
		`<span class="badge s303" title="303 See Other (the next request is a GET)">303</span>`,
		`<td class="opts"><span class="opt">keeps path</span> <span class="opt">keeps query</span> </td>`,
		`title="A 410 answers that the page is gone, with no destination">none</span>`,
		`<option value="410">410</option>`,
	} {
		if !strings.Contains(page, want) {
			t.Fatalf("the rules table lacks %q:\n%s", want, page)
		}
	}
	// The draft downloads with its options, in the file the import reads.
	if !strings.Contains(page, `href="/projects/`+e.project.ID+`/rules.csv" download>Download the draft as CSV</a>`) {
		t.Fatalf("the rules page has no download of the draft:\n%s", page)
	}
	res, csv := e.do("GET", rules+".csv", nil, true)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") ||
		!strings.HasPrefix(csv, "source,destination,statusCode,matchType,priority,id,preservePath,preserveQuery\r\n") ||
		!regexp.MustCompile(`\r\n/docs/,/manual/,308,starts_with,0,\d+,true,true\r\n`).MatchString(csv) ||
		!regexp.MustCompile(`\r\n/gone,,410,exact,0,\d+,false,false\r\n`).MatchString(csv) {
		t.Fatalf("GET rules.csv: %d %v\n%s", res.StatusCode, res.Header, csv)
	}
	// The status filter takes the new statuses.
	_, page = e.do("GET", rules+"?status=410", nil, true)
	if !strings.Contains(page, "1 rule matches, 1 shown") || !strings.Contains(page, "/gone") {
		t.Fatalf("filtered by 410:\n%s", page)
	}
}

// TestSettingsMatching: the settings page shows what each other choice of
// settings would clash before anyone saves it; a change that would clash
// is refused and changes nothing; one that would not is saved and shows
// on the deploy page and in the header as a change not deployed.
func TestSettingsMatching(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	base := "/projects/" + e.project.ID + "/settings"
	for _, src := range []string{"/About", "/about", "/docs/"} {
		if err := e.db.AddRule(ctx, &redirects.Rule{ProjectID: e.project.ID, Source: src, Destination: "/x", StatusCode: 301}); err != nil {
			t.Fatal(err)
		}
	}
	_, page := e.do("GET", base, nil, true)
	page = html.UnescapeString(page)
	for _, want := range []string{
		`action="` + base + `/matching"`, "The draft compares paths <strong>case-sensitive, trailing slash exact</strong>",
		`name="case" value="sensitive" checked`, `name="trailing-slash" value="exact" checked`,
		`ignoring case, trailing slash exact</strong>: <span class="err">1 pair of rules would clash</span>`,
		"case-sensitive, trailing slash ignore</strong>: no rule would clash.",
		`ignoring case, trailing slash ignore</strong>: <span class="err">1 pair of rules would clash</span>`,
		`>/About</a> and <a class="mono"`,
	} {
		if !strings.Contains(page, want) {
			t.Fatalf("the settings page lacks %q:\n%s", want, page)
		}
	}
	got := e.postFollow(t, base+"/matching", url.Values{"case": {"ignore"}, "trailing-slash": {"exact"}})
	if f := flashText(got); !strings.HasPrefix(f, "The matching settings were not saved: The settings caseSensitive=false trailingSlash=exact would make rules clash") ||
		!strings.Contains(f, `exact rule 1 "/About" and rule 2 "/about". Change or delete one rule of each pair, then save again.`) {
		t.Fatalf("a clashing change: %q", f)
	}
	if f := flashText(e.postFollow(t, base+"/matching", url.Values{"case": {"upper"}, "trailing-slash": {"exact"}})); !strings.Contains(f, "Letter case: choose") {
		t.Fatalf("a bad value: %q", f)
	}
	if p, _ := e.db.FindProjectByID(ctx, e.project.ID); !p.Settings.IsDefault() {
		t.Fatalf("refused changes stored %v", p.Settings)
	}

	// Deployed with the defaults, then trailing slash ignored: saved, and
	// the deploy page and the header show the change.
	if res, body := e.do("POST", "/projects/"+e.project.ID+"/deploy", url.Values{"csrf": {e.csrf}, "message": {"v1"}}, true); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("deploy: %d\n%s", res.StatusCode, body)
	}
	got = e.postFollow(t, base+"/matching", url.Values{"case": {"sensitive"}, "trailing-slash": {"ignore"}})
	if f := flashText(got); f != "Saved: the draft compares paths case-sensitive, trailing slash ignore. Deploy to make it live; version 1 still compares paths case-sensitive, trailing slash exact." {
		t.Fatalf("a change without clashes: %q", f)
	}
	if p, _ := e.db.FindProjectByID(ctx, e.project.ID); !p.Settings.IgnoreTrailingSlash || p.Settings.CaseInsensitive {
		t.Fatalf("stored %v", p.Settings)
	}
	for _, want := range []string{`name="trailing-slash" value="ignore" checked`, "Trailing slash: exact → <strong>ignore</strong>", "Draft: changed since version 1 went live."} {
		if !strings.Contains(got, want) {
			t.Fatalf("the settings page after the change lacks %q:\n%s", want, got)
		}
	}
	_, page = e.do("GET", "/projects/"+e.project.ID+"/deploy", nil, true)
	page = html.UnescapeString(page)
	for _, want := range []string{"Draft: 1 change not deployed", "1 setting changed", "Matching settings (1)", "Trailing slash: exact → <strong>ignore</strong>.", "Deploy version 2",
		"<li>/docs: no redirect → 301 /x</li>"} {
		if !strings.Contains(page, want) {
			t.Fatalf("the deploy page lacks %q:\n%s", want, page)
		}
	}

	// Deployed, version 2 shows its settings in the history; rolling back
	// to version 1 says it takes version 1's settings.
	if res, body := e.do("POST", "/projects/"+e.project.ID+"/deploy", url.Values{"csrf": {e.csrf}, "message": {"v2"}}, true); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("deploy: %d\n%s", res.StatusCode, body)
	}
	_, page = e.do("GET", "/projects/"+e.project.ID+"/history", nil, true)
	if n := strings.Count(page, ">ignores trailing /</span>"); n != 1 || strings.Contains(page, ">ignores case</span>") {
		t.Fatalf("the history shows %d versions ignoring the trailing slash, want 1 (version 2):\n%s", n, page)
	}
	_, page = e.do("GET", "/projects/"+e.project.ID+"/history/1/rollback", nil, true)
	if !strings.Contains(html.UnescapeString(page), "It compares paths as version 1 did, not as the live version does:</p>\n<ul class=\"list\"><li>Trailing slash: ignore → <strong>exact</strong>.") {
		t.Fatalf("the rollback to version 1 does not name its settings:\n%s", page)
	}
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{{"short", 10, "short"}, {"abcdef", 3, "abc…"}, {"caféx", 4, "caf…"}, {"caféx", 5, "café…"}} {
		if got := clip(tc.s, tc.n); got != tc.want {
			t.Errorf("clip(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// TestSettingsPreviewOnLargeDrafts: past clashPreviewMax rules the
// settings page does not read the draft on every visit; it offers the
// preview as a link, which shows it.
func TestSettingsPreviewOnLargeDrafts(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	defer func(n int) { clashPreviewMax = n }(clashPreviewMax)
	clashPreviewMax = 2
	for _, src := range []string{"/A", "/a", "/b"} {
		if err := e.db.AddRule(ctx, &redirects.Rule{ProjectID: e.project.ID, Source: src, Destination: "/x", StatusCode: 301}); err != nil {
			t.Fatal(err)
		}
	}
	base := "/projects/" + e.project.ID + "/settings"
	_, page := e.do("GET", base, nil, true)
	if strings.Contains(page, `id="clash-preview"`) || !strings.Contains(page, `The draft has 3 rules, too many to check on every visit. <a href="`+base+`?preview=1#matching">Check what each choice would clash</a>`) {
		t.Fatalf("a draft past the preview's limit:\n%s", page)
	}
	_, page = e.do("GET", base+"?preview=1", nil, true)
	if !strings.Contains(page, `id="clash-preview"`) || !strings.Contains(page, `ignoring case, trailing slash exact</strong>: <span class="err">1 pair of rules would clash</span>`) {
		t.Fatalf("the preview asked for:\n%s", page)
	}
}

// TestMissRuleGone: a missed path becomes a 410 in one step, with no
// destination.
func TestMissRuleGone(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	now := time.Now()
	if err := e.db.AddMisses(ctx, []redirects.Miss{{ProjectID: e.project.ID, Path: "/old-promo", Count: 3, FirstSeen: now, LastSeen: now}}); err != nil {
		t.Fatal(err)
	}
	misses := "/projects/" + e.project.ID + "/misses"
	_, page := e.do("GET", misses, nil, true)
	if !strings.Contains(page, `<option value="410">410 Gone</option>`) || !strings.Contains(page, `data-rule-form`) {
		t.Fatalf("the misses form offers no 410:\n%s", page)
	}
	got := e.postFollow(t, misses+"/rule", url.Values{"path": {"/old-promo"}, "destination": {""}, "status": {"410"}})
	if f := flashText(got); f != "Added to the draft: /old-promo → 410 Gone. Deploy to make it live." {
		t.Fatalf("a 410 from a miss: %q", f)
	}
	if r := e.rule(t, "/old-promo"); r == nil || r.StatusCode != 410 || r.Destination != "" {
		t.Fatalf("stored: %+v", r)
	}
}

// TestTestPathOptions: Test a path answers with the computed destination,
// under each side's settings.
func TestTestPathOptions(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if err := e.db.AddRule(ctx, &redirects.Rule{ProjectID: e.project.ID, Source: "/docs/", Destination: "/manual/#top", StatusCode: 308,
		MatchType: redirects.StartsWith, PreservePath: true, PreserveQuery: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.SetProjectSettings(ctx, e.project.ID, redirects.Settings{CaseInsensitive: true}); err != nil {
		t.Fatal(err)
	}
	_, page := e.do("GET", "/projects/"+e.project.ID+"/test?path="+url.QueryEscape("/DOCS/a/b?x=1"), nil, true)
	if !strings.Contains(page, `title="308 Permanent Redirect (keeps the method and body)">308</span> → <span class="mono">/manual/a/b?x=1#top</span>, by rule`) {
		t.Fatalf("Test a path of /DOCS/a/b?x=1:\n%s", page)
	}
}

// TestDeployPageShowsExportReport: the deploy page lists what the export
// files will answer otherwise than the lookup API, the same lines the
// deploy's report holds; without such rules it shows no such section.
func TestDeployPageShowsExportReport(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	deploy := "/projects/" + e.project.ID + "/deploy"
	if err := e.db.AddRule(ctx, &redirects.Rule{ProjectID: e.project.ID, Source: "/plain", Destination: "/b", StatusCode: 301}); err != nil {
		t.Fatal(err)
	}
	if _, page := e.do("GET", deploy, nil, true); strings.Contains(page, `id="export-report"`) {
		t.Fatalf("a draft every format answers shows an export report:\n%s", page)
	}
	rules := []redirects.Rule{
		{Source: "/gone", StatusCode: 410},
		{Source: "/moved", Destination: "/new", StatusCode: 308},
	}
	for i := range rules {
		rules[i].ProjectID = e.project.ID
		if err := e.db.AddRule(ctx, &rules[i]); err != nil {
			t.Fatal(err)
		}
	}
	draft, err := e.db.FindRules(ctx, e.project.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := export.Report(draft, redirects.Settings{})
	if want == "" {
		t.Fatal("export.Report finds nothing to say of a 410 and a 308")
	}
	// The page states each kind of difference of the report once, with
	// the formats it concerns (the report states it per format).
	_, page := e.do("GET", deploy, nil, true)
	if !strings.Contains(page, `id="export-report"`) {
		t.Fatalf("the deploy page has no export report:\n%s", page)
	}
	kinds := export.ReportKinds(want)
	if len(kinds) >= strings.Count(want, "\n") {
		t.Fatalf("the report %q has %d kinds: the maps' 410 and 308 lines are one kind each", want, len(kinds))
	}
	for _, k := range kinds {
		if n := strings.Count(page, html.EscapeString(k.What)); n != 1 {
			t.Errorf("the deploy page states %q %d times, want once:\n%s", k.What, n, page)
		}
		if len(k.Formats) == 0 {
			t.Errorf("kind %q names no format", k.What)
		}
	}
	c, err := export.Build(draft, redirects.Settings{})
	if err != nil || c.Report != want {
		t.Fatalf("the deploy's report %q differs from the page's %q (%v)", c.Report, want, err)
	}
}

// TestRuleFormExceptHosts: the rule form takes the hosts a rule without a
// host does not answer, the list shows them, the edit form shows them
// again and clears them, and a refusal is shown beside the field.
func TestRuleFormExceptHosts(t *testing.T) {
	e := newEnv(t)
	rules := "/projects/" + e.project.ID + "/rules"
	_, page := e.do("GET", rules, nil, true)
	if !strings.Contains(page, `name="except-hosts"`) {
		t.Fatalf("the rules page lacks the except-hosts field:\n%s", page)
	}
	got := e.postFollow(t, rules, url.Values{"source": {"/"}, "destination": {"https://example.com/"}, "status": {"301"}, "match": {"starts_with"},
		"except-hosts": {"Example.COM, *.example.org"}})
	if f := flashText(got); f != "Added starts_with rule / → https://example.com/ (not on example.com, *.example.org). Deploy to make it live." {
		t.Fatalf("after adding a rule with exceptHosts: %q", f)
	}
	r := e.rule(t, "/")
	if r == nil || strings.Join(r.ExceptHosts, " ") != "example.com *.example.org" {
		t.Fatalf("stored: %+v", r)
	}
	edit := rules + "/" + itoa(int(r.ID)) + "/edit"
	if _, page := e.do("GET", edit, nil, true); !strings.Contains(page, `value="example.com, *.example.org"`) {
		t.Fatalf("the edit form does not show exceptHosts:\n%s", page)
	}
	for _, c := range []struct {
		v    url.Values
		want string
	}{
		{url.Values{"source": {"/x"}, "destination": {"/y"}, "status": {"301"}, "match": {"exact"}, "host": {"a.example"}, "except-hosts": {"b.example"}}, "xceptHosts applies to a rule without a host only"},
		{url.Values{"source": {"/x"}, "destination": {"/y"}, "status": {"301"}, "match": {"exact"}, "except-hosts": {"a.example, A.example."}}, "xceptHosts[1] \"A.example.\" is exceptHosts[0] again"},
	} {
		code, page, text := e.ruleFormPost(t, rules, c.v)
		if code != 422 || !strings.Contains(text, c.want) || !strings.Contains(page, `except-hosts-error"`) {
			t.Fatalf("%v: %d, want 422 with %q beside the field:\n%s", c.v, code, c.want, text)
		}
	}
}
