package manage

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/api"
	"redirects/service"
)

// TestSessions: login, the cookie's flags, logout and a disabled user end
// a session at once, and the session's expiry.
func TestSessions(t *testing.T) { runSuite(t, testSessions) }

func testSessions(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("A")
	u, pw := e.user("carol@example.com", false)
	if err := e.store.SetMember(e.ctx, &redirects.Membership{OrgID: a.org.ID, UserID: u.ID, Role: redirects.RoleEditor}); err != nil {
		t.Fatal(err)
	}
	e.anon().do("POST", "/manage/v1/session", map[string]string{"email": u.Email, "password": pw + "x"}).want(t, 401, codeUnauthenticated)
	_, wrong := e.anon().do("POST", "/manage/v1/session", map[string]string{"email": "nobody@example.com", "password": pw}).want(t, 401).errBody(t)
	_, wrongPw := e.anon().do("POST", "/manage/v1/session", map[string]string{"email": u.Email, "password": "not the password"}).want(t, 401).errBody(t)
	if wrong != wrongPw {
		t.Errorf("an unknown address answers %q, a wrong password %q: they must not differ", wrong, wrongPw)
	}

	c, r := e.login(" Carol@Example.com ", pw)
	if c == nil {
		t.Fatalf("login: %d %s", r.status, r.body)
	}
	var s api.Session
	r.decode(t, &s)
	if s.User.ID != u.ID || s.User.Email != u.Email || s.User.Operator || len(s.CSRFToken) < 20 || s.ExpiresAt == "" {
		t.Fatalf("login answered %+v", s)
	}
	ck := sessionCookie(t, r)
	if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" || ck.Secure || ck.MaxAge <= 0 {
		t.Errorf("cookie %+v: want HttpOnly, SameSite=Lax, Path=/, not Secure without TLS, a Max-Age", ck)
	}
	var who api.Session
	c.do("GET", "/manage/v1/session", nil).want(t, 200).decode(t, &who)
	if who.CSRFToken != s.CSRFToken || who.User.ID != u.ID {
		t.Errorf("GET /session = %+v", who)
	}
	pbase := "/manage/v1/projects/" + a.project.ID
	c.do("POST", pbase+"/rules", map[string]string{"source": "/s1", "destination": "/d"}).want(t, 201)

	// The audit log names the user by email, from 127.0.0.1.
	es, err := e.store.FindAudit(e.ctx, redirects.AuditFilter{OrgID: a.org.ID, Action: redirects.AuditRuleCreate, Limit: 1})
	if err != nil || len(es) != 1 {
		t.Fatalf("FindAudit: %v %v", es, err)
	}
	if got := es[0].Actor; got.Kind != redirects.ActorUser || got.ID != u.ID || got.Label != u.Email || got.RemoteAddr != "127.0.0.1" {
		t.Errorf("audit actor = %+v", got)
	}

	// Logout ends the session at once.
	c.do("DELETE", "/manage/v1/session", nil).want(t, 204)
	c.do("GET", "/manage/v1/session", nil).want(t, 401, codeUnauthenticated)
	c.do("POST", pbase+"/rules", map[string]string{"source": "/s2", "destination": "/d"}).want(t, 401, codeUnauthenticated)

	// Disabling the user ends their session at once.
	c2, _ := e.login(u.Email, pw)
	c2.do("GET", "/manage/v1/orgs", nil).want(t, 200)
	if _, err := e.store.DisableUser(e.ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	c2.do("GET", "/manage/v1/orgs", nil).want(t, 401, codeUnauthenticated)
	e.anon().do("POST", "/manage/v1/session", map[string]string{"email": u.Email, "password": pw}).want(t, 401, codeUnauthenticated)

	// A session expires.
	v, vpw := e.user("dave@example.com", false)
	c3, _ := e.login(v.Email, vpw)
	c3.do("GET", "/manage/v1/orgs", nil).want(t, 200)
	e.clock.Add(DefaultSessionTTL + time.Second)
	c3.do("GET", "/manage/v1/orgs", nil).want(t, 401, codeUnauthenticated)

	// A management token has no session.
	a.tokens[redirects.RoleOwner].do("GET", "/manage/v1/session", nil).want(t, 404)
}

func sessionCookie(t *testing.T, r *resp) *http.Cookie {
	t.Helper()
	for _, ck := range (&http.Response{Header: r.header}).Cookies() {
		if ck.Name == SessionCookie {
			return ck
		}
	}
	t.Fatalf("no %s cookie in %v", SessionCookie, r.header)
	return nil
}

