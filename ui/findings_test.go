package ui

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"redirects"
	"redirects/manage"
	"redirects/service"
)

// TestImportDefaultsToAppend: the Import tab's mode is append until the
// user picks another, as the CLI's and the API's are.
func TestImportDefaultsToAppend(t *testing.T) {
	e := newEnv(t)
	res, body := e.do("GET", "/projects/"+e.project.ID+"/import", nil, true)
	if res.StatusCode != 200 {
		t.Fatalf("GET import: %d", res.StatusCode)
	}
	checked := regexp.MustCompile(`name="mode" value="(\w+)"[^>]* checked`).FindAllStringSubmatch(body, -1)
	if len(checked) != 1 || checked[0][1] != "append" {
		t.Fatalf("the Import tab checks %v, want append alone", checked)
	}
}

// TestDeployPageLooksBlocked: a draft with a loop shows the blocking
// findings in a danger box above the button, which is a danger button;
// "Nothing to deploy" offers no button.
func TestDeployPageLooksBlocked(t *testing.T) {
	e := newEnv(t)
	for _, r := range [][2]string{{"/loop-a", "/loop-b"}, {"/loop-b", "/loop-a"}} {
		form := url.Values{"csrf": {e.csrf}, "source": {r[0]}, "destination": {r[1]}, "status": {"301"}, "match": {"exact"}}
		if res, body := e.do("POST", "/projects/"+e.project.ID+"/rules", form, true); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("adding %s: %d\n%s", r[0], res.StatusCode, body)
		}
	}
	_, body := e.do("GET", "/projects/"+e.project.ID+"/deploy", nil, true)
	gate, button := strings.Index(body, `class="gate blocked"`), strings.Index(body, `<button type="submit" class="danger">Deploy version 1</button>`)
	if gate < 0 || button < 0 || gate > button {
		t.Fatalf("a blocked deploy: the gate box at %d, the danger button at %d (want both, the box first):\n%s", gate, button, body)
	}
	if i := strings.Index(body, "Errors, which block the deploy"); i < 0 || i > button {
		t.Fatalf("the blocking errors are not above the button:\n%s", body)
	}
	// Deployed (forced), the draft is the live version: nothing to deploy,
	// no button.
	form := url.Values{"csrf": {e.csrf}, "message": {"x"}, "force": {"1"}, "reason": {"test"}}
	if res, body := e.do("POST", "/projects/"+e.project.ID+"/deploy", form, true); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("forced deploy: %d\n%s", res.StatusCode, body)
	}
	_, body = e.do("GET", "/projects/"+e.project.ID+"/deploy", nil, true)
	if !strings.Contains(body, "Nothing to deploy") || strings.Contains(body, "Deploy version") {
		t.Fatalf("nothing to deploy still offers a deploy button:\n%s", body)
	}
}

// TestSameNamedOrgsToldApart: two organizations called Acme show the end
// of their IDs in the top bar, and one of its own name shows none.
func TestSameNamedOrgsToldApart(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u, err := e.db.FindUserByEmail(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Acme", "Globex"} {
		o := &redirects.Org{Name: name, Tier: redirects.TierFree}
		if err := e.db.CreateOrg(ctx, o); err != nil {
			t.Fatal(err)
		}
		if err := e.db.SetMember(ctx, &redirects.Membership{OrgID: o.ID, UserID: u.ID, Role: redirects.RoleOwner}); err != nil {
			t.Fatal(err)
		}
	}
	_, body := e.do("GET", "/orgs/"+e.org.ID, nil, true)
	nav := body[strings.Index(body, `class="orgs"`):]
	nav = nav[:strings.Index(nav, "</nav>")]
	tells := regexp.MustCompile(`>Acme <span class="org-tell">\(…(\w{4})\)</span></a>`).FindAllStringSubmatch(nav, -1)
	if len(tells) != 2 || tells[0][1] == tells[1][1] || !strings.Contains(nav, ">Globex</a>") {
		t.Fatalf("the top bar does not tell the two Acmes apart (and Globex by its name alone):\n%s", nav)
	}
	if !strings.HasSuffix(e.org.ID, tells[0][1]) && !strings.HasSuffix(e.org.ID, tells[1][1]) {
		t.Fatalf("the tells %v are not the ends of the IDs", tells)
	}
}

