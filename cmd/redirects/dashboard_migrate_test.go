package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"redirects"
	"redirects/api"
	"redirects/importer"
)

// registerBrowserTestFormat adds, once, a format and a writer for the
// browser suite's walk of the Import tab while the platforms' own are
// still to come: the format has a platform default that differs from the
// project's (it ignores a trailing slash), so the report makes a settings
// suggestion; the writer leaves out what it cannot express. Both are
// registered from the test, not from init, so that no other test of the
// binary sees them unless it runs after this one.
var registerBrowserTestFormat = sync.OnceFunc(func() {
	if importer.Lookup("browsertest") == nil {
		importer.Register(&importer.Format{
			Name: "browsertest", Title: "Browser suite's test format", FirstMatch: true,
			Defaults:    &redirects.Settings{IgnoreTrailingSlash: true},
			DefaultsWhy: "the browser suite's platform ignores a trailing slash",
			Detect: func(head []byte, _ string) (bool, string) {
				return strings.HasPrefix(string(head), "# browsertest\n"), "its first line is # browsertest"
			},
			// Lines "FROM TO [STATUS]"; FROM ending in /* is a prefix; a
			// 200 is a rewrite (skipped); a query in FROM is dropped
			// (changed).
			Read: func(in io.Reader, _ *importer.Options, sink *importer.Sink) error {
				sc := bufio.NewScanner(in)
				for n := 1; sc.Scan(); n++ {
					line := strings.TrimSpace(sc.Text())
					if line == "" || strings.HasPrefix(line, "#") {
						continue
					}
					f := strings.Fields(line)
					if len(f) < 2 {
						sink.Bad(n, "a line is FROM TO [STATUS]")
						continue
					}
					r := redirects.Rule{Source: f[0], Destination: f[1], MatchType: redirects.Exact}
					if len(f) > 2 {
						st, err := strconv.Atoi(f[2])
						if err != nil {
							sink.Bad(n, "status %q is not a number", f[2])
							continue
						}
						if st == 200 {
							sink.Skip(n, "a 200 rewrite serves another path's content; rules redirect")
							sink.Text(n, line)
							continue
						}
						r.StatusCode = st
					}
					if src, _, ok := strings.Cut(r.Source, "?"); ok {
						r.Source = src
						sink.Note(n, "its query condition was dropped: every query matches")
					}
					if p, ok := strings.CutSuffix(r.Source, "*"); ok {
						r.Source, r.MatchType = p, redirects.StartsWith
					}
					sink.Rule(n, r)
					sink.Text(n, line)
				}
				return sc.Err()
			},
			Example: "# browsertest\n/old /new\n/blog/* /news/ 301\n/blog/2019 /archive\n/search?q=1 /find\n/app /index.html 200\n/gone /x 302\n",
		})
	}
	if len(importer.Writers()) == 0 {
		importer.RegisterWriter(&importer.Writer{Name: "browsertest", FileName: "redirects.txt", ContentType: "text/plain; charset=utf-8",
			Write: func(w io.Writer, rules []redirects.Rule, _ redirects.Settings, _ []string) ([]importer.Unexpressed, error) {
				var un []importer.Unexpressed
				for _, r := range rules {
					if r.MatchType != redirects.Exact {
						un = append(un, importer.Unexpressed{RuleID: r.ID, Source: r.Source, Dropped: true, Reason: "only exact rules"})
						continue
					}
					fmt.Fprintf(w, "%s %s\n", r.Source, r.Destination)
				}
				return un, nil
			}})
	}
})

