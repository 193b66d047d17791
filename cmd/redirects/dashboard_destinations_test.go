package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestDashboardDestinations: the History tab leads to the Destinations
// page in Chromium against the real server, which lists the last check's
// results broken first; Check now checks again (the server was started
// without --check-allow-private, so the loopback web server is refused,
// and the page says why). The page is checked at 1280 and 375 px (and
// with axe-core when REDIRECTS_TEST_AXE is set).
func TestDashboardDestinations(t *testing.T) {
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/gone" {
			http.NotFound(w, r)
		}
	}))
	defer web.Close()
	s := startDashboard(t)
	b := newBrowser(t, s.manage)
	b.open("/login")
	b.fill("Email address", "alice@example.com")
	b.fill("Password", dashboardPassword)
	b.click("Sign in")

	p := strings.TrimSpace(s.cli(t, "", "project", "create", "--org", s.org, "--name", "Links"))
	s.cli(t, "", "project", "update", "--project", p, "--host", "www.example.com")
	s.cli(t, "", "rule", "add", "--project", p, "--source", "/a", "--destination", web.URL+"/fine")
	s.cli(t, "", "rule", "add", "--project", p, "--source", "/b", "--destination", web.URL+"/gone")
	s.cli(t, "", "deploy", "--project", p)

	b.open("/projects/" + p + "/history")
	b.click("Destinations of the live version…")
	b.see("Destinations", "No check yet.", "Check now")
	s.cli(t, "", "check", "--project", p, "--check-allow-private")
	b.open("/projects/" + p + "/destinations")
	b.see("2 destinations, 1 broken", web.URL+"/gone", "404")
	if body := b.text(); strings.Index(body, web.URL+"/gone") > strings.Index(body, web.URL+"/fine") {
		t.Errorf("the broken destination is not listed first:\n%s", body)
	}
	b.shot("destinations")
	b.click("Check now")
	b.see("Checked 2 destinations: 0 broken.", "refused", "--check-allow-private")
}