// TestFaviconAndCompression: /favicon.ico is the dashboard's icon, not a
// 404; pages and static files go out gzipped to a client that accepts it,
// and decode to what an identity client gets.
func TestFaviconAndCompression(t *testing.T) {
	e := newEnv(t)
	res, body := e.do("GET", "/favicon.ico", nil, false)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(body, "<svg") {
		t.Fatalf("GET /favicon.ico: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	for _, c := range []struct {
		path     string
		signedIn bool
	}{{"/login", false}, {"/static/" + assetNames["app.css"], false}, {"/projects/" + e.project.ID + "/rules", true}} {
		plain := httptest.NewRequest("GET", c.path, nil)
		gz := httptest.NewRequest("GET", c.path, nil)
		gz.Header.Set("Accept-Encoding", "gzip, deflate, br")
		var bodies [2][]byte
		for i, req := range []*http.Request{plain, gz} {
			if c.signedIn {
				req.AddCookie(&http.Cookie{Name: manage.SessionCookie, Value: e.cookie})
			}
			rec := httptest.NewRecorder()
			e.h.ServeHTTP(rec, req)
			if rec.Code != 200 {
				t.Fatalf("GET %s: %d", c.path, rec.Code)
			}
			b := rec.Body.Bytes()
			if i == 1 {
				if rec.Header().Get("Content-Encoding") != "gzip" {
					t.Fatalf("GET %s accepting gzip: Content-Encoding %q", c.path, rec.Header().Get("Content-Encoding"))
				}
				zr, err := gzip.NewReader(bytes.NewReader(b))
				if err != nil {
					t.Fatal(err)
				}
				if b, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			} else if rec.Header().Get("Content-Encoding") != "" {
				t.Fatalf("GET %s without Accept-Encoding: Content-Encoding %q", c.path, rec.Header().Get("Content-Encoding"))
			}
			if !strings.Contains(rec.Header().Get("Vary"), "Accept-Encoding") {
				t.Errorf("GET %s: Vary %q lacks Accept-Encoding", c.path, rec.Header().Get("Vary"))
			}
			bodies[i] = b
		}
		// Pages carry a fresh CSRF token each time on the sign-in page;
		// compare the static file byte for byte, the others by length class.
		if strings.HasPrefix(c.path, "/static/") && !bytes.Equal(bodies[0], bodies[1]) {
			t.Fatalf("GET %s: the gzipped body decodes to other bytes", c.path)
		}
		if !strings.Contains(string(bodies[1]), "</html>") && !strings.HasPrefix(c.path, "/static/") {
			t.Fatalf("GET %s: the decoded page is cut short", c.path)
		}
	}
	for accept, want := range map[string]bool{"gzip": true, "gzip;q=0": false, "*": true, "identity": false, "br, *;q=0": false, "GZIP;q=0.5": true, "": false} {
		if got := acceptsGzip(accept); got != want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", accept, got, want)
		}
	}
}

// TestSettingsForms: Settings sets the shrink limit and the hosts, as the
// docs/dashboard.md says; a bad value names what is wrong and changes nothing.
func TestSettingsForms(t *testing.T) {
	e := newEnv(t)
	base := "/projects/" + e.project.ID + "/settings"
	_, body := e.do("GET", base, nil, true)
	for _, want := range []string{`action="` + base + `/shrink-limit"`, `action="` + base + `/hosts"`, "Save shrink limit", "Save hosts"} {
		if !strings.Contains(body, want) {
			t.Fatalf("Settings lacks %q:\n%s", want, body)
		}
	}
	post := func(path string, form url.Values) string {
		t.Helper()
		form.Set("csrf", e.csrf)
		res, _ := e.do("POST", base+path, form, true)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("POST %s: %d", path, res.StatusCode)
		}
		req := httptest.NewRequest("GET", base, nil)
		req.AddCookie(&http.Cookie{Name: manage.SessionCookie, Value: e.cookie})
		for _, c := range res.Cookies() {
			req.AddCookie(c)
		}
		rec := httptest.NewRecorder()
		e.h.ServeHTTP(rec, req)
		return rec.Body.String()
	}
	if body := post("/shrink-limit", url.Values{"shrink-limit": {"25"}}); !strings.Contains(body, "more than 25 % of the live rules") {
		t.Fatalf("after saving 25:\n%s", body)
	}
	if body := post("/shrink-limit", url.Values{"shrink-limit": {"250"}}); !strings.Contains(body, "The shrink limit was not saved: Shrink limit 250 is not a percentage from 0 to 100") {
		t.Fatalf("after saving 250:\n%s", body)
	}
	if body := post("/hosts", url.Values{"hosts": {"WWW.Example.com\nexample.com"}}); !strings.Contains(body, "Saved 2 hosts: www.example.com, example.com.") {
		t.Fatalf("after saving hosts:\n%s", body)
	}
	if body := post("/hosts", url.Values{"hosts": {"http://bad/"}}); !strings.Contains(body, "The hosts were not saved:") {
		t.Fatalf("after a bad host:\n%s", body)
	}
	p, err := e.db.FindProjectByID(context.Background(), e.project.ID)
	if err != nil {
		t.Fatal(err)
	}
	if p.ShrinkLimit != 25 || strings.Join(p.Hosts, ",") != "www.example.com,example.com" {
		t.Fatalf("stored: shrink limit %d, hosts %v", p.ShrinkLimit, p.Hosts)
	}
}

