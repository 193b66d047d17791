package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"redirects/internal/testreport"
)

// browser drives one headless Chromium tab through the dashboard and saves
// a screenshot of every page it is asked to look at.
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string
	dir  string
	n    int
}

// chromium returns the path of Debian's Chromium, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	found := func(p string) string {
		testreport.Ran(t, testreport.Browser)
		if os.Getenv("REDIRECTS_TEST_AXE") != "" {
			testreport.Ran(t, testreport.Axe)
		} else {
			testreport.LeftOut(t, testreport.Axe, "REDIRECTS_TEST_AXE is not set (.ci/run runs the browser suite with axe-core once more)")
		}
		return p
	}
	for _, p := range []string{"/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if _, err := os.Stat(p); err == nil {
			return found(p)
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return found(p)
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed; .ci/run installs it (apt-get install chromium)")
	}
	testreport.Skip(t, testreport.Browser, "chromium is not installed: apt-get install chromium to run the dashboard's browser tests")
	return ""
}

// screenshotDir is where the screenshots go: a new directory under
// $REDIRECTS_TEST_SCREENSHOTS when it is set (kept after the test), else
// the test's temporary directory.
func screenshotDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if root := os.Getenv("REDIRECTS_TEST_SCREENSHOTS"); root != "" {
		if err := os.MkdirAll(root, 0o755); err != nil {
			t.Fatal(err)
		}
		d, err := os.MkdirTemp(root, "dashboard-")
		if err != nil {
			t.Fatal(err)
		}
		dir = d
	}
	t.Logf("screenshots in %s", dir)
	return dir
}

func newBrowser(t *testing.T, base string) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU,
		chromedp.WindowSize(1280, 800), chromedp.Flag("lang", "en-US"))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 20*time.Minute)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	b := &browser{t: t, ctx: ctx, base: base, dir: screenshotDir(t)}
	b.run(chromedp.EmulateViewport(1280, 800))
	return b
}

// tab opens another tab of the same browser: the same cookies, another
// page.
func (b *browser) tab() *browser {
	ctx, cancel := chromedp.NewContext(b.ctx)
	b.t.Cleanup(cancel)
	nb := &browser{t: b.t, ctx: ctx, base: b.base, dir: b.dir, n: 100}
	nb.run(chromedp.EmulateViewport(1280, 800))
	return nb
}

func (b *browser) run(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatalf("browser: %v", err)
	}
}

// get runs an action that answers a value.
func get[T any](b *browser, a chromedp.Action[T]) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, a)
	if err != nil {
		b.t.Fatalf("browser: %v", err)
	}
	return v
}

// open goes to a path of the dashboard.
func (b *browser) open(path string) {
	b.t.Helper()
	b.run(chromedp.Navigate(b.base+path), chromedp.WaitReady(chromedp.CSS("body")))
}

// byLabel is the XPath of the control a <label> with this text names.
func byLabel(label string) string {
	return fmt.Sprintf(`//*[@id=//label[normalize-space()=%q]/@for]`, label)
}

// fill types into the control labelled label, replacing its value.
func (b *browser) fill(label, value string) {
	b.t.Helper()
	b.run(chromedp.SetValue(byLabel(label), value))
}

// choose selects an option of the select labelled label.
func (b *browser) choose(label, value string) {
	b.t.Helper()
	b.run(chromedp.SetValue(byLabel(label), value))
}

// click clicks the first button or link whose text is text, and waits for
// the page it leads to.
func (b *browser) click(text string) {
	b.t.Helper()
	sel := fmt.Sprintf(`(//button[normalize-space()=%q] | //a[normalize-space()=%q])[1]`, text, text)
	b.clickAt(sel)
}

// clickAt clicks the element an XPath or CSS selector names and waits for
// the page it leads to.
func (b *browser) clickAt(sel string) {
	b.t.Helper()
	get(b, chromedp.Evaluate[bool]("window.__before = true"))
	b.run(chromedp.Click(sel, chromedp.NodeVisible))
	b.waitLoad()
}

// waitLoad waits until the page marked by click has been replaced by a
// loaded one (every action here navigates).
func (b *browser) waitLoad() {
	b.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		done, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool]("!window.__before && document.readyState === 'complete'"))
		if err == nil && done {
			return
		}
	}
	b.t.Fatalf("no new page loaded within 10 s after a click on %s", b.location())
}

// text returns what the page shows in its main element.
func (b *browser) text() string {
	b.t.Helper()
	return get(b, chromedp.Text(chromedp.CSS("body")))
}

// see fails the test unless the page shows every one of want.
func (b *browser) see(want ...string) {
	b.t.Helper()
	var s string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		s = b.text()
		missing := ""
		for _, w := range want {
			if !strings.Contains(s, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			b.t.Fatalf("%s does not show %q; it shows:\n%s", b.location(), missing, s)
		}
	}
}

// notSee fails the test if the page shows text.
func (b *browser) notSee(text string) {
	b.t.Helper()
	if s := b.text(); strings.Contains(s, text) {
		b.t.Fatalf("the page shows %q:\n%s", text, s)
	}
}

