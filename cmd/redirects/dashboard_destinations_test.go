package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/sqlite"
)

// TestDashboardDestinations: the History tab leads to the Destinations
// page in Chromium against the real server, which lists the last check's
// results broken first; a check that runs is shown with its progress in
// place of Check now; Check now starts a check, which the page shows until
// it ends (the server was started
// without --check-allow-private, so the loopback web server is refused,
// and the page says why). The page is checked at 1280 and 375 px (and
// with axe-core when REDIRECTS_TEST_AXE is set): at 375 px each result is
// a card, none reaching past the screen.
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
	b.fits("#destinations table", 375)

	// A check that runs (here one recorded as another node would record
	// it) is shown with its progress, in place of Check now.
	st, err := sqlite.Open(context.Background(), strings.TrimPrefix(s.db, "sqlite:"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	running := &redirects.CheckJob{ID: redirects.NewCheckJobID(), ProjectID: p, Owner: "another node", LeaseUntil: time.Now().Add(time.Hour),
		BaseURL: "https://www.example.com", Total: 2, StartedAt: time.Now()}
	if err := st.StartCheckJob(context.Background(), running); err != nil {
		t.Fatal(err)
	}
	b.open("/projects/" + p + "/destinations")
	b.see("A check runs: 0 of 2 destinations done, 0 broken so far", "2 destinations, 1 broken")
	b.notSee("Check now")
	b.shot("destinations-running")
	if _, err := st.FinishCheckJob(context.Background(), running.ID, nil, 0, "ended by the test"); err != nil {
		t.Fatal(err)
	}
	b.open("/projects/" + p + "/destinations")
	b.click("Check now")
	b.see("Check started: 2 destinations to request.")
	// The check runs in the background: the page shows its progress until
	// it ends, read again by its link.
	for i := 0; i < 100 && strings.Contains(b.text(), "A check runs"); i++ {
		time.Sleep(50 * time.Millisecond)
		b.click("Show its progress again")
	}
	b.see("Checked 2 destinations: 0 broken.", "refused", "--check-allow-private")
	b.shot("destinations-refused")
	b.fits("#destinations table", 375)
}
