package manage

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"redirects"
	"redirects/api"
)

// TestOneTimePassword: a session whose password is a one-time password is
// refused on every route but reading and ending the session and changing
// the password, with 403 PASSWORD_CHANGE_REQUIRED, and changes nothing; a
// management token of the same organization is not affected; once the
// password is changed the new session is served.
func TestOneTimePassword(t *testing.T) { runSuite(t, testOneTimePassword) }

func testOneTimePassword(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("Acme")
	u, pw := e.user("once@example.com", false)
	if err := e.store.SetMember(e.ctx, &redirects.Membership{OrgID: a.org.ID, UserID: u.ID, Role: redirects.RoleOwner}); err != nil {
		t.Fatal(err)
	}
	if err := e.store.RequirePasswordChange(e.ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	c, r := e.login(u.Email, pw)
	if c == nil {
		t.Fatalf("sign-in with a one-time password: %d %s", r.status, r.body)
	}
	var s api.Session
	r.decode(t, &s)
	if !s.MustChangePassword {
		t.Fatalf("sign-in with a one-time password answered mustChangePassword false: %s", r.body)
	}
	path := func(pattern string) string {
		return strings.NewReplacer("{org}", a.org.ID, "{project}", a.project.ID, "{id}", strconv.FormatInt(a.rule.ID, 10), "{user}", a.users[redirects.RoleViewer].ID).Replace(pattern)
	}
	before := e.fingerprint(a)
	refused := 0
	for _, rt := range (&handler{}).routeTable() {
		if rt.public || rt.oneTime {
			continue
		}
		var body any
		if !safeMethod(rt.method) {
			body = map[string]any{}
		}
		got := c.do(rt.method, path(rt.pattern), body).want(t, 403, codePasswordChange)
		if _, msg := got.errBody(t); !strings.Contains(msg, "/manage/v1/session/password") {
			t.Fatalf("%s: the refusal %q does not say how to change the password", got.req, msg)
		}
		refused++
	}
	if refused < 40 {
		t.Fatalf("only %d routes tried", refused)
	}
	if after := e.fingerprint(a); after != before {
		t.Fatalf("refused calls changed the organization:\nbefore %s\nafter  %s", before, after)
	}
	// The routes a one-time password keeps: reading the session, and
	// signing out (another session of the same user).
	c.do("GET", "/manage/v1/session", nil).want(t, 200)
	other, _ := e.login(u.Email, pw)
	other.do("DELETE", "/manage/v1/session", nil).want(t, 204)
	// A token of the organization is not affected.
	a.tokens[redirects.RoleOwner].do("GET", path("/manage/v1/projects/{project}/rules"), nil).want(t, 200)

	const fresh = "a new password, long enough"
	r = c.do("POST", "/manage/v1/session/password", map[string]string{"currentPassword": pw, "newPassword": fresh}).want(t, 200)
	var after api.Session
	r.decode(t, &after)
	c.csrf = after.CSRFToken
	for _, ck := range (&http.Response{Header: r.header}).Cookies() {
		if ck.Name == SessionCookie {
			c.cookie.Value = ck.Value
		}
	}
	c.do("GET", "/manage/v1/orgs", nil).want(t, 200)
	c.do("GET", path("/manage/v1/projects/{project}/rules/{id}"), nil).want(t, 200)
	c.do("PATCH", path("/manage/v1/projects/{project}/rules/{id}"), map[string]string{"destination": "/changed"}).want(t, 200)
	// A later sign-in with the new password is served too.
	again, r := e.login(u.Email, fresh)
	if again == nil {
		t.Fatalf("sign-in with the new password: %d %s", r.status, r.body)
	}
	again.do("GET", path("/manage/v1/orgs/{org}"), nil).want(t, 200)
}