// TestAuditShowsBeforeAndAfter: the audit log shows each changed field
// with its value before and after, whole, not raw JSON cut short.
func TestAuditShowsBeforeAndAfter(t *testing.T) {
	e := newEnv(t)
	long := "/" + strings.Repeat("very-long-destination-", 8)
	form := url.Values{"csrf": {e.csrf}, "source": {"/a"}, "destination": {"/b"}, "status": {"301"}, "match": {"exact"}}
	if res, _ := e.do("POST", "/projects/"+e.project.ID+"/rules", form, true); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add rule: %d", res.StatusCode)
	}
	rules, _ := e.db.FindRules(context.Background(), e.project.ID)
	edit := url.Values{"csrf": {e.csrf}, "source": {"/a"}, "destination": {long}, "status": {"302"}, "match": {"exact"}, "priority": {"100"}, "revision": {"1"}}
	if res, body := e.do("POST", "/projects/"+e.project.ID+"/rules/"+strconv.FormatInt(rules[0].ID, 10)+"/edit", edit, true); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("edit rule: %d\n%s", res.StatusCode, body)
	}
	_, body := e.do("GET", "/orgs/"+e.org.ID+"/audit", nil, true)
	for _, want := range []string{
		`<span class="field">destination</span> <del class="mono">/b</del> → <ins class="mono">` + long + `</ins>`,
		`<span class="field">statusCode</span> <del class="mono">301</del> → <ins class="mono">302</ins>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the audit log lacks %s", want)
		}
	}
	if strings.Contains(body, `{&#34;`) || strings.Contains(body, `{"`) {
		t.Errorf("the audit log shows raw JSON")
	}
}

// TestUsageChartsHaveAxes: with 2 lookups on one day, the daily chart's
// scale says 2 (not a bare full-height bar), each day's count is listed,
// and the quota bar comes right after the month's total, before the rate
// limit.
func TestUsageChartsHaveAxes(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	k, _ := redirects.NewKey(e.project.ID, "k", false, redirects.SystemClock{}.Now())
	if err := e.db.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	now := redirects.SystemClock{}.Now().UTC()
	if err := e.db.AddUsage(ctx, now.Format("2006-01"), map[string]int64{e.org.ID: 2}); err != nil {
		t.Fatal(err)
	}
	if err := e.db.AddKeyUsage(ctx, []redirects.DailyUsage{{KeyID: k.ID, Day: redirects.UsageDay(now), Count: 2}}); err != nil {
		t.Fatal(err)
	}
	_, body := e.do("GET", "/orgs/"+e.org.ID+"/usage", nil, true)
	days := body[strings.Index(body, `id="days-chart"`):]
	days = days[:strings.Index(days, "</figure>")]
	for _, want := range []string{`<div class="yaxis" aria-hidden="true"><span>2</span><span>0</span></div>`, "the scale runs from 0 to 2, the busiest day",
		"<td>" + redirects.UsageDay(now) + `</td><td class="num">2</td>`} {
		if !strings.Contains(days, want) {
			t.Errorf("the daily chart lacks %q:\n%s", want, days)
		}
	}
	quota, rate, total := strings.Index(body, `<svg class="quota`), strings.Index(body, "Rate limit:"), strings.Index(body, `id="usage-this-month"`)
	if quota < 0 || !(total < quota && quota < rate) {
		t.Errorf("the quota bar (at %d) is not between the month's total (%d) and the rate limit (%d)", quota, total, rate)
	}
}

