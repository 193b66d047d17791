package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestDashboardImport walks the Import tab in Chromium: a file with bad
// lines shows each line's number and reason and writes nothing; the fixed
// file's dry run shows its report, and Apply writes the rules.
func TestDashboardImport(t *testing.T) {
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
	b.fill("Source path", "/keep")
	b.fill("Destination", "/kept")
	b.click("Add rule")
	b.see("1 rule, 1 shown")

	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	upload := func(path string) {
		t.Helper()
		b.run(chromedp.SetUploadFiles(chromedp.ID("import-file"), []string{path}))
		b.click("Check file")
	}

	// A file with bad lines: their numbers and reasons, nothing written.
	b.click("Import")
	b.see("Import rules from a file", "Check file")
	upload(write("bad.csv", "source,destination,statusCode,matchType\n"+
		"/keep,/kept,301,exact\n"+
		"nope,/x,301,exact\n"+
		"/a,/b,999,exact\n"+
		"/c,/d,301,exact\n"))
	b.see("2 bad lines; nothing was imported.")
	b.shot("import-errors")
	rows := get(b, chromedp.Text(chromedp.CSS("#import-report tbody")))
	for _, want := range []string{"3\tsource", "4\tstatusCode"} {
		if !strings.Contains(strings.ToLower(rows), strings.ToLower(want)) {
			t.Errorf("the bad lines do not show %q:\n%s", want, rows)
		}
	}
	b.notSee("Apply")
	b.open("/projects/" + project + "/rules")
	b.see("1 rule, 1 shown")
	b.notSee("/c")

	// The fixed file, in upsert mode: the dry run's report, then Apply.
	// The mode is append until one is picked, as in the CLI and the API.
	b.click("Import")
	if mode := get(b, chromedp.Evaluate[string](`document.querySelector('input[name=mode]:checked').value`)); mode != "append" {
		t.Errorf("the Import tab starts on %q, want append", mode)
	}
	b.run(chromedp.Click(chromedp.CSS(`input[name=mode][value=upsert]`)))
	upload(write("good.csv", "source,destination,statusCode,matchType\n"+
		"/keep,/kept,301,exact\n"+
		"/x,/y,301,exact\n"+
		"/a,/b,302,exact\n"+
		"/c,/d,301,starts_with\n"))
	b.see("Dry run, nothing written yet: 3 added, 0 updated, 1 unchanged, 0 removed.", "Apply")
	b.shot("import-report")
	b.open("/projects/" + project + "/rules")
	b.see("1 rule, 1 shown")
	b.click("Import")
	b.run(chromedp.Click(chromedp.CSS(`input[name=mode][value=upsert]`)))
	upload(filepath.Join(dir, "good.csv"))
	b.click("Apply")
	// Apply opens the Import tab on the import's Undo.
	if loc := b.location(); !strings.HasPrefix(loc, "/projects/"+project+"/import?undo=") {
		t.Fatalf("after Apply: %s", loc)
	}
	b.see("Imported 4 rules (0 updated). Deploy to make them live.", "Undo this import")
	b.click("See the draft rules")
	b.see("4 rules, 4 shown", "/x", "/a", "/c")
}
