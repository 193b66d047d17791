package main

import (
	"strings"
	"testing"
)

// TestDashboardFlattenChains flattens a chain from the dashboard in
// Chromium against the real server: the Rules tab leads to the chains
// page, which shows the rewrite and the chain left alone (a 301 into a
// 302); Flatten saves it and opens the Import tab on its Undo, which puts
// the draft back. The pages are checked at 1280 and 375 px (and with
// axe-core when REDIRECTS_TEST_AXE is set).
func TestDashboardFlattenChains(t *testing.T) {
	s := startDashboard(t)
	b := newBrowser(t, s.manage)
	b.open("/login")
	b.fill("Email address", "alice@example.com")
	b.fill("Password", dashboardPassword)
	b.click("Sign in")

	p := strings.TrimSpace(s.cli(t, "", "project", "create", "--org", s.org, "--name", "Chains"))
	s.cli(t, "", "rule", "add", "--project", p, "--source", "/a", "--destination", "/b")
	s.cli(t, "", "rule", "add", "--project", p, "--source", "/b", "--destination", "/c")
	s.cli(t, "", "rule", "add", "--project", p, "--source", "/c", "--destination", "https://elsewhere.example/end")
	s.cli(t, "", "rule", "add", "--project", p, "--source", "/m", "--destination", "/n")
	s.cli(t, "", "rule", "add", "--project", p, "--source", "/n", "--destination", "/o", "--status", "302")

	b.open("/projects/" + p + "/rules")
	b.click("Flatten chains…")
	b.see("Flatten chains", "2 rules to point at the end of their chain", "https://elsewhere.example/end",
		"1 chain left alone", "mixed_status", "Flatten 2 rules")
	b.shot("chains")
	b.click("Flatten 2 rules")
	b.see("Flattened the chains of 2 rules (1 chain left alone). Deploy to make the change live.", "Undo this import")
	if out := s.cli(t, "", "rule", "list", "--project", p); strings.Count(out, "https://elsewhere.example/end") != 3 {
		t.Fatalf("after Flatten the draft is\n%s", out)
	}
	b.click("Undo this import")
	b.see("Import undone")
	if out := s.cli(t, "", "rule", "list", "--project", p); strings.Count(out, "https://elsewhere.example/end") != 1 {
		t.Fatalf("after Undo the draft is\n%s", out)
	}
	b.open("/projects/" + p + "/chains")
	b.see("Flatten 2 rules")
}