// TestDashboardMigrate walks the Import tab in Chromium with every
// registered format: its Example is checked (detected, and the classes
// shown are importer.Read's, line by line), the settings suggestion is
// applied where the format makes one (refused first while two rules would
// clash under it), the import is applied, and undone: the draft is back as
// it was. An undo after an edit is refused. Last, the draft downloads as
// every writer's file with what it cannot express listed.
func TestDashboardMigrate(t *testing.T) {
	registerBrowserTestFormat()
	s := startDashboard(t)
	b := newBrowser(t, s.manage)
	b.open("/login")
	b.fill("Email address", "alice@example.com")
	b.fill("Password", dashboardPassword)
	b.click("Sign in")
	b.fill("Project name", "Mig")
	b.click("Create project")
	m := projectPath.FindStringSubmatch(b.location())
	if m == nil {
		t.Fatalf("after creating a project: %s", b.location())
	}
	project := m[1]
	draft := func() string { return s.cli(t, "", "rule", "list", "--project", project, "--json") }
	dir := t.TempDir()
	var settings redirects.Settings

	// check uploads a format's Example, as auto, and compares the report
	// with importer.Read's under the project's settings.
	check := func(f *importer.Format, file string) *importer.Result {
		t.Helper()
		want, err := importer.Read(context.Background(), strings.NewReader(f.Example), f.Name, importer.Options{Settings: settings})
		if err != nil {
			t.Fatalf("%s: importer.Read of its Example: %v", f.Name, err)
		}
		b.open("/projects/" + project + "/import")
		b.run(chromedp.SetUploadFiles(chromedp.ID("import-file"), []string{file}))
		// Detection where it recognises the example (formats whose lines
		// look alike, such as the test format's and Netlify's, are told
		// apart by the picker).
		from := "auto"
		if d, _ := importer.Detect([]byte(f.Example), ""); d != f {
			from = f.Name
		}
		b.choose("Format", from)
		b.run(chromedp.Click(chromedp.CSS(`input[name=mode][value=replace]`)))
		b.click("Check file")
		wantClasses(t, b, f, want)
		return want
	}

	formats := importer.Formats()
	for i, f := range formats {
		file := filepath.Join(dir, fmt.Sprintf("%d-%s", i, f.Name))
		if err := os.WriteFile(file, []byte(f.Example), 0o644); err != nil {
			t.Fatal(err)
		}
		if f.Defaults != nil && *f.Defaults != settings {
			// Two rules that clash under the format's settings, when they
			// compare more paths as one than the project's do: the
			// suggestion is refused and says so, then applied once one of
			// them is gone. Settings that compare fewer paths as one
			// cannot make rules clash.
			d := *f.Defaults
			var a, other string
			switch {
			case d.IgnoreTrailingSlash && !settings.IgnoreTrailingSlash:
				a, other = "/clash", "/clash/"
			case d.CaseInsensitive && !settings.CaseInsensitive:
				a, other = "/clash", "/CLASH"
			}
			if a != "" {
				s.cli(t, "", "rule", "add", "--project", project, "--source", a, "--destination", "/a")
				s.cli(t, "", "rule", "add", "--project", project, "--source", other, "--destination", "/b")
			}
			want := check(f, file)
			if want.Suggest == nil {
				t.Fatalf("%s: no suggestion under %s", f.Name, settings)
			}
			b.see("Settings: "+want.Suggest.Why, "Apply these settings")
			if a != "" {
				b.click("Apply these settings")
				b.see("The settings were not changed:", "/clash")
				b.shot("migrate-suggestion-refused-" + f.Name)
				fullShot(b, "migrate-suggestion-full-"+f.Name)
				s.cli(t, "", "rule", "delete", "--project", project, "--all-matching", "--search", other, "--yes")
			}
			b.click("Apply these settings")
			b.see("Saved: the draft compares paths")
			settings = want.Suggest.Settings
			again, err := importer.Read(context.Background(), strings.NewReader(f.Example), f.Name, importer.Options{Settings: settings})
			if err != nil {
				t.Fatal(err)
			}
			wantClasses(t, b, f, again)
			b.notSee("Apply these settings")
			b.shot("migrate-suggestion-applied-" + f.Name)
		} else {
			check(f, file)
			b.shot("migrate-report-" + f.Name)
		}
		before := draft()
		b.click("Apply")
		if loc := b.location(); !strings.Contains(loc, "/import?undo=") {
			t.Fatalf("%s: after Apply: %s", f.Name, loc)
		}
		b.see("Imported ", "Undo this import")
		b.shot("migrate-applied-" + f.Name)
		after := draft()
		if after == before {
			t.Errorf("%s: the import changed nothing", f.Name)
		}
		if i == len(formats)-1 {
			// The last import is undone: the draft is back, byte for byte.
			b.click("Undo this import")
			b.see("Import undone: the draft has its")
			b.shot("migrate-undone")
			if got := draft(); got != before {
				t.Fatalf("after the undo the draft is\n%s\nwant\n%s", got, before)
			}
		}
	}

	// An undo after the draft changed is refused, and the page says so
	// instead of offering it.
	f := formats[0]
	check(f, filepath.Join(dir, "0-"+f.Name))
	b.click("Apply")
	undoPage := b.location()
	s.cli(t, "", "rule", "add", "--project", project, "--source", "/edited-after", "--destination", "/x")
	edited := draft()
	b.open(undoPage)
	b.see("This import can no longer be undone. The draft changed since import")
	b.notSee("Undo this import")
	b.shot("migrate-undo-gone")
	if draft() != edited {
		t.Fatal("the page changed the draft")
	}

	// The draft as each writer's file.
	b.open("/projects/" + project + "/import")
	for _, wr := range importer.Writers() {
		rules, err := ruleList(s, t, project)
		if err != nil {
			t.Fatal(err)
		}
		var want strings.Builder
		un, err := wr.Write(&want, rules, settings, nil)
		if err != nil {
			t.Fatal(err)
		}
		b.open("/projects/" + project + "/import")
		b.click(wr.Name + " (" + wr.FileName + ")")
		if len(un) > 0 {
			b.see(pluralOf(len(un), "rule")+" of ", un[0].Source, un[0].Reason)
		} else {
			b.see("is written as it answers here")
		}
		b.shot("migrate-export-" + wr.Name)
		// The download, with the browser's session (the page's CSP
		// forbids fetch, so Go asks for it).
		href := get(b, chromedp.Evaluate[string](`document.querySelector('a[download]').href`))
		jar := get(b, chromedp.Action[network.GetCookiesResult](func(ctx context.Context, tg *chromedp.Target) (network.GetCookiesResult, error) {
			return cdp.Call(ctx, tg, network.GetCookies, network.GetCookiesParams{})
		}))
		req, _ := http.NewRequest("GET", href, nil)
		for _, c := range jar.Cookies {
			req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || string(body) != want.String() || res.Header.Get("Redirects-Unexpressed") != strconv.Itoa(len(un)) ||
			res.Header.Get("Content-Disposition") != `attachment; filename="`+wr.FileName+`"` {
			t.Errorf("the download as %s: %d %v\n%q\nwant\n%q", wr.Name, res.StatusCode, res.Header, body, want.String())
		}
	}
}

// wantClasses fails unless the Import tab's report shows res: the format,
// the count of each class, the as-is ranges and each changed or skipped
// line with its class and rule count.
func wantClasses(t *testing.T, b *browser, f *importer.Format, res *importer.Result) {
	t.Helper()
	b.see("Read as "+f.Title, "As is: "+pluralOf(res.AsIs, "line"), "Changed: "+pluralOf(res.Changed, "line"), "Skipped: "+pluralOf(res.Skipped, "line"))
	if res.AsIs > 0 {
		var r []string
		for _, x := range res.AsIsLines {
			if x[0] == x[1] {
				r = append(r, strconv.Itoa(x[0]))
			} else {
				r = append(r, fmt.Sprintf("%d–%d", x[0], x[1]))
			}
		}
		b.see("(lines " + strings.Join(r, ", ") + ")")
	}
	rows := get(b, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('#import-lines tbody tr')).map(tr => tr.dataset.line + ' ' + tr.dataset.class + ' ' + tr.cells[2].textContent).join('\n')`))
	var want []string
	for _, o := range res.Lines[:min(len(res.Lines), 100)] {
		want = append(want, fmt.Sprintf("%d %s %d", o.Line, o.Class, o.Rules))
	}
	if rows != strings.Join(want, "\n") {
		t.Errorf("%s: the report's lines:\n%s\nwant importer.Read's:\n%s", f.Name, rows, strings.Join(want, "\n"))
	}
	if res.Suggest == nil {
		b.notSee("Apply these settings")
	}
}

// fullShot saves the whole page, at 1280 and 375 px, beside the suite's
// screenshots (whose shots show the first 800 px): the report's suggestion
// and table are further down.
func fullShot(b *browser, name string) {
	b.t.Helper()
	for _, w := range []int64{1280, 375} {
		b.run(chromedp.EmulateViewport(w, 800), chromedp.Sleep(50*time.Millisecond))
		png := get(b, chromedp.FullScreenshot(100))
		if err := os.WriteFile(filepath.Join(b.dir, fmt.Sprintf("full-%s-%d.png", name, w)), png, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
	b.run(chromedp.EmulateViewport(1280, 800))
}

// ruleList reads the project's draft through the CLI's JSON.
func ruleList(s *dashboardServer, t *testing.T, project string) ([]redirects.Rule, error) {
	var rows []api.Rule
	if err := json.Unmarshal([]byte(s.cli(t, "", "rule", "list", "--project", project, "--json")), &rows); err != nil {
		return nil, err
	}
	rules := make([]redirects.Rule, len(rows))
	for i, r := range rows {
		mt, err := redirects.ParseMatchType(r.MatchType)
		if err != nil {
			return nil, err
		}
		rules[i] = redirects.Rule{ID: r.ID, ProjectID: project, Source: r.Source, Destination: r.Destination, StatusCode: r.StatusCode,
			MatchType: mt, Priority: r.Priority, PreservePath: r.PreservePath, PreserveQuery: r.PreserveQuery}
	}
	return rules, nil
}

func pluralOf(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
