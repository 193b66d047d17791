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
	"redirects/manage"
)

// ruleFormPost posts the add form of the env's project and returns the
// status and the page's text (tags stripped, entities decoded).
func (e *env) ruleFormPost(t *testing.T, target string, form url.Values) (int, string, string) {
	t.Helper()
	form.Set("csrf", e.csrf)
	res, body := e.do("POST", target, form, true)
	return res.StatusCode, body, pageText(body)
}

var (
	blockTags = regexp.MustCompile(`(?s)</?(?:p|div|td|th|tr|dt|dd|li|h\d|label|option|legend|caption|br|input|button|select)\b[^>]*>`)
	tags      = regexp.MustCompile(`(?s)<[^>]*>`)
)

// pageText is a page's text, as a person reads it: tags gone (a block's
// a space), entities decoded, white space folded.
func pageText(body string) string {
	s := tags.ReplaceAllString(blockTags.ReplaceAllString(body, " "), "")
	return strings.Join(strings.Fields(html.UnescapeString(s)), " ")
}

func ruleValuesForm(kv ...string) url.Values {
	v := url.Values{"status": {"301"}, "match": {"exact"}, "priority": {"100"}}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Set(kv[i], kv[i+1])
	}
	return v
}

// draftCount is how many draft rules the env's project holds.
func (e *env) draftCount(t *testing.T) int {
	t.Helper()
	rules, err := e.db.FindRules(context.Background(), e.project.ID)
	if err != nil {
		t.Fatal(err)
	}
	return len(rules)
}

