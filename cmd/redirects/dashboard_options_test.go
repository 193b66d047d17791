package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestDashboardRuleOptions walks the rule options and the matching
// settings in Chromium (docs/contract.md#rule-options): the rule form
// shows the options that apply to its match type and status, the table
// shows them as badges, the settings page previews and refuses a change
// that would clash, and the deploy page shows a settings change.
func TestDashboardRuleOptions(t *testing.T) {
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

	// js answers a boolean expression on the page.
	js := func(expr string) bool {
		t.Helper()
		return get(b, chromedp.Evaluate[bool](expr))
	}
	// pick selects a value as a person does: the page hears the change.
	pick := func(id, value string) {
		t.Helper()
		if !js(fmt.Sprintf(`(() => { const s = document.getElementById(%q); s.value = %q; s.dispatchEvent(new Event("change", {bubbles: true})); return s.value === %q; })()`, id, value, value)) {
			t.Fatalf("no option %s in #%s", value, id)
		}
	}
	// state says which of the form's controls show and can be sent.
	state := func(prefix string) string {
		t.Helper()
		return get(b, chromedp.Evaluate[string](fmt.Sprintf(`(() => {
			const shown = id => { const e = document.getElementById(id); return e.offsetParent !== null && !e.disabled; };
			return ["destination", "preserve-path", "preserve-query"].filter(n => shown(%q + n)).join(",");
		})()`, prefix)))
	}

	// The add form: exact offers only "keep the query string"; starts_with
	// both options; a 410 neither, and no destination.
	b.open("/projects/" + project + "/rules")
	if got := state("new-"); got != "destination,preserve-query" {
		t.Fatalf("an exact 301's form shows %q, want destination,preserve-query", got)
	}
	pick("new-match", "starts_with")
	if got := state("new-"); got != "destination,preserve-path,preserve-query" {
		t.Fatalf("a starts_with 301's form shows %q", got)
	}
	b.fill("Source path", "/docs/")
	b.fill("Destination", "/manual/#top")
	pick("new-status", "308")
	b.run(chromedp.Click(chromedp.ID("new-preserve-path")), chromedp.Click(chromedp.ID("new-preserve-query")))
	b.shot("rule-form-options")
	b.click("Add rule")
	b.see("Added starts_with rule /docs/ → /manual/#top (keeps path, keeps query). Deploy to make it live.")

	pick("new-status", "410")
	if got := state("new-"); got != "" {
		t.Fatalf("a 410's form shows %q, want no destination and no option", got)
	}
	b.fill("Source path", "/retired")
	b.shot("rule-form-gone")
	b.click("Add rule")
	b.see("Added exact rule /retired → 410 Gone. Deploy to make it live.")

	b.fill("Source path", "/see")
	b.fill("Destination", "/other?a=1")
	pick("new-status", "303")
	b.run(chromedp.Click(chromedp.ID("new-preserve-query")))
	b.click("Add rule")
	b.see("Added exact rule /see → /other?a=1 (keeps query).")
	s.cli(t, "", "rule", "add", "--project", project, "--source", "/About", "--destination", "/company")
	s.cli(t, "", "rule", "add", "--project", project, "--source", "/about", "--destination", "/company")

	// The table: statuses and options as badges.
	b.open("/projects/" + project + "/rules")
	b.see("5 rules, 5 shown", "Options", "keeps path", "keeps query", "410 Gone", "308", "303")
	cells := get(b, chromedp.Evaluate[string](`[...document.querySelectorAll("table.rules tbody tr")].map(r => r.cells[0].textContent + "=" + r.cells[2].textContent + "|" + r.cells[4].textContent.trim()).join(";")`))
	for _, want := range []string{"/docs/=308|keeps path keeps query", "/retired=410 Gone|", "/see=303|keeps query", "/about=301|"} {
		if !strings.Contains(cells+";", want+";") {
			t.Errorf("the rules table's rows %q lack %q", cells, want)
		}
	}
	b.shot("rules-options")

	// The edit form shows the rule's options; a change to exact hides and
	// drops "keep the rest of the path".
	b.open("/projects/" + project + "/rules?q=/docs/")
	b.click("Edit")
	if !js(`document.getElementById("preserve-path").checked && document.getElementById("preserve-query").checked`) {
		t.Fatalf("the edit form of /docs/ does not show its options checked")
	}
	pick("match", "exact")
	if got := state(""); got != "destination,preserve-query" {
		t.Fatalf("the edit form, changed to exact, shows %q", got)
	}
	b.shot("rule-edit-options")
	b.click("Save rule")
	b.see("Saved rule /docs/ → /manual/#top (keeps query).")

	// Deploy, so that a settings change has a live version to differ from.
	b.open("/projects/" + project + "/deploy")
	b.see("Added (5)")
	b.click("Deploy version 1")
	b.see("Deployed version 1")

	// Settings: the preview names the pair that ignoring case would make
	// clash; saving it is refused; ignoring the trailing slash is saved.
	b.click("Settings")
	b.see("Matching", "The draft compares paths case-sensitive, trailing slash exact. So does the live version 1.",
		"ignoring case, trailing slash exact: 1 pair of rules would clash", "/About and /about",
		"case-sensitive, trailing slash ignore: no rule would clash.")
	b.shot("settings-matching")
	b.run(chromedp.Click(`//label[contains(., "Ignore case")]/input`))
	b.click("Save matching settings")
	b.see("The matching settings were not saved: The settings caseSensitive=false trailingSlash=exact would make rules clash", `"/About" and rule`, `"/about". Change or delete one rule of each pair, then save again.`)
	if !js(`document.querySelector('input[name="case"][value="sensitive"]').checked`) {
		t.Fatalf("after a refused change the form does not show the stored setting")
	}
	b.shot("settings-refused")
	b.run(chromedp.Click(`//label[contains(., "Ignore: /docs and /docs/")]/input`))
	b.click("Save matching settings")
	b.see("Saved: the draft compares paths case-sensitive, trailing slash ignore. Deploy to make it live; version 1 still compares paths case-sensitive, trailing slash exact.",
		"Draft: changed since version 1 went live.", "Trailing slash: exact → ignore.")

	// The deploy page shows the setting's change, and deploys it.
	b.click("Deploy")
	b.see("Draft: 1 change not deployed", "1 setting changed", "Matching settings (1)", "Trailing slash: exact → ignore.",
		"Paths that will answer differently", "/docs: no redirect → 308 /manual/#top")
	b.shot("deploy-settings")
	b.click("Deploy version 2")
	b.see("Deployed version 2")
	b.open("/projects/" + project + "/deploy")
	b.see("Nothing to deploy: the draft is the same as version 2.")
	b.notSee("Draft: changed since")

	// The edge answers version 2 as the rules and settings say.
	key := strings.TrimSpace(s.cli(t, "", "key", "create", "--project", project, "--name", "edge"))
	lookup := func(path string) (int, string) {
		req, _ := http.NewRequest("GET", s.edge+"/v1/lookup?project="+project+"&path="+url.QueryEscape(path), nil)
		req.Header.Set("X-API-Key", key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	for path, want := range map[string]string{
		"/see?utm=1": `{"destination":"/other?a=1&utm=1","statusCode":303,"matchType":"exact"}`,
		"/retired":   `{"destination":"","statusCode":410,"matchType":"exact"}`,
		"/docs?q=1":  `{"destination":"/manual/?q=1#top","statusCode":308,"matchType":"exact"}`,
	} {
		var last string
		waitFor(t, "the edge answers "+path+" with version 2", func() bool {
			code, body := lookup(path)
			last = fmt.Sprint(code, " ", body)
			return code == 200 && body == want
		})
		t.Logf("%s: %s", path, last)
	}
}