// shot saves the page at 1280x800 and at 375x800.
func (b *browser) shot(name string) {
	b.t.Helper()
	b.n++
	for _, w := range []int64{1280, 375} {
		b.run(chromedp.EmulateViewport(w, 800), chromedp.Sleep(50*time.Millisecond))
		b.checkPage(name, w)
		if w == 1280 {
			b.readmeShot(name)
		}
		png := get(b, chromedp.CaptureScreenshot())
		file := filepath.Join(b.dir, fmt.Sprintf("%02d-%s-%d.png", b.n, name, w))
		if err := os.WriteFile(file, png, 0o644); err != nil {
			b.t.Fatal(err)
		}
	}
	b.run(chromedp.EmulateViewport(1280, 800))
}

// location returns the path of the page.
func (b *browser) location() string {
	b.t.Helper()
	return strings.TrimPrefix(get(b, chromedp.Location()), b.base)
}

// dashboardServer runs serve with the edge and the management listener on
// a fresh SQLite database with an operator, and an organization whose
// owner is alice; it returns the CLI's database and both base URLs.
type dashboardServer struct {
	db, manage, edge, org string
}

const dashboardPassword = "correct horse battery staple"

func startDashboard(t *testing.T) *dashboardServer {
	t.Helper()
	storeIndependent(t, "the dashboard's browser tests run on a SQLite file of their own")
	browserInAxeStep(t)
	db := "sqlite:" + filepath.Join(t.TempDir(), "r.db")
	for _, args := range [][]string{
		{"user", "create", "--email", "ops@example.com", "--operator", "--password-stdin"},
		{"user", "create", "--email", "alice@example.com", "--password-stdin"},
	} {
		if _, errs, code := inProcess(t, db, dashboardPassword+"\n", args...); code != 0 {
			t.Fatalf("%s: %s", args, errs)
		}
	}
	out, errs, code := inProcess(t, db, "", "org", "create", "--name", "Acme", "--tier", "pro")
	if code != 0 {
		t.Fatalf("org create: %s", errs)
	}
	org := strings.TrimSpace(out)
	if _, errs, code := inProcess(t, db, "", "member", "add", "--org", org, "--user", "alice@example.com", "--role", "owner"); code != 0 {
		t.Fatalf("member add: %s", errs)
	}
	s := &dashboardServer{db: db, org: org}
	manageAddr, edgeAddr := freeAddr(t), freeAddr(t)
	start(t, db, "serve", "--addr", edgeAddr, "--admin-addr", "", "--engine", "net/http", "--manage-addr", manageAddr)
	s.manage, s.edge = "http://"+manageAddr, "http://"+edgeAddr
	waitFor(t, "the dashboard answers", func() bool {
		res, err := http.Get(s.manage + "/login")
		if err == nil {
			res.Body.Close()
		}
		return err == nil && res.StatusCode == 200
	})
	return s
}

// cliRun runs a command on the server's database and returns its output.
func (s *dashboardServer) cli(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, errs, code := inProcess(t, s.db, stdin, args...)
	if code != 0 {
		t.Fatalf("%s: %s", args, errs)
	}
	return out
}

var projectPath = regexp.MustCompile(`^/projects/([^/]+)/`)