// TestSecureCookie: over TLS the cookie is Secure and browsers are told to
// keep to TLS.
func TestSecureCookie(t *testing.T) {
	e := newEnv(t, newSQLite, true, nil)
	u, pw := e.user("erin@example.com", false)
	c, r := e.login(u.Email, pw)
	if c == nil {
		t.Fatalf("login: %d %s", r.status, r.body)
	}
	if ck := sessionCookie(t, r); !ck.Secure || !ck.HttpOnly {
		t.Errorf("cookie over TLS = %+v, want Secure and HttpOnly", ck)
	}
	if r.header.Get("Strict-Transport-Security") == "" {
		t.Errorf("no Strict-Transport-Security over TLS")
	}
	c.do("DELETE", "/manage/v1/session", nil).want(t, 204)
}

// TestCSRF: a request made with the session cookie that changes something
// needs the session's CSRF token; without it, or with a wrong one, it is
// refused and changes nothing. A token needs none.
func TestCSRF(t *testing.T) { runSuite(t, testCSRF) }

func testCSRF(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("A")
	c := a.sessions[redirects.RoleOwner]
	pbase := "/manage/v1/projects/" + a.project.ID
	rule := fmt.Sprintf("%s/rules/%d", pbase, a.rule.ID)
	before := auditCount(t, e, a.org.ID)
	for _, tc := range []struct {
		name string
		cl   *client
	}{
		{"no header", &client{e: e, cookie: c.cookie, noCSRF: true}},
		{"wrong token", &client{e: e, cookie: c.cookie, csrf: strings.Repeat("x", len(c.csrf))}},
		{"another session's token", &client{e: e, cookie: c.cookie, csrf: a.sessions[redirects.RoleViewer].csrf}},
	} {
		tc.cl.do("POST", pbase+"/rules", map[string]string{"source": "/csrf", "destination": "/d"}).want(t, 403, codeCSRF)
		tc.cl.do("PATCH", rule, map[string]string{"destination": "/hijacked"}).want(t, 403, codeCSRF)
		tc.cl.do("DELETE", rule, nil).want(t, 403, codeCSRF)
		tc.cl.do("DELETE", "/manage/v1/session", nil).want(t, 403, codeCSRF)
		// Reads need no token.
		tc.cl.do("GET", rule, nil).want(t, 200)
	}
	if after := auditCount(t, e, a.org.ID); after != before {
		t.Fatalf("refused requests wrote %d audit entries", after-before)
	}
	got, err := e.store.FindRule(e.ctx, a.project.ID, a.rule.ID)
	if err != nil || got.Destination != "/new" || got.Revision != 1 {
		t.Fatalf("the rule changed: %+v %v", got, err)
	}
	c.do("PATCH", rule, map[string]string{"destination": "/ok"}).want(t, 200)
	// A bearer token needs no CSRF token, even beside a cookie.
	a.tokens[redirects.RoleOwner].do("PATCH", rule, map[string]string{"destination": "/ok2"}).want(t, 200)
}

// TestLoginLimits: failed logins are limited per account and per address,
// with Retry-After; the window slides.
func TestLoginLimits(t *testing.T) {
	limits := service.LoginLimits{PerAccount: 3, PerAddress: 5, Window: 10 * time.Minute}
	e := newEnv(t, newSQLite, false, func(c *Config) { c.LoginLimits = limits })
	u, pw := e.user("frank@example.com", false)
	login := func(email, pw string) *resp {
		return e.anon().do("POST", "/manage/v1/session", map[string]string{"email": email, "password": pw})
	}
	for range 3 {
		login(u.Email, "wrong password!").want(t, 401)
	}
	// The account is locked: even the right password is refused for now.
	r := login(u.Email, pw).want(t, 429, codeLoginLimit)
	if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra <= 0 || ra > 600 {
		t.Fatalf("Retry-After %q", r.header.Get("Retry-After"))
	}
	e.clock.Add(limits.Window)
	login(u.Email, pw).want(t, 200)

	// Per address: failures over several accounts add up; 5 in the window
	// (3 above have left it).
	e.clock.Add(limits.Window)
	for i := range 5 {
		login(fmt.Sprintf("guess%d@example.com", i), "wrong password!").want(t, 401)
	}
	login(u.Email, pw).want(t, 429, codeLoginLimit)
	e.clock.Add(limits.Window / 2)
	login(u.Email, pw).want(t, 429, codeLoginLimit)
	e.clock.Add(limits.Window / 2)
	login(u.Email, pw).want(t, 200)
}

// TestTokens: expired, revoked and malformed tokens get 401; the audit
// log names a token by its label.
func TestTokens(t *testing.T) { runSuite(t, testTokens) }

