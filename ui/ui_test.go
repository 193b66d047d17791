package ui

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"redirects"
	"redirects/manage"
	"redirects/sqlite"
)

// env is the dashboard on a SQLite file with an organization, a project
// and a signed-in owner.
type env struct {
	t       *testing.T
	db      *sqlite.DB
	h       http.Handler
	cookie  string
	csrf    string
	org     *redirects.Org
	project *redirects.Project
}

func newEnv(t testing.TB) *env {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "redirects.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	hash, err := redirects.HashPassword("correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	u := &redirects.User{Email: "owner@example.com", PasswordHash: hash}
	if err := db.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	o := &redirects.Org{Name: "Acme", Tier: redirects.TierPro}
	if err := db.CreateOrg(ctx, o); err != nil {
		t.Fatal(err)
	}
	if err := db.SetMember(ctx, &redirects.Membership{OrgID: o.ID, UserID: u.ID, Role: redirects.RoleOwner}); err != nil {
		t.Fatal(err)
	}
	p := &redirects.Project{OrgID: o.ID, Name: "Shop"}
	if err := db.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	s, secret := redirects.NewSession(u.ID, redirects.SystemClock{}.Now(), manage.DefaultSessionTTL)
	if err := db.CreateSession(ctx, s); err != nil {
		t.Fatal(err)
	}
	e := &env{db: db, h: Handler(Config{Store: db, Accounts: db, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))}), cookie: secret, csrf: s.CSRFToken, org: o, project: p}
	if tt, ok := t.(*testing.T); ok {
		e.t = tt
	}
	return e
}

// do sends a request with the session cookie (when signedIn) and returns
// the answer and its body.
func (e *env) do(method, target string, form url.Values, signedIn bool) (*http.Response, string) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, target, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if signedIn {
		req.AddCookie(&http.Cookie{Name: manage.SessionCookie, Value: e.cookie})
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec.Result(), rec.Body.String()
}

func TestPagesCarryTheSecurityHeaders(t *testing.T) {
	e := newEnv(t)
	for _, path := range []string{"/login", "/orgs/" + e.org.ID, "/projects/" + e.project.ID + "/rules"} {
		res, body := e.do("GET", path, nil, path != "/login")
		if res.StatusCode != 200 {
			t.Fatalf("GET %s: %d\n%s", path, res.StatusCode, body)
		}
		for k, v := range map[string]string{
			"Content-Security-Policy": contentSecurityPolicy,
			"X-Frame-Options":         "DENY",
			"X-Content-Type-Options":  "nosniff",
			"Referrer-Policy":         "same-origin",
			"Cache-Control":           "no-store",
		} {
			if got := res.Header.Get(k); got != v {
				t.Errorf("GET %s: %s = %q, want %q", path, k, got, v)
			}
		}
		if strings.Contains(body, "<script>") || strings.Contains(body, " style=") || strings.Contains(body, "onclick=") {
			t.Errorf("GET %s holds inline script or style", path)
		}
	}
}

func TestSignedOutPagesGoToLogin(t *testing.T) {
	e := newEnv(t)
	res, _ := e.do("GET", "/projects/"+e.project.ID+"/rules?q=x", nil, false)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/login?next="+url.QueryEscape("/projects/"+e.project.ID+"/rules?q=x") {
		t.Fatalf("signed out: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	for _, next := range []string{"//evil.example", "https://evil.example/", "/\\evil", "/login"} {
		if got := safeNext(next); got != "/" {
			t.Errorf("safeNext(%q) = %q", next, got)
		}
	}
}

func TestFormsNeedTheCSRFToken(t *testing.T) {
	e := newEnv(t)
	form := url.Values{"source": {"/a"}, "destination": {"/b"}, "status": {"301"}, "match": {"exact"}}
	res, body := e.do("POST", "/projects/"+e.project.ID+"/rules", form, true)
	if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "CSRF token is missing or wrong") {
		t.Fatalf("without the token: %d\n%s", res.StatusCode, body)
	}
	form.Set("csrf", "x"+e.csrf[1:])
	if res, _ := e.do("POST", "/projects/"+e.project.ID+"/rules", form, true); res.StatusCode != http.StatusForbidden {
		t.Fatalf("with a wrong token: %d", res.StatusCode)
	}
	if n, _ := e.db.FindRules(context.Background(), e.project.ID); len(n) != 0 {
		t.Fatalf("a refused form added %d rules", len(n))
	}
	form.Set("csrf", e.csrf)
	if res, _ := e.do("POST", "/projects/"+e.project.ID+"/rules", form, true); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("with the token: %d", res.StatusCode)
	}
	if n, _ := e.db.FindRules(context.Background(), e.project.ID); len(n) != 1 {
		t.Fatalf("after the form: %d rules", len(n))
	}
}

