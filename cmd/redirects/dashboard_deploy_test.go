package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestDashboardDeployPageLeads: with a realistic draft (hundreds of rules,
// warnings, export differences, a miss log), the Deploy page at 1280x800
// shows the summary and the Deploy button within its first 900 px, blocked
// or not; it lists at most 20 changed paths, whose rests come from the
// miss log or read "example", never "_"; and it states each kind of export
// difference once, collapsed.
func TestDashboardDeployPageLeads(t *testing.T) {
	s := startDashboard(t)
	b := newBrowser(t, s.manage)
	b.open("/login")
	b.fill("Email address", "alice@example.com")
	b.fill("Password", dashboardPassword)
	b.click("Sign in")
	b.fill("Project name", "Shop")
	b.click("Create project")
	m := projectPath.FindStringSubmatch(b.location())
	if m == nil {
		t.Fatalf("after creating a project: %s", b.location())
	}
	project := m[1]

	// Version 1 and a key, so that the edge counts misses.
	s.cli(t, "", "rule", "add", "--project", project, "--source", "/start", "--destination", "/begin")
	s.cli(t, "", "deploy", "--project", project)
	secret := strings.TrimSpace(s.cli(t, "", "key", "create", "--project", project))
	edge := func(path string) int {
		req, _ := http.NewRequest("GET", s.edge+"/v1/lookup?project="+project+"&path="+url.QueryEscape(path), nil)
		req.Header.Set("X-API-Key", secret)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("edge: %v", err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	// The edge loads the new key within a second or so.
	waitFor(t, "the edge answers a missed path with 204", func() bool { return edge("/catalog/shoes/red") == http.StatusNoContent })
	waitFor(t, "the miss log holds /catalog/shoes/red", func() bool {
		return strings.Contains(s.cli(t, "", "misses", "--project", project), "/catalog/shoes/red")
	})

	var csv strings.Builder
	csv.WriteString("source,destination,statusCode,matchType\n")
	for i := range 120 {
		fmt.Fprintf(&csv, "/page-%d,/p/%d,301,exact\n", i, i)
	}
	for i := range 40 {
		fmt.Fprintf(&csv, "/promo-%d,/sale/%d,302,exact\n", i, i)
	}
	for i := range 20 {
		fmt.Fprintf(&csv, "/gone-%d,,410,exact\n", i)
	}
	for i := range 40 {
		fmt.Fprintf(&csv, "/sec-%d/,/section/%d/,301,starts_with\n", i, i)
	}
	for i := range 12 {
		fmt.Fprintf(&csv, "/chain-%d,/page-%d,301,exact\n", i, i) // a warning each
	}
	for i := range 3 {
		fmt.Fprintf(&csv, "/archive-%d/,/old/,301,starts_with\n", i)
	}
	s.cli(t, csv.String(), "rule", "import", "--project", project, "-")
	s.cli(t, "", "rule", "add", "--project", project, "--source", "/catalog/", "--destination", "/shop/", "--match", "starts_with", "--preserve-path")

	js := func(expr string) string {
		t.Helper()
		return get(b, chromedp.Evaluate[string](expr))
	}
	// leads checks, at 1280x800, that the summary comes before the button
	// and the button ends within the first 900 px of the page.
	leads := func(name, button string) {
		t.Helper()
		b.run(chromedp.EmulateViewport(1280, 800))
		got := js(fmt.Sprintf(`(() => {
			const btn = [...document.querySelectorAll("button")].find(e => e.textContent.trim() === %q);
			const sum = document.getElementById("diff-summary");
			if (!btn || !sum) return "button " + !!btn + ", summary " + !!sum;
			const y = e => e.getBoundingClientRect().top + window.scrollY;
			const bottom = btn.getBoundingClientRect().bottom + window.scrollY;
			return Math.round(y(sum)) + " " + Math.round(bottom) + " " + document.documentElement.scrollHeight;
		})()`, button))
		var sum, bottom, height int
		if _, err := fmt.Sscan(got, &sum, &bottom, &height); err != nil {
			t.Fatalf("%s: %s", name, got)
		}
		if sum >= bottom || bottom > 900 {
			t.Errorf("%s: the summary at %d px, the %q button ending at %d px of a %d px page; want the summary first and the button within 900 px", name, sum, button, bottom, height)
		}
		t.Logf("%s: summary at %d px, button ends at %d px, page %d px", name, sum, bottom, height)
	}

	b.open("/projects/" + project + "/deploy")
	b.see("Draft: 236 changes not deployed", "Checks pass", "Export files:")
	leads("deploy", "Deploy version 2")
	paths := js(`[...document.querySelectorAll("#changed-paths li")].map(e => e.textContent).join("\n")`)
	if n := strings.Count(paths, "\n") + 1; n > 20 || paths == "" {
		t.Errorf("the page lists %d changed paths, want 1 to 20:\n%s", n, paths)
	}
	if !strings.Contains(paths, "/catalog/shoes/red: no redirect → 301 /shop/shoes/red") {
		t.Errorf("the sample path below /catalog/ does not take its rest from the miss log:\n%s", paths)
	}
	if !strings.Contains(paths, "/archive-0/example: no redirect → 301 /old/") {
		t.Errorf("the sample path below /archive-0/ is not /archive-0/example:\n%s", paths)
	}
	if strings.Contains(b.text(), "/_") {
		t.Errorf("the page shows a sample path ending in /_:\n%s", b.text())
	}
	b.see("more (redirects diff --project " + project + " --max-paths -1 lists every one)")
	if open := js(`String(document.getElementById("export-report").open)`); open != "false" {
		t.Errorf("the export report is open (%s); want it collapsed under its one-line summary", open)
	}
	kinds := js(`[...document.querySelectorAll("#export-report li")].map(e => e.textContent).join("\n")`)
	if strings.Count(kinds, "statusCode 410") != 1 || strings.Count(kinds, "statusCode 302") != 1 || !strings.Contains(kinds, "nginx-map-exact, haproxy-map-exact: exact rules with statusCode 410") {
		t.Errorf("the export report does not state the maps' 302 and 410 differences once each, naming both maps:\n%s", kinds)
	}
	if strings.Contains(b.text(), "SPEC") {
		t.Errorf("the page names a file that is not in the repository")
	}
	b.shot("deploy-page")

	// Blocked by a loop: the reason and the (danger) button still lead.
	s.cli(t, "", "rule", "add", "--project", project, "--source", "/loop-a", "--destination", "/loop-b")
	s.cli(t, "", "rule", "add", "--project", project, "--source", "/loop-b", "--destination", "/loop-a")
	b.open("/projects/" + project + "/deploy")
	b.see("This deploy is blocked", "Errors, which block the deploy", "redirect loop of 2 rules")
	leads("deploy blocked", "Deploy version 2")
	b.shot("deploy-page-blocked")
}