func testTokens(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("A")
	obase := "/manage/v1/orgs/" + a.org.ID
	tok, secret := e.token(a.org.ID, redirects.RoleEditor, "deploy bot", time.Hour)
	c := e.withToken(secret)
	c.do("POST", "/manage/v1/projects/"+a.project.ID+"/rules", map[string]string{"source": "/bot", "destination": "/d"}).want(t, 201)
	es, err := e.store.FindAudit(e.ctx, redirects.AuditFilter{OrgID: a.org.ID, Action: redirects.AuditRuleCreate, Limit: 1})
	if err != nil || len(es) != 1 {
		t.Fatalf("FindAudit: %v %v", es, err)
	}
	if got := es[0].Actor; got.Kind != redirects.ActorToken || got.ID != tok.ID || got.Label != "deploy bot" || got.RemoteAddr != "127.0.0.1" {
		t.Errorf("audit actor = %+v", got)
	}
	e.clock.Add(time.Hour + time.Second)
	c.do("GET", obase, nil).want(t, 401, codeUnauthenticated)

	tok2, secret2 := e.token(a.org.ID, redirects.RoleViewer, "reader", 0)
	c2 := e.withToken(secret2)
	c2.do("GET", obase, nil).want(t, 200)
	a.tokens[redirects.RoleOwner].do("DELETE", obase+"/tokens/"+tok2.ID, nil).want(t, 204)
	c2.do("GET", obase, nil).want(t, 401, codeUnauthenticated)

	for _, hdr := range []string{"Bearer redir_mgmt_short", "Basic dXNlcjpwYXNz", "Bearer " + strings.Replace(secret2, "redir_mgmt_", "redir_live_", 1), "Bearer"} {
		r := (&client{e: e}).do("GET", obase, nil, "Authorization", hdr)
		r.want(t, 401, codeUnauthenticated)
	}
	// A well-formed token nobody issued.
	e.withToken(redirects.ManagementTokenPrefix+strings.Repeat("A", 32)).do("GET", obase, nil).want(t, 401, codeUnauthenticated)
}

// TestPasswordChangeCountsAgainstLoginLimits: a wrong current password on
// POST /session/password is a failed sign-in: it counts per account and
// per address with the sign-ins, and past the limit the change is refused
// (429, Retry-After), even with the right password, and so is a sign-in.
func TestPasswordChangeCountsAgainstLoginLimits(t *testing.T) {
	limits := service.LoginLimits{PerAccount: 3, PerAddress: 5, Window: 10 * time.Minute}
	e := newEnv(t, newSQLite, false, func(c *Config) { c.LoginLimits = limits })
	u, pw := e.user("grace@example.com", false)
	c := e.session(u)
	const fresh = "a new password, long enough"
	change := func(current string) *resp {
		return c.do("POST", "/manage/v1/session/password", map[string]string{"currentPassword": current, "newPassword": fresh})
	}
	login := func(email, pw string) *resp {
		return e.anon().do("POST", "/manage/v1/session", map[string]string{"email": email, "password": pw})
	}
	// Two wrong current passwords and one wrong sign-in reach the
	// account's limit of 3.
	change("not the password").want(t, 401, codeUnauthenticated)
	change("not the password").want(t, 401, codeUnauthenticated)
	login(u.Email, "not the password").want(t, 401, codeUnauthenticated)
	r := change(pw).want(t, 429, codeLoginLimit)
	if ra, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || ra <= 0 || ra > 600 {
		t.Fatalf("Retry-After %q", r.header.Get("Retry-After"))
	}
	login(u.Email, pw).want(t, 429, codeLoginLimit)
	if got, _ := e.store.FindUserByID(e.ctx, u.ID); !redirects.VerifyPassword(got.PasswordHash, pw) {
		t.Fatal("a refused change changed the password")
	}
	c.do("GET", "/manage/v1/session", nil).want(t, 200)

	// Once the failures leave the window, the right password changes it,
	// and clears the account's count.
	e.clock.Add(limits.Window)
	change(pw).want(t, 200)
	if got, _ := e.store.FindUserByID(e.ctx, u.ID); !redirects.VerifyPassword(got.PasswordHash, fresh) {
		t.Fatal("the change did not set the new password")
	}

	// Per address: wrong current passwords and wrong sign-ins of other
	// accounts add up to the address's 5.
	e.clock.Add(limits.Window)
	c2 := e.session(u)
	for i := range 3 {
		login(fmt.Sprintf("guess%d@example.com", i), "wrong password!").want(t, 401)
	}
	c = c2
	change("not the password").want(t, 401, codeUnauthenticated)
	change("not the password").want(t, 401, codeUnauthenticated)
	change(fresh).want(t, 429, codeLoginLimit)
	login(u.Email, fresh).want(t, 429, codeLoginLimit)
}