func TestStaticAssetsAreHashedAndCached(t *testing.T) {
	e := newEnv(t)
	name := assetNames["app.css"]
	if name == "" || name == "app.css" {
		t.Fatalf("app.css has no hashed name: %q", name)
	}
	res, body := e.do("GET", "/static/"+name, nil, false)
	if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Cache-Control"), "immutable") || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/css") || !strings.Contains(body, "prefers-color-scheme") {
		t.Fatalf("GET /static/%s: %d %v", name, res.StatusCode, res.Header)
	}
	if res, _ := e.do("GET", "/static/app.css", nil, false); res.StatusCode != 404 {
		t.Fatalf("the unhashed name: %d", res.StatusCode)
	}
}

func TestOtherOrganizationsReadAsMissing(t *testing.T) {
	e := newEnv(t)
	other := &redirects.Org{Name: "Other", Tier: redirects.TierFree}
	if err := e.db.CreateOrg(context.Background(), other); err != nil {
		t.Fatal(err)
	}
	p := &redirects.Project{OrgID: other.ID, Name: "Theirs"}
	if err := e.db.CreateProject(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/orgs/" + other.ID, "/projects/" + p.ID + "/rules", "/projects/prj_missing/rules",
		"/projects/" + p.ID + "/misses", "/projects/" + p.ID + "/settings"} {
		res, body := e.do("GET", path, nil, true)
		if res.StatusCode != 404 || !strings.Contains(body, "does not exist, or you have no access to it") || strings.Contains(body, "Theirs") {
			t.Errorf("GET %s: %d\n%s", path, res.StatusCode, body)
		}
	}
	for _, path := range []string{"/projects/" + p.ID + "/misses/rule", "/projects/" + p.ID + "/misses/forget", "/projects/" + p.ID + "/settings/tests"} {
		form := url.Values{"csrf": {e.csrf}, "path": {"/a"}, "destination": {"/b"}, "tests": {"path,status,destination\n/a,301,/b\n"}}
		if res, body := e.do("POST", path, form, true); res.StatusCode != 404 || strings.Contains(body, "Theirs") {
			t.Errorf("POST %s: %d\n%s", path, res.StatusCode, body)
		}
	}
	if rules, _ := e.db.FindRules(context.Background(), p.ID); len(rules) != 0 {
		t.Errorf("another organization's member added %d rules", len(rules))
	}
}

func TestHelpers(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1000000: "1,000,000", -12345: "-12,345"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
	if got := plural(1, "rule"); got != "1 rule" {
		t.Errorf("plural 1: %q", got)
	}
	if got := plural(2, "entry"); got != "2 entries" {
		t.Errorf("plural entry: %q", got)
	}
	if got := plural(1500, "rule"); got != "1,500 rules" {
		t.Errorf("plural 1500: %q", got)
	}
}

func TestDeployNamesItsAuthor(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if err := e.db.AddRule(ctx, &redirects.Rule{ProjectID: e.project.ID, Source: "/a", Destination: "/b", StatusCode: 301, Priority: 100}); err != nil {
		t.Fatal(err)
	}
	res, body := e.do("POST", "/projects/"+e.project.ID+"/deploy", url.Values{"csrf": {e.csrf}, "message": {"First"}}, true)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("deploy: %d\n%s", res.StatusCode, body)
	}
	_, body = e.do("GET", "/projects/"+e.project.ID+"/history", nil, true)
	if !strings.Contains(body, "by owner@example.com") {
		t.Fatalf("history does not name the author:\n%s", body)
	}
}

func TestAuditCSV(t *testing.T) {
	e := newEnv(t)
	res, body := e.do("GET", "/orgs/"+e.org.ID+"/audit.csv?action=project.*", nil, true)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
		!strings.HasPrefix(body, "id,time,orgId,projectId,actorKind,") || !strings.Contains(body, "project.create") || strings.Contains(body, "member.add") {
		t.Fatalf("audit.csv: %d %v\n%s", res.StatusCode, res.Header, body)
	}
}

