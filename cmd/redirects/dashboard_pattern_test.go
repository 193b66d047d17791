package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// fullShot saves the whole page at 1280 px and 375 px wide (shot saves
// what the window shows), checking each width as shot does.
func (b *browser) fullShot(name string) {
	b.t.Helper()
	b.n++
	for _, w := range []int64{1280, 375} {
		b.run(chromedp.EmulateViewport(w, 800), chromedp.Sleep(50*time.Millisecond))
		b.checkPage(name, w)
		png := get(b, chromedp.FullScreenshot(100))
		if err := os.WriteFile(filepath.Join(b.dir, fmt.Sprintf("%02d-%s-full-%d.png", b.n, name, w)), png, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
	b.run(chromedp.EmulateViewport(1280, 800))
}

// TestDashboardPatternRules walks pattern and regex rules in Chromium
// (docs/contract.md#pattern-rules): the add form previews what a sample
// request captures and is answered without saving, adds a pattern rule and
// a host-scoped regex rule, refuses a malformed pattern, a malformed regex
// and an undefined capture beside the field with the position and adds
// nothing; the edit form previews and saves; the table filters by match
// type and host, shows the host column and wraps long sources without
// scrolling sideways; the deploy page names hosts; Test a path takes a
// host and shows the captures; the delete confirmation names the host.
func TestDashboardPatternRules(t *testing.T) {
	s := startDashboard(t)
	b := newBrowser(t, s.manage)
	b.open("/login")
	b.fill("Email address", "alice@example.com")
	b.fill("Password", dashboardPassword)
	b.click("Sign in")
	b.fill("Project name", "Docs")
	b.click("Create project")
	m := projectPath.FindStringSubmatch(b.location())
	if m == nil {
		t.Fatalf("after creating a project: %s", b.location())
	}
	project := m[1]
	rules := "/projects/" + project + "/rules"

	// The form explains the syntax beside the fields, with the regex
	// rules counted against the limit.
	b.open(rules)
	b.see("How a source matches", "/:lang/docs/* → /:lang/guide/:splat", `^/p/(\d+)$ → /posts/$1`, "/index.php?p=:id",
		"0 of 10,000 regex rules in this project.")

	// Preview a pattern rule: what each placeholder captures and the
	// answer, and nothing is saved.
	b.fill("Source path", "/:lang/docs/*")
	b.choose("Match type", "pattern")
	b.fill("Destination", "/:lang/guide/:splat")
	b.fill("Sample path", "/en/docs/setup/linux?ref=mail")
	b.click("Preview")
	b.see("Matches /en/docs/setup/linux?ref=mail: answers 301 → /en/guide/setup/linux",
		"What each placeholder captures", "nothing is saved until you press “Add rule”", "0 rules, 0 shown")
	caps := get(b, chromedp.Evaluate[string](`[...document.querySelectorAll(".captures tbody tr")].map(r => r.cells[0].textContent + "=" + r.cells[1].textContent).join(" ")`))
	if caps != ":lang=en :splat=setup/linux" {
		t.Errorf("the preview's captures: %q, want :lang=en :splat=setup/linux", caps)
	}
	b.shot("rule-preview-pattern")
	b.fullShot("rule-preview-pattern")
	// A path it does not match says so.
	b.fill("Sample path", "/docs/setup")
	b.click("Preview")
	b.see("Does not match /docs/setup. The sample path does not match the source.", "0 rules, 0 shown")
	b.click("Add rule")
	b.see("Added pattern rule /:lang/docs/* → /:lang/guide/:splat. Deploy to make it live.", "1 rule, 1 shown")

	// A regex rule scoped to a host: without the host, the preview says
	// the rule does not answer; with it, group 1 and the answer.
	b.fill("Source path", `^/p/(\d+)$`)
	b.choose("Match type", "regex")
	b.fill("Destination", "/posts/$1")
	b.fill("Host (optional)", "old.example.com")
	b.fill("Sample path", "/p/42")
	b.click("Preview")
	b.see("Does not match /p/42. This rule answers only requests for old.example.com: give a sample host.")
	b.fill("Sample host", "old.example.com")
	b.click("Preview")
	b.see("Matches /p/42 on old.example.com: answers 301 → /posts/42")
	caps = get(b, chromedp.Evaluate[string](`[...document.querySelectorAll(".captures tbody tr")].map(r => r.cells[0].textContent + "=" + r.cells[1].textContent).join(" ")`))
	if caps != "$1=42" {
		t.Errorf("the regex preview's captures: %q, want $1=42", caps)
	}
	b.shot("rule-preview-regex")
	b.click("Add rule")
	b.see(`Added regex rule old.example.com ^/p/(\d+)$ → /posts/$1. Deploy to make it live.`, "2 rules, 2 shown",
		"1 of 10,000 regex rules in this project.")

	// Bad input: the error under its field, with the position marked,
	// the values as typed, and nothing added.
	for _, tc := range []struct {
		name, source, match, dest, field, says, marked string
	}{
		{"pattern", "/docs/*/more/*", "pattern", "/x", "new-source-error", "a second multi-segment placeholder", "*"},
		{"regex", `^/p/(\d+$`, "regex", "/posts/$1", "new-source-error", "missing closing )", ""},
		{"capture", "/a/:id", "pattern", "/b/:slug", "new-destination-error", "slug", ":"},
	} {
		b.open(rules)
		b.fill("Source path", tc.source)
		b.choose("Match type", tc.match)
		b.fill("Destination", tc.dest)
		b.click("Add rule")
		b.see("The rule was not added:", "2 rules, 2 shown")
		got := get(b, chromedp.Evaluate[string](fmt.Sprintf(`(() => { const e = document.getElementById(%q); return e ? e.textContent : ""; })()`, tc.field)))
		if !strings.Contains(got, tc.says) || !strings.Contains(strings.ToLower(got), "position") && !strings.Contains(got, "at byte") {
			t.Errorf("%s: the error under the field says %q, want %q with the position", tc.name, got, tc.says)
		}
		mark := get(b, chromedp.Evaluate[string](fmt.Sprintf(`(() => { const e = document.querySelector("#%s mark"); return e ? "mark:" + e.textContent : "none"; })()`, tc.field)))
		if !strings.HasPrefix(mark, "mark:") || tc.marked != "" && mark != "mark:"+tc.marked {
			t.Errorf("%s: the marked position: %q, want %q", tc.name, mark, tc.marked)
		}
		if v := get(b, chromedp.Evaluate[string](`document.getElementById("new-source").value`)); v != tc.source {
			t.Errorf("%s: the source field holds %q after the refusal, want it as typed", tc.name, v)
		}
		b.shot("rule-refused-" + tc.name)
	}
	b.fullShot("rule-refused-capture")

	// Edit the pattern rule: preview the change, then save it.
	b.open(rules + "?match=pattern")
	b.see("1 rule matches, 1 shown", "/:lang/docs/*")
	b.click("Edit")
	b.see("Edit rule /:lang/docs/*")
	b.fill("Destination", "/:lang/manual/:splat")
	b.fill("Sample path", "/de/docs/api")
	b.click("Preview")
	b.see("Matches /de/docs/api: answers 301 → /de/manual/api", "nothing is saved until you press “Save rule”")
	b.shot("rule-edit-preview")
	b.click("Save rule")
	b.see("Saved rule /:lang/docs/* → /:lang/manual/:splat. Deploy to make the change live.")

	// Long sources wrap rather than widen the page.
	long := "^/archive/(?P<year>[0-9]{4})/(?P<month>[0-9]{2})/(?P<slug>[a-z0-9-]+)-(?:draft|final|published|unpublished|review)-(?:[a-z]{2}|[a-z]{2}-[a-z]{2})/(?:index|page|print|amp)\\.html$"
	b.open(rules)
	b.fill("Source path", long)
	b.choose("Match type", "regex")
	b.fill("Destination", "https://blog.example.com/${year}/${month}/${slug}")
	b.fill("Host (optional)", "*.example.org")
	b.click("Add rule")
	b.see("Added regex rule *.example.org "+long, "3 rules, 3 shown")

	// Filters: by match type, by host; the host column shows.
	b.open(rules + "?match=regex")
	b.see("2 rules match, 2 shown", "Host", "old.example.com", "*.example.org")
	b.fullShot("rules-regex")
	b.open(rules)
	b.fill("Host", "old.example.com")
	b.click("Apply")
	b.see("1 rule matches, 1 shown", `^/p/(\d+)$`)
	if rows := get(b, chromedp.Evaluate[string](`[...document.querySelectorAll("table.rules tbody tr")].map(r => r.cells[0].textContent + " " + r.cells[1].textContent).join("; ")`)); rows != `old.example.com ^/p/(\d+)$` {
		t.Errorf("the rules of host old.example.com: %q", rows)
	}
	b.shot("rules-host")
	b.open(rules)
	b.see("3 rules, 3 shown", "any")
	b.fullShot("rules-patterns")

	// The deploy page names each added rule's host.
	b.open("/projects/" + project + "/deploy")
	b.see("Added (3)", `old.example.com ^/p/(\d+)$`, "*.example.org ^/archive/", "on old.example.com: no redirect → 301 /posts/")
	b.fullShot("deploy-patterns")

	// Test a path takes a host, and shows what the answering rule captured.
	b.open("/projects/" + project + "/test")
	b.fill("Path", "/p/7")
	b.fill("Host", "old.example.com")
	b.click("Test")
	b.see(`301 → /posts/7, by rule 2 (regex old.example.com ^/p/(\d+)$).`)
	if caps := get(b, chromedp.Evaluate[string](`[...document.querySelectorAll(".captures tbody tr")].map(r => r.cells[0].textContent + "=" + r.cells[1].textContent).join(" ")`)); caps != "$1=7" {
		t.Errorf("Test a path's captures: %q, want $1=7", caps)
	}
	b.shot("test-host")
	// Without the host, the host-scoped rule does not answer.
	b.open("/projects/" + project + "/test?path=/p/7")
	b.see("No rule answers /p/7: the edge answers 204 (no redirect).")

	// Delete the host-scoped rule: the confirmation names its host.
	b.open(rules + "?host=old.example.com")
	b.click("Delete")
	b.see(`Delete rule old.example.com ^/p/(\d+)$?`, `The regex rule ^/p/(\d+)$ on old.example.com → /posts/$1 (301) leaves the draft.`)
	b.click("Delete rule")
	b.see(`Deleted rule old.example.com ^/p/(\d+)$. Deploy to make the change live.`, "0 rules match, 0 shown")
}
