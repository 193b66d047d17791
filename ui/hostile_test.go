package ui

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"redirects"
	"redirects/manage"
)

// TestFormFieldsWithNULOrInvalidUTF8Refused (issue #31): a form field
// holding a NUL byte or invalid UTF-8 is answered 400 naming the field,
// and nothing is changed.
func TestFormFieldsWithNULOrInvalidUTF8Refused(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, tc := range []struct {
		target string
		form   url.Values
		want   string
	}{
		{"/projects/" + e.project.ID + "/rules", url.Values{"source": {"/a\x00b"}, "destination": {"/b"}, "status": {"301"}, "match": {"exact"}},
			"The field \u201csource\u201d holds a NUL byte at byte 2: nothing was changed."},
		{"/projects/" + e.project.ID + "/rules", url.Values{"source": {"/a"}, "destination": {"/caf\xe9"}, "status": {"301"}, "match": {"exact"}},
			"The field \u201cdestination\u201d is not valid UTF-8: byte 4 is 0xE9: nothing was changed."},
		{"/orgs/" + e.org.ID + "/projects", url.Values{"name": {"sh\xffop"}}, "The field \u201cname\u201d is not valid UTF-8: byte 2 is 0xFF"},
		{"/orgs/" + e.org.ID + "/webhooks", url.Values{"url": {"https://hooks.example.com/\x00"}}, "The field \u201curl\u201d holds a NUL byte"},
	} {
		tc.form.Set("csrf", e.csrf)
		res, body := e.do("POST", tc.target, tc.form, true)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, tc.want) {
			t.Errorf("POST %s %v: %d, want 400 saying %q\n%s", tc.target, tc.form, res.StatusCode, tc.want, body)
		}
	}
	if rs, _ := e.db.FindRules(ctx, e.project.ID); len(rs) != 0 {
		t.Errorf("refused forms added %d rules", len(rs))
	}
	if ps, _ := e.db.FindProjects(ctx, e.org.ID); len(ps) != 1 {
		t.Errorf("refused forms left %d projects, want the one the test began with", len(ps))
	}
	if ws, _ := e.db.FindWebhooks(ctx, e.org.ID); len(ws) != 0 {
		t.Errorf("refused forms added %d webhooks", len(ws))
	}
}

// TestPasswordFieldsNotCheckedAsText: a password is only hashed, never
// stored as text, so no door refuses one for a NUL or bytes that are not
// UTF-8: the dashboard's change-password form takes a new password with a
// NUL (its current-password and new-password fields were refused), and the
// API signs in with it, written \u0000, and answers a password with half
// a surrogate pair as a wrong one, not as INVALID_INPUT.
func TestPasswordFieldsNotCheckedAsText(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	const pw, fresh = "correct horse battery staple", "a new\x00passphrase, long enough"
	form := url.Values{"csrf": {e.csrf}, "current-password": {"wrong\xff"}, "new-password": {fresh}, "new-password-again": {fresh}}
	if res, body := e.do("POST", "/account/password", form, true); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a wrong current password with a byte not UTF-8: %d, want 303 (wrong password)\n%s", res.StatusCode, body)
	}
	form.Set("current-password", pw)
	if res, body := e.do("POST", "/account/password", form, true); res.StatusCode != http.StatusSeeOther || strings.HasPrefix(res.Header.Get("Location"), "/account/password") {
		t.Fatalf("a new password holding NUL: %d %s, want it changed\n%s", res.StatusCode, res.Header.Get("Location"), body)
	}
	if u, _ := e.db.FindUserByEmail(ctx, "owner@example.com"); !redirects.VerifyPassword(u.PasswordHash, fresh) {
		t.Fatal("the new password holding NUL was not set")
	}
	api := httptest.NewServer(manage.Handler(manage.Config{Store: e.db, Accounts: e.db}))
	defer api.Close()
	for body, want := range map[string]int{
		`{"email":"owner@example.com","password":"a new\u0000passphrase, long enough"}`: http.StatusOK,
		`{"email":"owner@example.com","password":"a new\ud800passphrase"}`:              http.StatusUnauthorized,
	} {
		res, err := http.Post(api.URL+"/manage/v1/session", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("sign-in with %s: %d, want %d", body, res.StatusCode, want)
		}
	}
}
