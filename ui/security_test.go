package ui

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"redirects/manage"
)

// TestSafeNextRefusesTheKnownBypasses: every way a post-login target has
// been made to leave a site goes to "/", and plain paths on this site are
// kept as they are.
func TestSafeNextRefusesTheKnownBypasses(t *testing.T) {
	for _, next := range []string{
		"", "evil.example", "//evil.example", "///evil.example", "https://evil.example/", "https:evil.example",
		"http:/evil.example", "javascript:alert(1)", "/\\evil.example", "/\\/evil.example", "\\/evil.example",
		"/\t/evil.example", "/\r/evil.example", "/\n/evil.example", "\t//evil.example", " /evil", "/ /evil",
		"/\x00/evil.example", "/\x7f/evil.example", "/%2F/evil.example", "/%2f%2fevil.example", "/%5Cevil.example",
		"/%09/evil.example", "/%0d%0a/evil.example", "/login", "/login?next=//evil.example", "/a\\b",
		"/%zz", "/@evil.example\\", "/\u00a0/x\t",
	} {
		if got := safeNext(next); got != "/" {
			t.Errorf("safeNext(%q) = %q, want /", next, got)
		}
	}
	for _, next := range []string{"/", "/projects/prj_1/rules?q=%2Fold&page=2", "/orgs/org_1", "/projects/p/rules#top", "/caf%C3%A9"} {
		if got := safeNext(next); got != next {
			t.Errorf("safeNext(%q) = %q, want it kept", next, got)
		}
	}
}

// TestLoginAfterSignInStaysOnSite: the GET /login of a signed-in user
// with a tab in next (which browsers strip, leaving //evil.example) goes
// home.
func TestLoginAfterSignInStaysOnSite(t *testing.T) {
	e := newEnv(t)
	for _, next := range []string{"%2F%09%2Fevil.example", "%2F%5C%2Fevil.example", "https%3A%2F%2Fevil.example"} {
		res, _ := e.do("GET", "/login?next="+next, nil, true)
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
			t.Errorf("GET /login?next=%s signed in: %d Location %q, want 303 /", next, res.StatusCode, res.Header.Get("Location"))
		}
	}
}

// loginForm fetches the sign-in page and returns its cookie and token.
func (e *env) loginForm(t *testing.T) (cookie, token string) {
	t.Helper()
	res, body := e.do("GET", "/login", nil, false)
	for _, c := range res.Cookies() {
		if c.Name == loginCSRFCookie {
			cookie = c.Value
		}
	}
	i := strings.Index(body, `name="csrf" value="`)
	if cookie == "" || i < 0 {
		t.Fatalf("GET /login: no %s cookie or no csrf field: %v\n%s", loginCSRFCookie, res.Cookies(), body)
	}
	token = body[i+len(`name="csrf" value="`):]
	token = token[:strings.IndexByte(token, '"')]
	return cookie, token
}

func (e *env) postLogin(cookie string, form url.Values, header http.Header) *http.Response {
	req := httptest.NewRequest("POST", "/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header[k] = v
	}
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: loginCSRFCookie, Value: cookie})
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec.Result()
}

// TestLoginTokenIsBoundOnTheServer: a planted cookie with a form field of
// the planter's choosing (the double-submit of old) is refused with 403
// before the password is checked; so are a token of another cookie, a
// token of another server's key, and a form a browser says came from
// another origin. The page's own cookie and token sign in.
func TestLoginTokenIsBoundOnTheServer(t *testing.T) {
	e := newEnv(t)
	const pw = "correct horse battery staple"
	cookie, token := e.loginForm(t)
	if token == cookie {
		t.Fatalf("the form's token is the cookie's value: it must be bound on the server")
	}
	planted := strings.Repeat("A", 32)
	other := Handler(Config{Store: e.db, Accounts: e.db, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	otherEnv := &env{db: e.db, h: other}
	otherCookie, otherToken := otherEnv.loginForm(t)
	for _, tc := range []struct {
		name, cookie, token string
		header              http.Header
	}{
		{"a planted cookie sent back as the token", planted, planted, nil},
		{"the page's cookie sent back as the token", cookie, cookie, nil},
		{"another cookie's token", planted, token, nil},
		{"no cookie", "", token, nil},
		{"no token", cookie, "", nil},
		{"another server key's token", otherCookie, otherToken, nil},
		{"a form from a sibling subdomain", cookie, token, http.Header{"Sec-Fetch-Site": {"same-site"}}},
		{"a form from another site", cookie, token, http.Header{"Sec-Fetch-Site": {"cross-site"}}},
	} {
		res := e.postLogin(tc.cookie, url.Values{"csrf": {tc.token}, "email": {"owner@example.com"}, "password": {pw}}, tc.header)
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", tc.name, res.StatusCode)
		}
		for _, c := range res.Cookies() {
			if c.Name == manage.SessionCookie && c.Value != "" {
				t.Errorf("%s: a session cookie was set", tc.name)
			}
		}
	}
	if res := e.postLogin(cookie, url.Values{"csrf": {token}, "email": {"owner@example.com"}, "password": {"wrong"}}, http.Header{"Sec-Fetch-Site": {"same-origin"}}); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the page's own token with a wrong password: %d, want 401", res.StatusCode)
	}
	res := e.postLogin(cookie, url.Values{"csrf": {token}, "email": {"owner@example.com"}, "password": {pw}}, http.Header{"Sec-Fetch-Site": {"same-origin"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("the page's own token: %d, want 303", res.StatusCode)
	}
}

// TestHSTSOnEveryAnswerOverTLS: with Secure set (the listener serves TLS),
// every dashboard answer carries Strict-Transport-Security: pages, the
// sign-in page, static files, redirects, errors; without it, none does.
func TestHSTSOnEveryAnswerOverTLS(t *testing.T) {
	e := newEnv(t)
	paths := []struct {
		path     string
		signedIn bool
	}{{"/login", false}, {"/", false}, {"/static/" + assetNames["app.css"], false}, {"/favicon.ico", false},
		{"/orgs/" + e.org.ID, true}, {"/projects/" + e.project.ID + "/rules", true}, {"/no/such/page", true}}
	for _, secure := range []bool{false, true} {
		e.h = Handler(Config{Store: e.db, Accounts: e.db, Secure: secure, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
		for _, p := range paths {
			res, _ := e.do("GET", p.path, nil, p.signedIn)
			got := res.Header.Get("Strict-Transport-Security")
			if secure && got != "max-age=31536000" {
				t.Errorf("over TLS, GET %s (%d): Strict-Transport-Security %q", p.path, res.StatusCode, got)
			}
			if !secure && got != "" {
				t.Errorf("without TLS, GET %s: Strict-Transport-Security %q", p.path, got)
			}
		}
	}
}
