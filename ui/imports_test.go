package ui

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"redirects"
	"redirects/manage"
)

// postFile sends the import form with a CSV file as multipart/form-data.
func (e *env) postFile(cookie string, fields map[string]string, csv string) (*http.Response, string) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	fw, _ := mw.CreateFormFile("file", "rules.csv")
	fw.Write([]byte(csv))
	mw.Close()
	req := httptest.NewRequest("POST", "/projects/"+e.project.ID+"/import", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.AddCookie(&http.Cookie{Name: manage.SessionCookie, Value: cookie})
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec.Result(), rec.Body.String()
}

// postAs sends a form with another session's cookie.
func (e *env) postAs(cookie, target string, form url.Values) *http.Response {
	req := httptest.NewRequest("POST", target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: manage.SessionCookie, Value: cookie})
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec.Result()
}

func (e *env) ruleCount(t *testing.T) int {
	t.Helper()
	rules, err := e.db.FindRules(context.Background(), e.project.ID)
	if err != nil {
		t.Fatal(err)
	}
	return len(rules)
}

const goodCSV = "source,destination,statusCode,matchType\n/a,/b,301,exact\n/c,/d,302,exact\n"

var uploadField = regexp.MustCompile(`name="upload" value="([0-9a-f]+)"`)

func TestImportFormNeedsTheCSRFToken(t *testing.T) {
	e := newEnv(t)
	res, _ := e.postFile(e.cookie, map[string]string{"mode": "append"}, goodCSV)
	if res.StatusCode != http.StatusForbidden {
		t.Fatalf("an import form without its CSRF token: %d, want 403", res.StatusCode)
	}
	if n := e.ruleCount(t); n != 0 {
		t.Fatalf("%d rules after a refused import", n)
	}
}

// TestImportApplyIsBoundToTheSession: the checked file is applied once,
// by the session that checked it, and only after the dry run.
func TestImportApplyIsBoundToTheSession(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	res, body := e.postFile(e.cookie, map[string]string{"csrf": e.csrf, "mode": "append"}, goodCSV)
	m := uploadField.FindStringSubmatch(body)
	if res.StatusCode != http.StatusOK || m == nil || !strings.Contains(body, "2 added, 0 updated, 0 unchanged, 0 removed") {
		t.Fatalf("the dry run: %d\n%s", res.StatusCode, body)
	}
	if n := e.ruleCount(t); n != 0 {
		t.Fatalf("%d rules after a dry run", n)
	}
	apply := "/projects/" + e.project.ID + "/import/apply"

	// Another session of the same user may not apply it.
	u, err := e.db.FindUserByEmail(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	s2, secret2 := redirects.NewSession(u.ID, redirects.SystemClock{}.Now(), manage.DefaultSessionTTL)
	if err := e.db.CreateSession(ctx, s2); err != nil {
		t.Fatal(err)
	}
	if res := e.postAs(secret2, apply, url.Values{"csrf": {s2.CSRFToken}, "upload": {m[1]}}); res.StatusCode != http.StatusSeeOther ||
		!strings.HasSuffix(res.Header.Get("Location"), "/import") {
		t.Fatalf("another session's apply: %d to %s", res.StatusCode, res.Header.Get("Location"))
	}
	if n := e.ruleCount(t); n != 0 {
		t.Fatalf("%d rules after another session's apply", n)
	}

	res = e.postAs(e.cookie, apply, url.Values{"csrf": {e.csrf}, "upload": {m[1]}})
	// The apply opens the Import tab on the import's Undo.
	if res.StatusCode != http.StatusSeeOther || !strings.Contains(res.Header.Get("Location"), "/import?undo=") {
		t.Fatalf("the apply: %d to %s", res.StatusCode, res.Header.Get("Location"))
	}
	if n := e.ruleCount(t); n != 2 {
		t.Fatalf("%d rules after the apply, want 2", n)
	}
	// Once only: a second apply finds nothing.
	if res := e.postAs(e.cookie, apply, url.Values{"csrf": {e.csrf}, "upload": {m[1]}}); !strings.HasSuffix(res.Header.Get("Location"), "/import") {
		t.Fatalf("a second apply went to %s", res.Header.Get("Location"))
	}

	// A replace's report warns of the rules it removes.
	_, body = e.postFile(e.cookie, map[string]string{"csrf": e.csrf, "mode": "replace"}, "source,destination,statusCode,matchType\n/a,/b,301,exact\n")
	if !strings.Contains(body, "0 added, 0 updated, 1 unchanged, 1 removed") || !strings.Contains(body, "Replace removes 1 draft rule that is not in the file.") {
		t.Fatalf("a replace's dry run:\n%s", body)
	}
	if n := e.ruleCount(t); n != 2 {
		t.Fatalf("%d rules after a replace's dry run, want 2", n)
	}
}

// TestImportBadFileWritesNothing: bad lines are listed with their numbers
// and no Apply is offered.
func TestImportBadFileWritesNothing(t *testing.T) {
	e := newEnv(t)
	res, body := e.postFile(e.cookie, map[string]string{"csrf": e.csrf, "mode": "replace"},
		"source,destination,statusCode,matchType\n/a,/b,301,exact\nnope,/d,302,exact\n")
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "1 bad line;") || !strings.Contains(body, `<td class="num">3</td>`) ||
		uploadField.MatchString(body) {
		t.Fatalf("a bad file: %d\n%s", res.StatusCode, body)
	}
	if n := e.ruleCount(t); n != 0 {
		t.Fatalf("%d rules after a bad file", n)
	}
}