// TestRulePreviewSavesNothing previews a starts_with rule that keeps the
// rest of the path and the query: the page shows the answer as a lookup
// gives it, keeps every value typed, and the draft stays empty.
func TestRulePreviewSavesNothing(t *testing.T) {
	e := newEnv(t)
	target := "/projects/" + e.project.ID + "/rules"
	status, body, text := e.ruleFormPost(t, target, ruleValuesForm("action", "preview", "source", "/blog/", "match", "starts_with",
		"destination", "https://news.example.com/", "status", "308", "preserve-path", "1", "preserve-query", "1",
		"sample-path", "/blog/2020/hello?utm=x"))
	if status != http.StatusOK {
		t.Fatalf("preview: %d\n%s", status, text)
	}
	for _, want := range []string{"Matches /blog/2020/hello?utm=x: answers 308 → https://news.example.com/2020/hello?utm=x",
		"The source has no placeholder: nothing is captured.", "nothing is saved until you press “Add rule”"} {
		if !strings.Contains(text, want) {
			t.Errorf("the preview does not say %q:\n%s", want, text)
		}
	}
	for _, want := range []string{`value="/blog/"`, `value="https://news.example.com/"`, `value="/blog/2020/hello?utm=x"`, `<option value="308" selected>`, `<option value="starts_with" selected>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the form shown again lacks %s", want)
		}
	}
	if n := e.draftCount(t); n != 0 {
		t.Fatalf("a preview saved %d rules", n)
	}

	// A path the rule does not match says so.
	_, _, text = e.ruleFormPost(t, target, ruleValuesForm("action", "preview", "source", "/blog/", "match", "starts_with",
		"destination", "/news/", "sample-path", "/shop/blog/"))
	if !strings.Contains(text, "Does not match /shop/blog/. The sample path does not match the source.") {
		t.Errorf("a preview of a path the rule does not match:\n%s", text)
	}
}

// TestRuleRefusedBesideItsField posts rules the domain refuses: the page
// comes back with the values typed, the error under the field it names,
// the position marked, and the draft unchanged.
func TestRuleRefusedBesideItsField(t *testing.T) {
	e := newEnv(t)
	target := "/projects/" + e.project.ID + "/rules"
	status, body, text := e.ruleFormPost(t, target, ruleValuesForm("source", "/a b", "destination", "/x"))
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("a refused rule: %d, want 422", status)
	}
	if !strings.Contains(text, "The rule was not added: Source") {
		t.Errorf("no summary of the refusal:\n%s", text)
	}
	errs := regexp.MustCompile(`(?s)<p class="field-error" id="new-source-error">(.*?)</p>`).FindStringSubmatch(body)
	if errs == nil {
		t.Fatalf("no error under the source field:\n%s", body)
	}
	if !strings.Contains(errs[1], "at byte 2") || !strings.Contains(errs[1], `/a<mark> </mark>b`) {
		t.Errorf("the source's error does not mark byte 2: %s", errs[1])
	}
	if !strings.Contains(body, `aria-describedby="new-syntax new-source-error" aria-invalid="true" autofocus`) {
		t.Errorf("the source field is not marked invalid and focused")
	}
	if !strings.Contains(body, `value="/a b"`) {
		t.Errorf("the value typed is not shown again")
	}
	if n := e.draftCount(t); n != 0 {
		t.Fatalf("a refused rule was saved (%d rules)", n)
	}
	// A form error of the dashboard's own: beside the priority.
	_, body, _ = e.ruleFormPost(t, target, ruleValuesForm("source", "/a", "destination", "/x", "priority", "soon"))
	if !strings.Contains(html.UnescapeString(body), `id="new-priority-error">Priority "soon" is not a whole number.`) {
		t.Errorf("no error under the priority field:\n%s", body)
	}
}

// TestPatternPreviewAndRefusals previews a pattern and a regex rule, and
// posts malformed ones: each refusal sits under the field it names, with
// the position marked, and the draft stays empty.
func TestPatternPreviewAndRefusals(t *testing.T) {
	e := newEnv(t)
	target := "/projects/" + e.project.ID + "/rules"
	_, body, text := e.ruleFormPost(t, target, ruleValuesForm("action", "preview", "source", "/:lang/docs/*", "match", "pattern",
		"destination", "/:lang/guide/:splat", "sample-path", "/en/docs/a/b"))
	if !strings.Contains(text, "Matches /en/docs/a/b: answers 301 → /en/guide/a/b") ||
		!strings.Contains(body, `<td class="mono">:lang</td><td class="mono">en</td>`) ||
		!strings.Contains(body, `<td class="mono">:splat</td><td class="mono">a/b</td>`) {
		t.Errorf("the pattern's preview:\n%s", text)
	}
	_, body, text = e.ruleFormPost(t, target, ruleValuesForm("action", "preview", "source", `^/p/(?P<id>\d+)$`, "match", "regex",
		"destination", "/posts/${id}", "host", "Old.Example.com", "sample-path", "/p/42", "sample-host", "old.example.com:443"))
	if !strings.Contains(text, "Matches /p/42 on old.example.com:443: answers 301 → /posts/42") ||
		!strings.Contains(body, `<td class="mono">${id}</td><td class="mono">42</td>`) {
		t.Errorf("the regex's preview:\n%s", text)
	}

	for _, tc := range []struct {
		name, action, source, match, dest, field, value, mark string
	}{
		{"second splat", "save", "/docs/*/more/*", "pattern", "/x", "source", "/docs/*/more/*", "*"},
		{"second splat, previewed", "preview", "/docs/*/more/*", "pattern", "/x", "source", "/docs/*/more/*", "*"},
		{"unclosed group", "save", `^/p/(\d+$`, "regex", "/posts/$1", "source", `^/p/(\d+$`, ""},
		{"undefined capture", "save", "/a/:id", "pattern", "/b/:slug", "destination", "/b/:slug", ":"},
		{"third group", "save", `^/(a)/(b)$`, "regex", "/x/$3", "destination", "/x/$3", "$"},
	} {
		status, body, _ := e.ruleFormPost(t, target, ruleValuesForm("action", tc.action, "source", tc.source, "match", tc.match, "destination", tc.dest))
		want := http.StatusUnprocessableEntity
		if tc.action == "preview" {
			want = http.StatusOK
		}
		if status != want {
			t.Errorf("%s: %d, want %d", tc.name, status, want)
		}
		m := regexp.MustCompile(`(?s)<p class="field-error" id="new-` + tc.field + `-error">(.*?)</p>`).FindStringSubmatch(body)
		if m == nil {
			t.Errorf("%s: no error under %s:\n%s", tc.name, tc.field, pageText(body))
			continue
		}
		msg := html.UnescapeString(m[1])
		if !strings.Contains(msg, "position") && !strings.Contains(msg, "at byte") {
			t.Errorf("%s: the error names no position: %s", tc.name, msg)
		}
		mk := regexp.MustCompile(`<mark[^>]*>(.*?)</mark>`).FindStringSubmatch(msg)
		if mk == nil || tc.mark != "" && mk[1] != tc.mark {
			t.Errorf("%s: the marked character: %v, want %q (%s)", tc.name, mk, tc.mark, msg)
		}
		if !strings.Contains(html.UnescapeString(body), `value="`+tc.value+`"`) {
			t.Errorf("%s: the value typed is not shown again", tc.name)
		}
		if strings.Contains(body, `class="preview-result`) {
			t.Errorf("%s: a refused rule shows a preview", tc.name)
		}
	}
	if n := e.draftCount(t); n != 0 {
		t.Fatalf("the draft holds %d rules after previews and refusals", n)
	}
}

// TestRulesFilterByHost filters the rules table by host and match type:
// the Host column shows when a rule of the page has a host, a host typed
// in another case or form finds the rules of its key, and a malformed host
// is refused naming the field.
func TestRulesFilterByHost(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, r := range []redirects.Rule{
		{Source: "/plain", Destination: "/a", MatchType: redirects.Exact},
		{Source: "/:lang/docs/*", Destination: "/:lang/guide/:splat", MatchType: redirects.Pattern},
		{Source: `^/p/(\d+)$`, Destination: "/posts/$1", MatchType: redirects.Regex, Host: "old.example.com"},
		{Source: "/shop/", Destination: "https://shop.example.com/", MatchType: redirects.StartsWith, Host: "*.example.org"},
	} {
		r.ProjectID, r.StatusCode, r.Priority = e.project.ID, 301, redirects.DefaultPriority
		if err := e.db.AddRule(ctx, &r); err != nil {
			t.Fatalf("%s: %v", r.Source, err)
		}
	}
	rules := "/projects/" + e.project.ID + "/rules"
	rows := func(body string) []string {
		var out []string
		for _, m := range regexp.MustCompile(`(?s)<tr>\s*(.*?)</tr>`).FindAllStringSubmatch(body, -1) {
			cells := regexp.MustCompile(`(?s)<td[^>]*>(.*?)</td>`).FindAllStringSubmatch(m[1], 3)
			if len(cells) == 3 {
				out = append(out, pageText(cells[0][1])+" "+pageText(cells[1][1])+" "+pageText(cells[2][1]))
			}
		}
		return out
	}
	_, body := e.do("GET", rules, nil, true)
	if !strings.Contains(body, `<th scope="col" title="The host a rule answers on; “any” answers on every host">Host</th>`) {
		t.Fatalf("no Host column with host-scoped rules on the page")
	}
	if got := strings.Join(rows(body), "; "); got != `any /:lang/docs/* pattern; any /plain exact; *.example.org /shop/ starts_with; old.example.com ^/p/(\d+)$ regex` {
		t.Errorf("the table's rows: %s", got)
	}
	if !strings.Contains(body, `class="mono path wrap" title="/:lang/docs/*"`) || !strings.Contains(body, `class="mono path" title="/plain"`) {
		t.Errorf("pattern and regex sources do not wrap, or literal ones do")
	}
	_, body = e.do("GET", rules+"?host=OLD.example.com.", nil, true)
	if got := strings.Join(rows(body), "; "); got != `old.example.com ^/p/(\d+)$ regex` || !strings.Contains(pageText(body), "1 rule matches, 1 shown") {
		t.Errorf("filtered by OLD.example.com.: %s", got)
	}
	_, body = e.do("GET", rules+"?match=pattern", nil, true)
	if got := strings.Join(rows(body), "; "); got != `/:lang/docs/* pattern 301` {
		t.Errorf("filtered by pattern: %s", got)
	}
	if strings.Contains(body, `>Host</th>`) {
		t.Errorf("a Host column on a page whose rules have none")
	}
	res, body := e.do("GET", rules+"?host=bad+host", nil, true)
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(html.UnescapeString(body), `Host "bad host" is not a host name`) {
		t.Errorf("a malformed host filter: %d\n%s", res.StatusCode, pageText(body))
	}
}

// TestTestPathTakesAHost explains a path asked of a host: a host-scoped
// rule answers only with it, the page lists what the rule captured, and a
// malformed host is refused naming the field.
func TestTestPathTakesAHost(t *testing.T) {
	e := newEnv(t)
	r := redirects.Rule{ProjectID: e.project.ID, Source: `^/p/(?P<id>\d+)$`, Destination: "/posts/${id}", MatchType: redirects.Regex,
		Host: "old.example.com", StatusCode: 301, Priority: redirects.DefaultPriority}
	if err := e.db.AddRule(context.Background(), &r); err != nil {
		t.Fatal(err)
	}
	test := "/projects/" + e.project.ID + "/test"
	_, body := e.do("GET", test+"?path=/p/7&host=Old.Example.com:8443", nil, true)
	text := pageText(body)
	if !strings.Contains(text, "301 → /posts/7, by rule") || !strings.Contains(body, `<td class="mono">${id}</td><td class="mono">7</td>`) ||
		!strings.Contains(body, `value="Old.Example.com:8443"`) {
		t.Errorf("Test a path of /p/7 on Old.Example.com:8443:\n%s", text)
	}
	_, body = e.do("GET", test+"?path=/p/7", nil, true)
	if text := pageText(body); !strings.Contains(text, "No rule answers /p/7: the edge answers 204") {
		t.Errorf("Test a path of /p/7 without a host:\n%s", text)
	}
	res, _ := e.do("GET", test+"?path=/p/7&host=*.example.com", nil, true)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a wildcard host: %d, want a redirect with the error", res.StatusCode)
	}
	req := httptest.NewRequest("GET", res.Header.Get("Location"), nil)
	req.AddCookie(&http.Cookie{Name: manage.SessionCookie, Value: e.cookie})
	for _, c := range res.Cookies() {
		req.AddCookie(c)
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	if f := flashText(html.UnescapeString(rec.Body.String())); !strings.HasPrefix(f, "Host: give a host name as a browser sends it") {
		t.Errorf("a wildcard host's message: %q", f)
	}
}

// TestMissOnAHost: a miss asked on a host shows its host, and the rule
// made of it answers on that host unless "only on" is unchecked.
func TestMissOnAHost(t *testing.T) {
	e := newEnv(t)
	now := time.Now()
	if err := e.db.AddMisses(context.Background(), []redirects.Miss{
		{ProjectID: e.project.ID, Host: "old.example.com", Path: "/promo", Count: 3, FirstSeen: now, LastSeen: now},
		{ProjectID: e.project.ID, Path: "/gone", Count: 2, FirstSeen: now, LastSeen: now},
	}); err != nil {
		t.Fatal(err)
	}
	misses := "/projects/" + e.project.ID + "/misses"
	_, page := e.do("GET", misses, nil, true)
	if !strings.Contains(page, `<td class="mono host">old.example.com</td>`) || !strings.Contains(page, `<input type="checkbox" name="host" value="old.example.com" checked> only on old.example.com`) {
		t.Fatalf("the misses table does not show the host:\n%s", pageText(page))
	}
	got := e.postFollow(t, misses+"/rule", url.Values{"path": {"/promo"}, "host": {"old.example.com"}, "destination": {"/sale"}, "status": {"302"}})
	if f := flashText(got); f != "Added to the draft: old.example.com /promo → /sale (302). Deploy to make it live." {
		t.Fatalf("a rule from a miss on a host: %q", f)
	}
	if r := e.rule(t, "/promo"); r == nil || r.Host != "old.example.com" {
		t.Fatalf("stored: %+v", r)
	}
	e.postFollow(t, misses+"/rule", url.Values{"path": {"/gone"}, "destination": {""}, "status": {"410"}})
	if r := e.rule(t, "/gone"); r == nil || r.Host != "" {
		t.Fatalf("a rule from a miss without a host: %+v", r)
	}
}