// TestDashboard walks the dashboard's flows in Chromium against the real
// server: sign-in and its errors, the organization and its projects, and
// the rules table with its search, pages, edits (a stale one refused),
// deletes and bulk delete.
func TestDashboard(t *testing.T) {
	s := startDashboard(t)
	b := newBrowser(t, s.manage)

	// Sign in: a page needs it, errors are shown, the limit is named.
	b.open("/")
	if loc := b.location(); !strings.HasPrefix(loc, "/login") {
		t.Fatalf("/ without a session went to %s, want /login", loc)
	}
	b.see("Sign in", "Email address", "Password")
	b.shot("login")
	b.fill("Email address", "alice@example.com")
	b.fill("Password", "wrong password")
	b.click("Sign in")
	b.see("The email address or password is wrong.")
	b.shot("login-error")
	for i := 0; i < 6; i++ {
		b.fill("Email address", "mallory@example.com")
		b.fill("Password", "guess")
		b.click("Sign in")
	}
	b.see("Too many failed sign-ins for this account or from this address: try again in")
	b.shot("login-limited")

	b.fill("Email address", "alice@example.com")
	b.fill("Password", dashboardPassword)
	b.click("Sign in")
	if loc := b.location(); loc != "/orgs/"+s.org {
		t.Fatalf("after sign-in: %s, want /orgs/%s", loc, s.org)
	}
	b.see("Acme", "alice@example.com", "Sign out", "Your role: owner", "No project yet: create one below")
	b.shot("org-empty")

	// Create a project: its empty rules tab says what to do next.
	b.fill("Project name", "Shop")
	b.click("Create project")
	b.see("Created project Shop. Add rules (or import a CSV), then deploy to make them live.",
		"No deployment yet: deploy to make these rules live.", "No rules yet")
	m := projectPath.FindStringSubmatch(b.location())
	if m == nil {
		t.Fatalf("after creating a project: %s", b.location())
	}
	project := m[1]
	b.shot("rules-empty")
	b.open("/orgs/" + s.org)
	b.see("Shop", "No deployment yet: deploy to make its rules live.")

	// Add rules; a bad one names its field and adds nothing.
	b.open("/projects/" + project + "/rules")
	b.fill("Source path", "/old")
	b.fill("Destination", "/new")
	b.click("Add rule")
	b.see("Added exact rule /old → /new. Deploy to make it live.", "1 rule, 1 shown")
	b.fill("Source path", "/blog/")
	b.fill("Destination", "https://blog.example.com/")
	b.choose("Status code", "302")
	b.choose("Match type", "starts_with")
	b.fill("Priority", "10")
	b.click("Add rule")
	b.see("Added starts_with rule /blog/ → https://blog.example.com/.", "2 rules, 2 shown")
	b.fill("Source path", "nope")
	b.fill("Destination", "/x")
	b.click("Add rule")
	b.see("The rule was not added: Source \"nope\" must start with '/'", "2 rules, 2 shown")

	// Sixty more from the command line: the table pages by the cursor.
	var csv strings.Builder
	csv.WriteString("source,destination,statusCode,matchType,priority\n")
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&csv, "/bulk/%02d,/moved/%02d,301,exact,\n", i, i)
	}
	s.cli(t, csv.String(), "rule", "import", "--project", project, "-")
	b.open("/projects/" + project + "/rules")
	b.see("62 rules, 50 shown", "/blog/", "Next →")
	b.shot("rules")
	b.click("Next →")
	b.see("62 rules, 12 shown", "/old")
	b.click("← Previous")
	b.see("62 rules, 50 shown", "/blog/")
	b.notSee("/old\t")

	// Search and filters run on the server.
	b.fill("Search", "/bulk/*")
	b.click("Apply")
	b.see("60 rules match, 50 shown", "Delete the 60 rules this search selects…")
	b.open("/projects/" + project + "/rules?match=starts_with")
	b.see("1 rule matches, 1 shown", "/blog/")
	b.open("/projects/" + project + "/rules?status=302")
	b.see("1 rule matches, 1 shown")
	b.shot("rules-filtered")
	// Each row links to the explanation of its source: the effective
	// answer of a starts_with rule.
	b.open("/projects/" + project + "/rules?match=starts_with")
	b.click("Test")
	b.see("Test a path", "by rule", "(starts_with /blog/)", "no exact rule; the only matching starts_with rule")

	// Edit in place; an edit made from a stale page is refused.
	b.open("/projects/" + project + "/rules?q=/old")
	b.click("Edit")
	b.see("Edit rule /old", "Revision 1")
	b.shot("rule-edit")
	other := b.tab()
	other.open(b.location())
	other.fill("Destination", "/newer")
	other.click("Save rule")
	other.see("Saved rule /old → /newer.")
	b.fill("Destination", "/mine")
	b.click("Save rule")
	b.see("This rule was changed by someone else since you opened it: reload to see the current version. Nothing was changed.")
	b.shot("rule-stale")
	b.open("/projects/" + project + "/rules?q=/old")
	b.see("/newer")
	b.notSee("/mine")
	b.click("Edit")
	b.see("Revision 2")
	b.fill("Destination", "/mine")
	b.click("Save rule")
	b.see("Saved rule /old → /mine.")

	// Delete one rule, with a confirmation.
	b.open("/projects/" + project + "/rules?q=/old")
	b.click("Delete")
	b.see("Delete rule /old?")
	b.shot("rule-delete")
	b.click("Delete rule")
	b.see("Deleted rule /old. Deploy to make the change live.")

	// Bulk delete of the filtered set names its count.
	b.open("/projects/" + project + "/rules?q=" + "%2Fbulk%2F*")
	b.click("Delete the 60 rules this search selects…")
	b.see("Delete 60 rules?")
	b.shot("rules-bulk-delete")
	b.click("Delete 60 rules")
	b.see("Deleted 60 rules.", "1 rule, 1 shown", "/blog/")

	// API keys: the secret is shown once, with a copy button.
	b.open("/projects/" + project + "/keys")
	b.see("No API key yet: create one below")
	b.fill("Label", "storefront")
	b.click("Create key")
	b.see("This is the only time it is shown", "Copy")
	secret := strings.TrimSpace(get(b, chromedp.Text(chromedp.ID("new-secret"))))
	if !strings.HasPrefix(secret, "redir_live_") {
		t.Fatalf("the new key's secret: %q", secret)
	}
	b.shot("key-created")
	b.click("Done: I have copied it")
	b.see("storefront", "…"+secret[len(secret)-4:], "active")
	b.notSee(secret)
	b.shot("keys")

	// Deploy: the diff against nothing live, a message, the new version.
	b.open("/projects/" + project + "/rules")
	b.fill("Source path", "/old")
	b.fill("Destination", "/new")
	b.click("Add rule")
	b.open("/projects/" + project + "/deploy")
	b.see("Draft: 2 changes not deployed", "Added (2)", "/old", "/blog/")
	b.shot("deploy")
	b.fill("Message (what this deploy is for)", "First release")
	b.click("Deploy version 1")
	b.see("Deployed version 1 (1 exact rule, 1 starts_with rule). It is live", "First release", "alice@example.com",
		"Live: version 1, deployed just now by alice@example.com")
	b.notSee("Draft: changed")
	// The edge is asked with curl, as a person checking the deploy would.
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Fatalf("the dashboard suite checks the edge with curl: %v", err)
	}
	edge := func(path string) (int, string) {
		out, err := exec.Command(curl, "-s", "-w", "\n%{http_code}", "-H", "X-API-Key: "+secret,
			s.edge+"/v1/lookup?project="+project+"&path="+url.QueryEscape(path)).Output()
		if err != nil {
			return 0, err.Error()
		}
		body, code, _ := strings.Cut(strings.TrimSuffix(string(out), "\n"), "\n")
		if code == "" { // 204: no body, only the status line curl wrote
			body, code = "", body
		}
		n, _ := strconv.Atoi(code)
		return n, body
	}
	waitFor(t, "the edge answers /old with version 1", func() bool {
		code, body := edge("/old")
		return code == 200 && strings.Contains(body, `"/new"`)
	})
	b.open("/projects/" + project + "/deploy")
	b.see("Nothing to deploy: the draft is the same as version 1.")

	// A second version, then a rollback to the first.
	b.open("/projects/" + project + "/rules")
	b.fill("Source path", "/extra")
	b.fill("Destination", "/elsewhere")
	b.click("Add rule")
	b.see("Draft: changed since version 1 went live.")
	b.open("/projects/" + project + "/deploy")
	b.see("Draft: 1 change not deployed", "Added (1)", "/extra")
	b.fill("Message (what this deploy is for)", "Second release")
	b.click("Deploy version 2")
	b.see("Deployed version 2", "Second release")
	waitFor(t, "the edge answers /extra with version 2", func() bool {
		code, body := edge("/extra")
		return code == 200 && strings.Contains(body, `"/elsewhere"`)
	})
	b.shot("history")
	// The page's download link of version 1's CSV, fetched with a session
	// of the same user (the page's CSP lets no script fetch it).
	href := get(b, chromedp.Evaluate[string](`document.querySelector('a[href$="/versions/1/exports/csv"]').getAttribute('href')`))
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	if res := apiCall(t, c, "POST", s.manage+"/manage/v1/session", "", map[string]string{"email": "alice@example.com", "password": dashboardPassword}, nil); res.StatusCode != 200 {
		t.Fatalf("API sign-in: %d", res.StatusCode)
	}
	res, err := c.Get(s.manage + href)
	if err != nil {
		t.Fatal(err)
	}
	csvBody, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Content-Disposition"), "attachment") ||
		!strings.Contains(string(csvBody), "/old,/new,301,exact") || strings.Contains(string(csvBody), "/extra") {
		t.Fatalf("GET %s: %d %v\n%s", href, res.StatusCode, res.Header, csvBody)
	}
	// Which servers have which version: a sync agent applies version 2
	// and the History tab lists it as current.
	syncOut := filepath.Join(t.TempDir(), "redirects.conf")
	s.cli(t, "", "sync", "--edge", s.edge, "--key", secret, "--project", project, "--format", "nginx", "--out", syncOut, "--once")
	host, _ := os.Hostname()
	agentName := host + " " + syncOut
	waitFor(t, "the History tab to list the sync agent", func() bool {
		b.open("/projects/" + project + "/history")
		return strings.Contains(b.text(), agentName)
	})
	b.see("Servers", agentName, "nginx", "current", "version 2 is live")
	b.notSee("server behind")
	b.click("Roll back to version 1")
	b.see("Roll back to version 1?", "Version 3 will be deployed with the rules of version 1")
	b.shot("rollback")
	b.click("Roll back to version 1")
	b.see("Rolled back: version 3 is live with the rules of version 1.", "rollback to 1")
	waitFor(t, "the edge forgets /extra after the rollback", func() bool {
		code, _ := edge("/extra")
		return code == 204
	})
	// The agent did not apply version 3: the History tab says it is behind.
	b.open("/projects/" + project + "/history")
	b.see("1 server behind", agentName, "version 3 is live")
	if state := get(b, chromedp.Evaluate[string](`document.querySelector('#servers-table tr.behind td.state').textContent.trim()`)); state != "behind" {
		t.Errorf("the agent's row says %q, want behind", state)
	}
	b.shot("history-servers")
	// An editor forgets the server; the list is empty until it reports
	// again.
	b.click("Forget")
	b.see("Forgot 1 server report of "+agentName, "No server has reported a version yet")

	// Test a path: which rule answers, in the draft and live, and why.
	b.click("Test a path")
	b.see("Enter a path as a browser asks for it")
	b.fill("Path", "/blog/post")
	b.click("Test")
	b.see("Draft", "Live (version 3)", "https://blog.example.com/, by rule", "no exact rule; the only matching starts_with rule")
	b.shot("test-path")
	b.fill("Path", "/extra")
	b.click("Test")
	b.see("No rule answers /extra: the edge answers 204")

	// Hits and misses (issue #12): live lookups the edge counted show in
	// the rules table and on the Misses tab, where a rule is made of one.
	for range 3 {
		edge("/blog/a")
	}
	for range 4 {
		edge("/missing-page")
	}
	for range 2 {
		edge("/gone-too")
	}
	cellsOf := func(css string) string {
		return get(b, chromedp.Evaluate[string](fmt.Sprintf(`[...document.querySelectorAll(%q)].map(e => e.textContent.trim()).join(",")`, css)))
	}
	waitFor(t, "the rules table shows the hits of /blog/", func() bool {
		b.open("/projects/" + project + "/rules?match=starts_with")
		return cellsOf("td.hits") == "3"
	})
	b.see("Hits", "Last hit")
	if last := cellsOf("td.last-hit"); last != "just now" {
		t.Errorf("last hit of /blog/: %q, want just now", last)
	}
	b.shot("rules-hits")
	var misses map[string]string
	waitFor(t, "the Misses tab lists /missing-page 4 times", func() bool {
		b.open("/projects/" + project + "/misses")
		misses = map[string]string{}
		paths, counts := strings.Split(cellsOf("table.misses td.path"), ","), strings.Split(cellsOf("table.misses td.num"), ",")
		for i := range min(len(paths), len(counts)) {
			misses[paths[i]] = counts[i]
		}
		return misses["/missing-page"] == "4" && misses["/gone-too"] == "2"
	})
	b.see("Misses", "Create rule")
	b.shot("misses")
	b.fill("Destination for /missing-page", "/found")
	b.clickAt(`//button[@aria-label="Create rule for /missing-page"]`)
	b.see("Added to the draft: /missing-page → /found (301). Deploy to make it live.", "/gone-too")
	if paths := cellsOf("table.misses td.path"); strings.Contains(paths, "/missing-page") || !strings.Contains(paths, "/gone-too") {
		t.Errorf("misses after a rule was made of /missing-page: %s", paths)
	}
	b.clickAt(`//button[@aria-label="Forget /gone-too"]`)
	b.see("Forgot /gone-too. New misses of it are counted again.")
	if paths := cellsOf("table.misses td.path"); strings.Contains(paths, "/gone-too") {
		t.Errorf("misses after forgetting /gone-too: %s", paths)
	}
	b.open("/projects/" + project + "/rules?q=/missing-page")
	if hits, last := cellsOf("td.hits"), cellsOf("td.last-hit"); hits != "0" || last != "never" {
		t.Errorf("/missing-page, a rule not deployed yet: hits %q, last hit %q", hits, last)
	}

	// Settings: the test file every deploy runs; a bad one is refused
	// with its line and changes nothing.
	b.click("Settings")
	b.see("No test file stored.", "Deploy gate", "remove more than 10 %")
	b.fill("Test file", "path,status,destination\n/old,301,/elsewhere\n/missing-page,301,/found\n")
	b.click("Save test file")
	b.see("Saved 2 cases: every deploy runs them", "2 cases stored.")
	b.fill("Test file", "path,status,destination\n/old,399,/x\n")
	b.click("Save test file")
	b.see("The test file was not saved:", "line 2", "2 cases stored.")
	b.shot("settings")

	// The deploy page shows the checks before the button: a loop and a
	// failing case block the deploy, which goes through when forced with
	// a reason.
	s.cli(t, "", "rule", "add", "--project", project, "--source", "/loop-a", "--destination", "/loop-b")
	s.cli(t, "", "rule", "add", "--project", project, "--source", "/loop-b", "--destination", "/loop-a")
	b.open("/projects/" + project + "/deploy")
	b.see("Blocked:", "Errors, which block the deploy", "/loop-a", "Failing expected-outcome cases", "/old (line 2)",
		"1 failing case of 2", "Added (4)", "/missing-page", "Deploy anyway, past the errors and failing cases above")
	b.shot("deploy-blocked")
	b.click("Deploy version 4")
	b.see("Nothing was deployed:", "must be fixed, or the deploy forced with a reason.")
	b.run(chromedp.Click(chromedp.ID("force")))
	b.fill("Reason (recorded in the audit log; needed to deploy anyway)", "the loop goes with tonight's fix")
	b.click("Deploy version 4")
	b.see("Deployed version 4")
	waitFor(t, "the edge answers the rule made of a miss", func() bool {
		code, body := edge("/missing-page")
		return code == 200 && strings.Contains(body, `"/found"`)
	})
	b.open("/orgs/" + s.org + "/audit")
	b.see("the loop goes with tonight's fix")

	// The shrink guard: removing most live rules needs the confirmation
	// box. (The test file goes first, emptied in Settings.)
	b.open("/projects/" + project + "/settings")
	get(b, chromedp.Evaluate[bool](`(document.getElementById("tests").value = "") === ""`))
	b.click("Save test file")
	b.see("The test file is removed: deploys run no expected-outcome cases.", "No test file stored.")
	var more strings.Builder
	more.WriteString("source,destination,statusCode,matchType\n")
	for i := range 20 {
		fmt.Fprintf(&more, "/shrink/%02d,/kept,301,exact\n", i)
	}
	s.cli(t, more.String(), "rule", "import", "--project", project, "-")
	s.cli(t, "", "deploy", "--project", project, "--force", "--reason", "twenty more")
	for _, q := range []string{"/shrink/*", "/loop-*"} {
		b.open("/projects/" + project + "/rules?q=" + url.QueryEscape(q))
		b.clickAt(`//a[starts-with(normalize-space(), "Delete the ")]`)
		b.clickAt(`//button[starts-with(normalize-space(), "Delete ")]`)
		b.see("Deleted ")
	}
	b.open("/projects/" + project + "/deploy")
	b.see("Needs confirmation:", "removes 22 of 26 live rules", "Yes, remove 22 of the 26 live rules")
	b.notSee("Deploy anyway")
	b.shot("deploy-shrink")
	b.click("Deploy version 6")
	b.see("Nothing was deployed: this deploy removes 22 of 26 live rules (84.6 %); the project's limit is 10 %.")
	b.run(chromedp.Click(chromedp.ID("allow-shrink")))
	b.click("Deploy version 6")
	b.see("Deployed version 6 (3 exact rules, 1 starts_with rule)")

	// Revoking the key: the edge refuses it.
	b.open("/projects/" + project + "/keys")
	b.click("Revoke")
	last4 := secret[len(secret)-4:]
	b.see("Revoke key …" + last4 + "? Requests with it will get 401 within a second.")
	b.shot("key-revoke")
	b.click("Revoke key …" + last4)
	b.see("Revoked key …"+last4+".", "revoked")
	waitFor(t, "the edge refuses the revoked key", func() bool {
		code, _ := edge("/old")
		return code == 401
	})

	// Members: an owner adds a user, changes the role, removes them.
	s.cli(t, dashboardPassword+"\n", "user", "create", "--email", "bob@example.com", "--password-stdin")
	b.open("/orgs/" + s.org)
	b.click("Members")
	b.see("alice@example.com", "owner", "you")
	b.fill("Email address", "nobody@example.com")
	b.click("Add member")
	b.see("Email address: no user has the address nobody@example.com.")
	b.fill("Email address", "bob@example.com")
	b.choose("Role", "editor")
	b.click("Add member")
	b.see("bob@example.com is now editor of this organization.")
	b.shot("members")
	b.choose("Role of bob@example.com", "viewer")
	b.clickAt(`//button[@aria-label="Change role of bob@example.com"]`)
	b.see("bob@example.com is now viewer.")

	// A viewer reads the rules but cannot change them: no controls, and a
	// change asked for by hand is refused (issue #11).
	b.open("/projects/" + project + "/rules?q=/old")
	editPath := get(b, chromedp.Evaluate[string](`document.querySelector('a[aria-label="Edit /old"]').getAttribute('href')`))
	b.click("Sign out")
	b.see("You are signed out.")
	b.open("/login")
	b.fill("Email address", "bob@example.com")
	b.fill("Password", dashboardPassword)
	b.click("Sign in")
	b.see("Acme", "bob@example.com", "Your role: viewer", "Shop")
	b.open("/projects/" + project + "/rules")
	b.see("Draft rules", "/old", "/blog/", "https://blog.example.com/", "Test")
	for _, control := range []string{"Add a rule", "Add rule", "Source path", "Edit", "Delete"} {
		b.notSee(control)
	}
	b.shot("viewer-rules")
	forbidden := "Role viewer may not edit rules in organization " + s.org + ": it needs editor or above."
	b.open(editPath)
	b.see("Forbidden", forbidden)
	b.notSee("Save rule")
	b.open("/projects/" + project + "/rules")
	get(b, chromedp.Evaluate[bool](fmt.Sprintf(`window.__before = true;
		(() => {
			const f = document.createElement('form');
			f.method = 'post';
			f.action = %q;
			const fields = {csrf: document.querySelector('input[name="csrf"]').value, source: '/old', destination: '/viewer', status: '301', match: 'exact', priority: '0', revision: '1'};
			for (const [k, v] of Object.entries(fields)) {
				const i = document.createElement('input');
				i.type = 'hidden'; i.name = k; i.value = v;
				f.appendChild(i);
			}
			document.body.appendChild(f);
			f.submit();
			return true;
		})()`, editPath)))
	b.waitLoad()
	b.see("Forbidden", forbidden)
	b.open("/projects/" + project + "/rules?q=/old")
	b.see("/old")
	b.notSee("/viewer")
	b.click("Sign out")
	b.see("You are signed out.")
	b.open("/login")
	b.fill("Email address", "alice@example.com")
	b.fill("Password", dashboardPassword)
	b.click("Sign in")
	b.see("Acme", "alice@example.com", "Your role: owner")
	b.open("/orgs/" + s.org + "/members")
	b.see("bob@example.com", "viewer")

	b.clickAt(`//a[@aria-label="Remove bob@example.com"]`)
	b.see("Remove bob@example.com?", "loses access to Acme")
	b.shot("member-remove")
	b.click("Remove bob@example.com")
	b.see("Removed bob@example.com from the organization")
	b.notSee("bob@example.com is now")

	// Tokens: the secret is shown once and works on the API until revoked.
	b.click("Tokens")
	b.see("No management token yet")
	b.fill("Label", "CI deploys")
	b.choose("Role", "editor")
	b.choose("Expires", "90d")
	b.click("Create token")
	b.see("New editor token “CI deploys”.", "This is the only time it is shown")
	token := strings.TrimSpace(get(b, chromedp.Text(chromedp.ID("new-secret"))))
	if !strings.HasPrefix(token, "redir_mgmt_") {
		t.Fatalf("the new token: %q", token)
	}
	b.shot("token-created")
	withToken := func() int {
		req, _ := http.NewRequest("GET", s.manage+"/manage/v1/orgs/"+s.org+"/projects", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := withToken(); code != 200 {
		t.Fatalf("the new token on the API: %d", code)
	}
	b.click("Done: I have copied it")
	b.notSee(token)
	b.see("CI deploys", "editor", "alice@example.com", "…"+token[len(token)-4:])
	b.click("Revoke")
	b.see("Revoke token …" + token[len(token)-4:] + "?")
	b.shot("token-revoke")
	b.click("Revoke token …" + token[len(token)-4:])
	b.see("Revoked token …" + token[len(token)-4:])
	if code := withToken(); code != 401 {
		t.Fatalf("the revoked token on the API: %d", code)
	}

	// Webhooks: the secret is shown once; a test event to a receiver on
	// 127.0.0.1, which serve refuses without --webhook-allow-private, is
	// listed with its refused attempt and can be redelivered.
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer rcv.Close()
	b.click("Webhooks")
	b.see("No webhook yet")
	b.fill("URL", rcv.URL+"/hooks")
	b.fill("Actions", "deployment.create, rule.*")
	b.click("Create webhook")
	b.see("Signing secret of "+rcv.URL+"/hooks.", "This is the only time it is shown")
	hookSecret := strings.TrimSpace(get(b, chromedp.Text(chromedp.ID("new-secret"))))
	if !strings.HasPrefix(hookSecret, "whsec_") {
		t.Fatalf("the new webhook's secret: %q", hookSecret)
	}
	b.shot("webhook-created")
	b.click("Done: I have copied it")
	b.notSee(hookSecret)
	b.see(rcv.URL+"/hooks", "deployment.create", "rule.*", "active")
	b.click("Send a test event")
	b.see("A test event is on its way", "webhook.test")
	waitFor(t, "the test event's refused attempt is listed", func() bool {
		b.open(b.location())
		return strings.Contains(b.text(), "refused: not a public address")
	})
	b.shot("webhook-deliveries")
	b.click("Redeliver")
	b.see("is due again")
	b.click("Webhooks")
	b.click("Pause")
	b.see("Paused "+rcv.URL+"/hooks", "paused", "Resume")
	b.shot("webhooks")
	b.click("Delete")
	b.see("Deleted the webhook to "+rcv.URL+"/hooks", "No webhook yet")

	// Usage: the live lookups made above, counted against the quota.
	b.click("Usage")
	b.see("of a monthly quota of 1,000,000", "Live lookups a month, the last 12 months")
	waitFor(t, "the usage page counts the lookups", func() bool {
		b.open("/orgs/" + s.org + "/usage")
		n := strings.TrimSpace(get(b, chromedp.Text(chromedp.ID("usage-this-month"))))
		return n != "0"
	})
	// This month day by day and per key: the key's lookups of today,
	// once the edge has flushed them (every second).
	b.see("Rate limit: 1,000 requests a minute", "This month, day by day", "Keys this month", "storefront …"+last4)
	var keyToday string
	waitFor(t, "the usage page counts the key's lookups of today", func() bool {
		b.open("/orgs/" + s.org + "/usage")
		keyToday = strings.TrimSpace(get(b, chromedp.Text(chromedp.CSS("#usage-keys tbody tr .key-today"))))
		return keyToday != "0"
	})
	if total := strings.TrimSpace(get(b, chromedp.Text(chromedp.ID("usage-this-month")))); keyToday != total {
		t.Errorf("the key's lookups today: %s; the month's, all made today with it: %s", keyToday, total)
	}
	b.notSee("of the monthly quota is used")
	b.shot("usage")
	// At 80 % of the quota the page warns.
	n, err := strconv.Atoi(strings.ReplaceAll(keyToday, ",", ""))
	if err != nil {
		t.Fatal(err)
	}
	s.cli(t, "", "org", "update", s.org, "--monthly-quota", strconv.Itoa(n*5/4))
	b.open("/orgs/" + s.org + "/usage")
	b.see(strconv.Itoa(n*100/(n*5/4))+"% of the monthly quota is used.", "Lookups over the quota are refused")
	b.shot("usage-warning")
	s.cli(t, "", "org", "update", s.org, "--monthly-quota", "default")

	// Audit: every change above, by its author, filterable, as CSV.
	b.open("/orgs/" + s.org + "/audit")
	b.see("deployment.create", "rule.create", "member.remove", "alice@example.com")
	b.shot("audit")
	b.fill("Action", "deployment.*")
	b.click("Filter")
	b.see("6 entries shown", "deployment.create")
	b.notSee("rule.create")

	// Sign out ends the session: pages go back to the sign-in form.
	b.click("Sign out")
	b.see("You are signed out.")
	b.open("/orgs/" + s.org)
	if loc := b.location(); !strings.HasPrefix(loc, "/login") {
		t.Fatalf("after sign-out /orgs went to %s", loc)
	}

	// Operators: every organization, created and changed with its tier
	// and overrides.
	b.fill("Email address", "ops@example.com")
	b.fill("Password", dashboardPassword)
	b.click("Sign in")
	b.click("Organizations")
	b.see("Every organization of the service", "Acme", "pro", "1000")
	b.fill("Name", "Beta")
	b.choose("Tier", "free")
	b.fill("Rate limit override", "50")
	b.click("Create organization")
	b.see("Created organization Beta. Give it its first owner here.", "Members")
	b.click("Organizations")
	b.see("Beta", "override", "10000")
	b.shot("operator-orgs")
	b.clickAt(`//a[@aria-label="Edit Beta"]`)
	b.see("Edit Beta", "Save organization")
	b.shot("operator-org-edit")
	b.choose("Tier", "pro")
	b.fill("Monthly quota override (requests a month; empty for the tier's 10000)", "unlimited")
	b.click("Save organization")
	b.see("Saved Beta: pro, 50 requests a minute, unlimited a month.")

	// Change password: the form, and a wrong current password refused.
	b.clickAt(`//header//a[normalize-space()="Change password"]`)
	b.see("Change your password", "Current password", "New password again")
	b.shot("password")
	b.fill("Current password", "not the password")
	b.fill("New password", "a new password, long enough")
	b.fill("New password again", "a new password, long enough")
	b.clickAt(`//main//button[normalize-space()="Change password"]`)
	b.see("The current password is wrong: nothing was changed.")
	b.shot("password-error")

	// A page that does not exist is an error page with the top bar.
	b.open("/projects/prj_missing/rules")
	b.see("This project does not exist, or you have no access to it.", "Back to your organizations")
	b.shot("not-found")

	// A one-time password leads to the change-password form first; bob,
	// removed from Acme above, then lands on the page of no organization.
	_, errs, code := inProcess(t, s.db, "", "user", "reset-password", "bob@example.com")
	once := regexp.MustCompile(`one-time password \(shown only now\): (\S+)`).FindStringSubmatch(errs)
	if code != 0 || once == nil {
		t.Fatalf("user reset-password: %d %s", code, errs)
	}
	b.click("Sign out")
	b.fill("Email address", "bob@example.com")
	b.fill("Password", once[1])
	b.click("Sign in")
	b.see("Your password is a one-time password someone else chose: set your own to go on.")
	if loc := b.location(); !strings.HasPrefix(loc, "/account/password") {
		t.Fatalf("a sign-in with a one-time password went to %s", loc)
	}
	b.shot("password-required")
	b.fill("Current password", once[1])
	b.fill("New password", dashboardPassword+" again")
	b.fill("New password again", dashboardPassword+" again")
	b.clickAt(`//main//button[normalize-space()="Change password"]`)
	b.see("Your password is changed.", "No organization yet")
	b.shot("home-empty")
}

// TestQuickstartPrintsTheDashboard: quickstart prints the dashboard's
// address, and its one-time login signs in there.
func TestQuickstartPrintsTheDashboard(t *testing.T) {
	storeIndependent(t, "it runs on a SQLite file of its own")
	db := "sqlite:" + filepath.Join(t.TempDir(), "r.db")
	r := start(t, db, "quickstart", "--addr", "127.0.0.1:0", "--admin-addr", "", "--manage-addr", "127.0.0.1:0")
	dashboard := regexp.MustCompile(`Dashboard: (http://\S+)/  \(sign in with the login below\)\nManagement API: \S+\nLogin: (\S+)  one-time password \(shown once\): (\S+)`)
	var m []string
	waitFor(t, "quickstart prints the dashboard", func() bool {
		m = dashboard.FindStringSubmatch(r.out.String())
		return m != nil
	})
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	res, err := c.Get(m[1] + "/login")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	token := loginFormToken(t, string(page))
	res, err = c.PostForm(m[1]+"/login", url.Values{"csrf": {token}, "email": {m[2]}, "password": {m[3]}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	// The one-time password is changed first: the sign-in lands on the
	// change-password page, and after the change on the organization.
	if res.StatusCode != 200 || res.Request.URL.Path != "/account/password" || !strings.Contains(string(body), "one-time password someone else chose") {
		t.Fatalf("the quickstart login on the dashboard: %d %s, want the change-password page\n%s", res.StatusCode, res.Request.URL, body)
	}
	csrf := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(string(body))[1]
	const fresh = "my own passphrase, not the printed one"
	res, err = c.PostForm(m[1]+"/account/password", url.Values{"csrf": {csrf}, "next": {"/"}, "current-password": {m[3]}, "new-password": {fresh}, "new-password-again": {fresh}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "Demo") || !strings.Contains(string(body), m[2]) || !strings.Contains(string(body), "Your password is changed.") {
		t.Fatalf("after changing the quickstart password: %d %s\n%s", res.StatusCode, res.Request.URL, body)
	}
}
