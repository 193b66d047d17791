package main

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"redirects/safety"
)

// TestDashboardDesign walks every page of a project and of its
// organization with realistic data: hundreds of rules with long
// destinations, dozens of deployments, sync agents reporting, misses and
// usage. Every page is checked at 1280 and 375 px by shot (no sideways
// scrolling, no table wider than its box at 1280 px, the design rules of
// ui/static/app.css, and axe-core with target-size when
// REDIRECTS_TEST_AXE is set). Beyond those, the findings of the first
// hour's review (issue 37, finding 9): the rules table fits at 1280 px
// with its Delete buttons whole, and a rule's destination is in view at
// 375 px; History tells "Roll back to version N" from "Make version N
// live" in words and in colour; a sign-in with a one-time password shows
// an info note, no error; the Settings help names every status the test
// file takes; the import report shows changed and skipped lines in
// different colours, each with its line.
func TestDashboardDesign(t *testing.T) {
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
	js := func(expr string) string {
		t.Helper()
		return get(b, chromedp.Evaluate[string](expr))
	}

	// Hundreds of rules, many with long destinations, some on a host.
	var csv strings.Builder
	csv.WriteString("source,destination,statusCode,matchType\n")
	long := "https://www.example-retailer-with-a-long-name.com/collections/seasonal/autumn-winter-2026/outerwear/jackets-and-coats/waterproof?utm_source=migration&utm_medium=redirect&utm_campaign=replatform"
	for i := range 260 {
		fmt.Fprintf(&csv, "/products/legacy-catalogue-item-number-%04d-with-a-descriptive-slug,%s&item=%d,301,exact\n", i, long, i)
	}
	for i := range 40 {
		fmt.Fprintf(&csv, "/promo-%d,/sale/%d,302,exact\n", i, i)
	}
	for i := range 20 {
		fmt.Fprintf(&csv, "/gone-%d,,410,exact\n", i)
	}
	for i := range 20 {
		fmt.Fprintf(&csv, "/section-%d/,/new-section-%d/,301,starts_with\n", i, i)
	}
	s.cli(t, csv.String(), "rule", "import", "--project", project, "-")
	s.cli(t, "", "rule", "add", "--project", project, "--source", "/en/:page/*", "--destination", "/guide/:page/:splat", "--match", "pattern")
	s.cli(t, "", "rule", "add", "--project", project, "--host", "shop.example.com", "--source", "/checkout-with-a-very-long-legacy-path/step-one", "--destination", long)

	// Dozens of deployments.
	s.cli(t, "", "deploy", "--project", project, "--message", "Migration from the old platform")
	for i := range 24 {
		s.cli(t, "", "rule", "add", "--project", project, "--source", fmt.Sprintf("/campaign-%d", i), "--destination", fmt.Sprintf("/landing/%d", i))
		s.cli(t, "", "deploy", "--project", project, "--message", fmt.Sprintf("Campaign %d landing page", i))
	}

	// Agents reporting: sync agents on three servers applied the live
	// version; an API key counts hits and misses.
	secret := strings.TrimSpace(s.cli(t, "", "key", "create", "--project", project, "--name", "storefront"))
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
	waitFor(t, "the edge answers with the new key", func() bool { return edge("/promo-1") == http.StatusOK })
	dir := t.TempDir()
	for i, format := range []string{"nginx", "haproxy", "nginx"} {
		out := filepath.Join(dir, fmt.Sprintf("web-%d-redirects.conf", i))
		s.cli(t, "", "sync", "--edge", s.edge, "--key", secret, "--project", project, "--format", format, "--out", out, "--once")
	}
	for i := range 30 {
		edge(fmt.Sprintf("/missing/an-old-page-nobody-redirected-%d-with-a-long-path-that-goes-on", i%12))
		edge(fmt.Sprintf("/promo-%d", i%7))
	}
	waitFor(t, "the Misses tab lists the misses", func() bool {
		b.open("/projects/" + project + "/misses")
		return strings.Contains(b.text(), "an-old-page-nobody-redirected-0")
	})
	waitFor(t, "the History tab lists the three servers", func() bool {
		b.open("/projects/" + project + "/history")
		return strings.Contains(b.text(), "web-2-redirects.conf")
	})

	// Every page of the project and of the organization, checked by shot.
	for _, tab := range []string{"rules", "import", "deploy", "history", "test?path=/promo-3", "misses", "keys", "settings"} {
		b.open("/projects/" + project + "/" + tab)
		b.shot("design-" + strings.SplitN(tab, "?", 2)[0])
	}
	b.open("/projects/" + project + "/rules?q=" + url.QueryEscape("/products/*"))
	b.shot("design-rules-filtered")
	for _, tab := range []string{"", "/members", "/tokens", "/webhooks", "/usage", "/audit"} {
		b.open("/orgs/" + s.org + tab)
		b.shot("design-org" + strings.ReplaceAll(tab, "/", "-"))
	}

	// The rules table at 1280 px: no wider than its box, every Delete
	// button whole; at 375 px every destination in view.
	b.open("/projects/" + project + "/rules")
	b.see("50 shown")
	b.run(chromedp.EmulateViewport(1280, 800))
	if msg := js(`(() => {
		const wrap = document.querySelector('table.rules').closest('.table-wrap');
		const box = wrap.getBoundingClientRect();
		const out = [];
		if (wrap.scrollWidth > wrap.clientWidth) out.push('the table is ' + (wrap.scrollWidth - wrap.clientWidth) + ' px wider than its box');
		const dels = [...document.querySelectorAll('table.rules a.danger')];
		if (dels.length < 50) out.push(dels.length + ' Delete buttons');
		for (const d of dels) {
			const r = d.getBoundingClientRect();
			if (r.right > box.right || d.scrollWidth > d.clientWidth) { out.push('a Delete button is cut: right ' + r.right + ' of a box ending at ' + box.right); break; }
		}
		return out.join('; ');
	})()`); msg != "" {
		t.Errorf("the rules table at 1280 px: %s", msg)
	}
	b.run(chromedp.EmulateViewport(375, 800))
	if msg := js(`(() => {
		const cells = [...document.querySelectorAll('table.rules td[data-label="Destination"]')];
		if (cells.length < 50) return cells.length + ' destination cells';
		for (const c of cells) {
			const r = c.getBoundingClientRect();
			if (r.left < 0 || r.right > document.documentElement.clientWidth || r.width < 100) return 'a destination cell spans ' + r.left + ' to ' + r.right + ' px of a ' + document.documentElement.clientWidth + ' px screen';
		}
		return '';
	})()`); msg != "" {
		t.Errorf("the rules table at 375 px: %s", msg)
	}
	b.run(chromedp.EmulateViewport(1280, 800))

	// History: the two actions of an older version, told apart.
	b.open("/projects/" + project + "/history")
	b.see("Roll back to version N", "deploys a new version with the rules of version N", "Make version N live", "makes version N itself live again")
	apart := js(`(() => {
		const rb = document.querySelector('a[href$="/history/3/rollback"]');
		const ml = [...document.querySelectorAll('button')].find(e => e.textContent.trim() === 'Make version 3 live');
		if (!rb || !ml) return 'rollback ' + !!rb + ', make live ' + !!ml;
		const out = [];
		const a = getComputedStyle(rb), c = getComputedStyle(ml);
		if (a.color === c.color && a.borderTopColor === c.borderTopColor && a.backgroundColor === c.backgroundColor) out.push('both look alike: ' + a.color + ' ' + a.borderTopColor);
		for (const e of [rb, ml]) {
			const d = document.getElementById(e.getAttribute('aria-describedby') || '');
			if (!d || d.textContent.trim().length < 20) out.push(e.textContent.trim() + ' has no description');
			if (!e.querySelector('svg')) out.push(e.textContent.trim() + ' has no icon');
		}
		return out.join('; ');
	})()`)
	if apart != "" {
		t.Errorf("History: %s", apart)
	}
	b.shot("design-history-actions")

	// The Settings help names every status the test file takes.
	b.open("/projects/" + project + "/settings")
	help := js(`[...document.querySelectorAll('p')].find(p => p.textContent.includes('path,status,destination')).textContent`)
	for _, st := range acceptedCaseStatuses(t) {
		if !strings.Contains(help, st) {
			t.Errorf("the Settings help does not name status %s, which a test file takes:\n%s", st, help)
		}
	}

	// The import report: changed and skipped lines look different; every
	// listed line shows its text, a repeated Shopify source too.
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	upload := func(path string) {
		t.Helper()
		b.open("/projects/" + project + "/import")
		b.run(chromedp.SetUploadFiles(chromedp.ID("import-file"), []string{path}))
		b.click("Check file")
	}
	upload(write("_redirects", "/blog/* /news/:splat 301\n/temp /elsewhere 307\n/app/* /index.html 200\n/country / 302 Country=us\n/fresh /new 301\n"))
	b.see("Changed: 1 line", "Skipped: 2 lines", "Apply")
	looks := js(`(() => {
		const chip = c => document.querySelector('#import-lines tr[data-class="' + c + '"] .chip');
		const ch = chip('changed'), sk = chip('skipped');
		if (!ch || !sk) return 'changed ' + !!ch + ', skipped ' + !!sk;
		const a = getComputedStyle(ch), c = getComputedStyle(sk);
		const out = [];
		if (a.color === c.color || a.backgroundColor === c.backgroundColor) out.push('the chips share a colour: ' + a.color + ' on ' + a.backgroundColor + ', ' + c.color + ' on ' + c.backgroundColor);
		const border = id => getComputedStyle(document.getElementById(id)).borderLeftColor;
		if (border('class-changed') === border('class-skipped') || border('class-changed') === border('class-as-is')) out.push('the class summaries share a colour');
		return out.join('; ');
	})()`)
	if looks != "" {
		t.Errorf("the import report: %s", looks)
	}
	// Apply is the page's one primary action; Check file no longer is.
	if got := js(`[...document.querySelectorAll('main button.primary')].map(e => e.textContent.trim()).join(',')`); got != "Apply" {
		t.Errorf("the import report's primary actions: %q, want Apply", got)
	}
	b.shot("design-import-report")
	upload(write("redirects.csv", "Redirect from,Redirect to\n/a,/b\n/c,/d\n/a,/e\n"))
	b.see("Skipped: 1 line")
	if rows := js(`[...document.querySelectorAll('#import-lines tbody tr')].map(tr => tr.dataset.line + ' ' + ((tr.querySelector('code.line-text') || {}).textContent || '')).join('\n')`); rows != "4 /a,/e" {
		t.Errorf("the import report's lines: %q, want line 4 with its text /a,/e", rows)
	}

	// A sign-in with a one-time password: an info note, no error box.
	_, errs, code := inProcess(t, s.db, "", "user", "reset-password", "alice@example.com")
	if code != 0 || !strings.Contains(errs, "one-time password") {
		t.Fatalf("user reset-password: %d %s", code, errs)
	}
	once := strings.Fields(errs[strings.Index(errs, "(shown only now): ")+len("(shown only now): "):])[0]
	b.click("Sign out")
	b.fill("Email address", "alice@example.com")
	b.fill("Password", once)
	b.click("Sign in")
	b.see("Your password is a one-time password someone else chose: set your own to go on.")
	if msg := js(`(() => {
		const bad = [...document.querySelectorAll('main .flash.error, main [role=alert]')].map(e => e.textContent.trim());
		const note = document.querySelector('main .note');
		if (bad.length) return 'an error box: ' + bad.join(' | ');
		if (!note || !note.textContent.includes('one-time password') || !note.querySelector('svg')) return 'no info note with its icon';
		return '';
	})()`); msg != "" {
		t.Errorf("a sign-in with a one-time password: %s", msg)
	}
	b.shot("design-password-required")
}

// acceptedCaseStatuses answers the statuses a test file's status column
// takes, as safety.ParseCases reads them: every code from 100 to 599 and
// the word none, each tried with and without a destination.
func acceptedCaseStatuses(t *testing.T) []string {
	t.Helper()
	var out []string
	try := func(st string) bool {
		for _, dest := range []string{"/x", ""} {
			if _, err := safety.ParseCases(strings.NewReader("path,status,destination\n/p," + st + "," + dest + "\n")); err == nil {
				return true
			}
		}
		return false
	}
	for code := 100; code < 600; code++ {
		if st := strconv.Itoa(code); try(st) {
			out = append(out, st)
		}
	}
	if try("none") {
		out = append(out, "none")
	}
	if len(out) < 3 {
		t.Fatalf("the test file takes only %v", out)
	}
	return out
}
