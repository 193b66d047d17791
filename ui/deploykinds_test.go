package ui

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"redirects"
)

// TestHistoryCountsKinds checks that the History tab and the rollback page
// count pattern and regex rules apart from starts_with rules, and show no
// pattern or regex column while no version has such rules.
func TestHistoryCountsKinds(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	add := func(source, dest string, m redirects.MatchType) {
		t.Helper()
		if err := e.db.AddRule(ctx, &redirects.Rule{ProjectID: e.project.ID, Source: source, Destination: dest, StatusCode: 301, MatchType: m, Priority: 100}); err != nil {
			t.Fatal(err)
		}
	}
	deploy := func() {
		t.Helper()
		if res, body := e.do("POST", "/projects/"+e.project.ID+"/deploy", url.Values{"csrf": {e.csrf}, "message": {"m"}}, true); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("deploy: %d\n%s", res.StatusCode, body)
		}
	}
	history := "/projects/" + e.project.ID + "/history"
	add("/a", "/b", redirects.Exact)
	add("/blog", "/news", redirects.StartsWith)
	deploy()
	_, page := e.do("GET", history, nil, true)
	if strings.Contains(page, `class="num">pattern</th>`) || strings.Contains(page, `class="num">regex</th>`) {
		t.Fatalf("the history of a project without pattern or regex rules has their columns:\n%s", page)
	}

	add("/:lang/docs/*", "/:lang/guide/:splat", redirects.Pattern)
	add("/v/:n", "/version/:n", redirects.Pattern)
	add(`^/p/(\d+)$`, "/posts/$1", redirects.Regex)
	got := e.postFollow(t, "/projects/"+e.project.ID+"/deploy", url.Values{"message": {"m"}})
	if f, want := html.UnescapeString(flashText(got)), "Deployed version 2 (1 exact rule, 1 starts_with rule, 2 pattern rules, 1 regex rule)."; !strings.HasPrefix(f, want) {
		t.Fatalf("after the deploy: %q, want it to start with %q", f, want)
	}
	_, page = e.do("GET", history, nil, true)
	for _, want := range []string{`<th scope="col" class="num">starts_with</th><th scope="col" class="num">pattern</th><th scope="col" class="num">regex</th>`,
		"<td class=\"num\">1</td>\n<td class=\"num\">2</td><td class=\"num\">1</td>",
		"<td class=\"num\">1</td>\n<td class=\"num\">0</td><td class=\"num\">0</td>"} {
		if !strings.Contains(page, want) {
			t.Fatalf("the history lacks %q:\n%s", want, page)
		}
	}
	_, page = e.do("GET", history+"/2/rollback", nil, true)
	if want := "(1 exact rule, 1 starts_with rule, 2 pattern rules, 1 regex rule"; !strings.Contains(html.UnescapeString(page), want) {
		t.Fatalf("the rollback page lacks %q:\n%s", want, page)
	}
	_, page = e.do("GET", history+"/1/rollback", nil, true)
	if p := html.UnescapeString(page); !strings.Contains(p, "(1 exact rule, 1 starts_with rule, “m”)") {
		t.Fatalf("the rollback page of a version without pattern rules does not read as before:\n%s", page)
	}
}