// TestOneTimePasswordMustBeChanged: a user whose password is a one-time
// password is sent to the change-password page from every page, and no
// change goes through, until they set their own; then every other session
// has ended, this browser carries on, and the mark is gone.
func TestOneTimePasswordMustBeChanged(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u, _ := e.db.FindUserByEmail(ctx, "owner@example.com")
	if err := e.db.RequirePasswordChange(ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	page := "/projects/" + e.project.ID + "/rules"
	res, _ := e.do("GET", page, nil, true)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/account/password?next="+url.QueryEscape(page) {
		t.Fatalf("GET %s with a one-time password: %d %s", page, res.StatusCode, res.Header.Get("Location"))
	}
	form := url.Values{"csrf": {e.csrf}, "source": {"/a"}, "destination": {"/b"}, "status": {"301"}, "match": {"exact"}}
	if res, _ := e.do("POST", page, form, true); res.StatusCode != http.StatusForbidden {
		t.Fatalf("a change with a one-time password: %d, want 403", res.StatusCode)
	}
	if res, body := e.do("GET", "/account/password?next="+url.QueryEscape(page), nil, true); res.StatusCode != 200 || !strings.Contains(body, "one-time password someone else chose") {
		t.Fatalf("the change-password page: %d\n%s", res.StatusCode, body)
	}
	const pw, fresh = "correct horse battery staple", "a much better passphrase"
	change := func(current, newPW, again string) *http.Response {
		res, _ := e.do("POST", "/account/password", url.Values{"csrf": {e.csrf}, "next": {page}, "current-password": {current}, "new-password": {newPW}, "new-password-again": {again}}, true)
		return res
	}
	for _, bad := range [][3]string{{"wrong", fresh, fresh}, {pw, fresh, fresh + "x"}, {pw, "short", "short"}, {pw, pw, pw}} {
		if res := change(bad[0], bad[1], bad[2]); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/account/password") {
			t.Fatalf("a refused change %q: %d %s", bad, res.StatusCode, res.Header.Get("Location"))
		}
	}
	if got, _ := e.db.FindUserByID(ctx, u.ID); !got.MustChangePassword || !redirects.VerifyPassword(got.PasswordHash, pw) {
		t.Fatal("a refused change changed the password")
	}
	res = change(pw, fresh, fresh)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != page {
		t.Fatalf("the change: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	var cookie string
	for _, c := range res.Cookies() {
		if c.Name == manage.SessionCookie {
			cookie = c.Value
		}
	}
	if got, _ := e.db.FindUserByID(ctx, u.ID); got.MustChangePassword || !redirects.VerifyPassword(got.PasswordHash, fresh) {
		t.Fatal("after the change: the mark stays or the password is not the new one")
	}
	if res, _ := e.do("GET", page, nil, true); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
		t.Fatalf("the old session after the change: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	e.cookie = cookie
	if res, _ := e.do("GET", page, nil, true); res.StatusCode != 200 {
		t.Fatalf("the new session: %d", res.StatusCode)
	}
}

// TestPasswordChangeCountsAgainstLoginLimits: a wrong current password on
// the change-password form is a failed sign-in, counted in the limits the
// sign-in form and the API share: past them the change is refused even
// with the right password, and so are the dashboard's and the API's
// sign-ins.
func TestPasswordChangeCountsAgainstLoginLimits(t *testing.T) {
	e := newEnv(t)
	logins := service.NewLogins(service.LoginLimits{PerAccount: 3, PerAddress: 100}, nil)
	e.h = Handler(Config{Store: e.db, Accounts: e.db, Logins: logins})
	api := httptest.NewServer(manage.Handler(manage.Config{Store: e.db, Accounts: e.db, Logins: logins}))
	defer api.Close()
	const pw, fresh = "correct horse battery staple", "a much better passphrase"
	change := func(current string) (*http.Response, string) {
		res, _ := e.do("POST", "/account/password", url.Values{"csrf": {e.csrf}, "current-password": {current}, "new-password": {fresh}, "new-password-again": {fresh}}, true)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("POST /account/password: %d", res.StatusCode)
		}
		// The message the redirect carries to the next page.
		for _, c := range res.Cookies() {
			if c.Name == flashCookie {
				b, _ := base64.RawURLEncoding.DecodeString(c.Value)
				return res, string(b)
			}
		}
		return res, ""
	}
	for range 3 {
		if _, body := change("not the password"); !strings.Contains(body, "The current password is wrong") {
			t.Fatalf("a wrong current password: the message is %q", body)
		}
	}
	res, body := change(pw)
	if !strings.HasPrefix(res.Header.Get("Location"), "/account/password") || !strings.Contains(body, "Too many failed sign-ins") {
		t.Fatalf("the right password past the limit: %s %q", res.Header.Get("Location"), body)
	}
	if got, _ := e.db.FindUserByEmail(context.Background(), "owner@example.com"); !redirects.VerifyPassword(got.PasswordHash, pw) {
		t.Fatal("a refused change changed the password")
	}
	cookie, token := e.loginForm(t)
	if res := e.postLogin(cookie, url.Values{"csrf": {token}, "email": {"owner@example.com"}, "password": {pw}}, nil); res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("the dashboard's sign-in after three wrong current passwords: %d, want 429", res.StatusCode)
	}
	res, err := http.Post(api.URL+"/manage/v1/session", "application/json", strings.NewReader(`{"email": "owner@example.com", "password": "`+pw+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("the API's sign-in after three wrong current passwords: %d, want 429", res.StatusCode)
	}
}