func TestViewersMayNotChangeAnything(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	owner, err := e.db.FindUserByEmail(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := e.db.SetMember(ctx, &redirects.Membership{OrgID: e.org.ID, UserID: owner.ID, Role: redirects.RoleViewer}); err != nil {
		t.Fatal(err)
	}
	_, body := e.do("GET", "/projects/"+e.project.ID+"/rules", nil, true)
	if strings.Contains(body, "Add rule") || strings.Contains(body, "Deploy version") {
		t.Fatalf("a viewer's rules page offers changes:\n%s", body)
	}
	for _, path := range []string{"/projects/" + e.project.ID + "/rules", "/projects/" + e.project.ID + "/deploy", "/projects/" + e.project.ID + "/keys", "/orgs/" + e.org.ID + "/projects",
		"/projects/" + e.project.ID + "/import", "/projects/" + e.project.ID + "/import/apply",
		"/projects/" + e.project.ID + "/import/undo", "/projects/" + e.project.ID + "/import/settings",
		"/projects/" + e.project.ID + "/misses/rule", "/projects/" + e.project.ID + "/misses/forget", "/projects/" + e.project.ID + "/settings/tests",
		"/projects/" + e.project.ID + "/settings/matching"} {
		form := url.Values{"csrf": {e.csrf}, "source": {"/a"}, "path": {"/a"}, "destination": {"/b"}, "status": {"301"}, "match": {"exact"}, "name": {"x"},
			"tests": {"path,status,destination\n/a,301,/b\n"}, "case": {"ignore"}, "trailing-slash": {"ignore"}}
		if res, body := e.do("POST", path, form, true); res.StatusCode != http.StatusForbidden {
			t.Errorf("a viewer's POST %s: %d\n%s", path, res.StatusCode, body)
		}
	}
	if res, body := e.postFile(e.cookie, map[string]string{"csrf": e.csrf, "mode": "append"}, goodCSV); res.StatusCode != http.StatusForbidden {
		t.Errorf("a viewer's import: %d\n%s", res.StatusCode, body)
	}
	if rules, _ := e.db.FindRules(ctx, e.project.ID); len(rules) != 0 {
		t.Fatalf("a viewer added %d rules", len(rules))
	}
	if tests, _ := e.db.FindProjectTests(ctx, e.project.ID); tests != "" {
		t.Fatalf("a viewer stored a test file: %q", tests)
	}
}

func TestOperatorPagesAreForOperators(t *testing.T) {
	e := newEnv(t)
	res, body := e.do("GET", "/operator/orgs", nil, true)
	if res.StatusCode != http.StatusForbidden || strings.Contains(body, "Every organization of the service") {
		t.Fatalf("an owner on /operator/orgs: %d\n%s", res.StatusCode, body)
	}
	if res, _ := e.do("POST", "/operator/orgs", url.Values{"csrf": {e.csrf}, "name": {"X"}, "tier": {"free"}}, true); res.StatusCode != http.StatusForbidden {
		t.Fatalf("an owner creating an organization: %d", res.StatusCode)
	}
	if orgs, _ := e.db.FindOrgs(context.Background()); len(orgs) != 1 {
		t.Fatalf("%d organizations after a refused create", len(orgs))
	}
}

// TestKeysShowLastUse: the API Keys tab shows the last day a key had
// lookups counted, as the API's key list does, and says so when it had none.
func TestKeysShowLastUse(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	used := &redirects.Key{ProjectID: e.project.ID, Name: "storefront"}
	idle := &redirects.Key{ProjectID: e.project.ID, Name: "backup"}
	for _, k := range []*redirects.Key{used, idle} {
		nk, _ := redirects.NewKey(k.ProjectID, k.Name, false, redirects.SystemClock{}.Now())
		if err := e.db.CreateKey(ctx, nk); err != nil {
			t.Fatal(err)
		}
		*k = *nk
	}
	today := redirects.UsageDay(redirects.SystemClock{}.Now())
	if err := e.db.AddKeyUsage(ctx, []redirects.DailyUsage{{KeyID: used.ID, Day: today, Count: 3}}); err != nil {
		t.Fatal(err)
	}
	res, body := e.do("GET", "/projects/"+e.project.ID+"/keys", nil, true)
	if res.StatusCode != 200 {
		t.Fatalf("keys page: %d", res.StatusCode)
	}
	row := func(name string) string {
		i := strings.Index(body, name)
		if i < 0 {
			t.Fatalf("the keys page does not list %s:\n%s", name, body)
		}
		j := strings.Index(body[i:], "</tr>")
		return body[i : i+j]
	}
	if r := row("storefront"); !strings.Contains(r, today) {
		t.Errorf("the used key's row does not show %s: %s", today, r)
	}
	if r := row("backup"); !strings.Contains(r, "not this month or last") {
		t.Errorf("the idle key's row does not say it was not used: %s", r)
	}
}
