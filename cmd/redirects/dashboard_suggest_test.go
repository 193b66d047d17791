package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestDashboardSuggestions turns misses into rules from the Misses tab in
// Chromium against the real server: lookups of the edge miss two paths,
// Suggest rules proposes the rule differing only in case and the folder
// rewrite; Accept puts the first in the draft, Dismiss drops the second
// for good (computing again does not bring it back), and a sitemap URL
// on a loopback address is refused with the webhooks' words. The page is
// checked at 1280 and 375 px (and with axe-core when REDIRECTS_TEST_AXE
// is set).
func TestDashboardSuggestions(t *testing.T) {
	s := startDashboard(t)
	b := newBrowser(t, s.manage)
	b.open("/login")
	b.fill("Email address", "alice@example.com")
	b.fill("Password", dashboardPassword)
	b.click("Sign in")

	p := strings.TrimSpace(s.cli(t, "", "project", "create", "--org", s.org, "--name", "Suggest"))
	s.cli(t, "", "rule", "add", "--project", p, "--source", "/Docs/Intro", "--destination", "/guide/intro")
	s.cli(t, "", "rule", "add", "--project", p, "--source", "/old/a.html", "--destination", "/new/a")
	s.cli(t, "", "rule", "add", "--project", p, "--source", "/old/b.html", "--destination", "/new/b")
	s.cli(t, "", "deploy", "--project", p)
	secret := strings.TrimSpace(s.cli(t, "", "key", "create", "--project", p))
	edge := func(path string) int {
		req, _ := http.NewRequest("GET", s.edge+"/v1/lookup?project="+p+"&path="+url.QueryEscape(path), nil)
		req.Header.Set("X-API-Key", secret)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		res.Body.Close()
		return res.StatusCode
	}
	waitFor(t, "the edge misses /docs/intro", func() bool { return edge("/docs/intro") == http.StatusNoContent })
	edge("/old/c.html")
	waitFor(t, "both misses in the miss log", func() bool {
		out := s.cli(t, "", "misses", "--project", p)
		return strings.Contains(out, "/docs/intro") && strings.Contains(out, "/old/c.html")
	})

	b.open("/projects/" + p + "/misses")
	b.see("Suggestions", "No open suggestion.", "Missed paths", "/old/c.html")
	b.click("Suggest rules")
	b.see("2 suggestions. Accept one to add its rule to the draft.", "/guide/intro", "the rule /Docs/Intro differs only in case", "/new/c", "2 of the 2 rules under /old/")
	b.shot("suggestions")
	b.click("Accept")
	b.see("Added to the draft: /docs/intro → /guide/intro (301). Deploy to make it live.")
	if out := s.cli(t, "", "rule", "list", "--project", p); !strings.Contains(out, "/docs/intro") {
		t.Fatalf("after Accept the draft is\n%s", out)
	}
	b.click("Dismiss")
	b.see("Dismissed. It will not be suggested again.", "No open suggestion.")
	b.click("Suggest rules")
	b.see("No suggestion: no missed path looks like a rule or a page.")
	b.notSee("/new/c")

	b.fill("Sitemap URL (optional)", s.manage+"/sitemap.xml")
	b.click("Suggest rules")
	b.see("No suggestions: Sitemap "+s.manage+"/sitemap.xml: ", "refused: not a public address")
	if out := s.cli(t, "", "suggest", "list", "--project", p); !strings.Contains(out, "accepted") || !strings.Contains(out, "dismissed") {
		t.Fatalf("suggest list after the dashboard:\n%s", out)
	}
}
