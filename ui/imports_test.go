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

// TestImportUndoFromTheTab: an applied import's Undo puts the draft back,
// once; the tab then says the import can no longer be undone.
func TestImportUndoFromTheTab(t *testing.T) {
	e := newEnv(t)
	_, body := e.postFile(e.cookie, map[string]string{"csrf": e.csrf, "mode": "append", "from": "auto"}, goodCSV)
	m := uploadField.FindStringSubmatch(body)
	if m == nil || !strings.Contains(body, "Read as <strong>redirects draft CSV</strong>") || !strings.Contains(body, "As is: 2 lines</strong> <span class=\"muted wrap\">(lines 2–3)") {
		t.Fatalf("the dry run's report:\n%s", body)
	}
	res := e.postAs(e.cookie, "/projects/"+e.project.ID+"/import/apply", url.Values{"csrf": {e.csrf}, "upload": {m[1]}})
	loc := res.Header.Get("Location")
	_, id, ok := strings.Cut(loc, "/import?undo=")
	if !ok || e.ruleCount(t) != 2 {
		t.Fatalf("the apply went to %q with %d rules", loc, e.ruleCount(t))
	}
	if _, page := e.do("GET", loc, nil, true); !strings.Contains(page, "Undo this import") || !strings.Contains(page, `name="undo" value="`+id+`"`) {
		t.Fatalf("the tab after the apply:\n%s", page)
	}
	undo := "/projects/" + e.project.ID + "/import/undo"
	if res := e.postAs(e.cookie, undo, url.Values{"csrf": {e.csrf}, "undo": {"x"}}); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("an undo of %q: %d", "x", res.StatusCode)
	}
	if res := e.postAs(e.cookie, undo, url.Values{"undo": {id}}); res.StatusCode != http.StatusForbidden || e.ruleCount(t) != 2 {
		t.Fatalf("an undo without its CSRF token: %d, %d rules", res.StatusCode, e.ruleCount(t))
	}
	if res := e.postAs(e.cookie, undo, url.Values{"csrf": {e.csrf}, "undo": {id}}); !strings.HasSuffix(res.Header.Get("Location"), "/rules") || e.ruleCount(t) != 0 {
		t.Fatalf("the undo: %d to %s, %d rules", res.StatusCode, res.Header.Get("Location"), e.ruleCount(t))
	}
	if _, page := e.do("GET", loc, nil, true); strings.Contains(page, "Undo this import") || !strings.Contains(page, "This import can no longer be undone.") {
		t.Fatalf("the tab after the undo:\n%s", page)
	}
	if res := e.postAs(e.cookie, undo, url.Values{"csrf": {e.csrf}, "undo": {id}}); !strings.Contains(res.Header.Get("Location"), "/import?undo="+id) {
		t.Fatalf("a second undo went to %s", res.Header.Get("Location"))
	}
}

// TestImportFileThatIsNoFormat: a binary file, an unknown format and bad
// placeholder values are refused with what is wrong, and write nothing.
func TestImportFileThatIsNoFormat(t *testing.T) {
	e := newEnv(t)
	res, body := e.postFile(e.cookie, map[string]string{"csrf": e.csrf, "mode": "append", "from": "auto"}, "\x00\x01\x02")
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "The file is binary") || uploadField.MatchString(body) {
		t.Fatalf("a binary file: %d\n%s", res.StatusCode, body)
	}
	if res, _ := e.postFile(e.cookie, map[string]string{"csrf": e.csrf, "from": "nope"}, goodCSV); res.StatusCode != http.StatusBadRequest {
		t.Fatalf("an unknown format: %d", res.StatusCode)
	}
	if res, _ := e.postFile(e.cookie, map[string]string{"csrf": e.csrf, "from": "auto", "placeholders": "lang"}, goodCSV); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a placeholder without values: %d", res.StatusCode)
	}
	if n := e.ruleCount(t); n != 0 {
		t.Fatalf("%d rules after refused files", n)
	}
}

// TestImportAppendAgain: checking in append mode a file whose rules the
// draft already has is no error (they are unchanged), and a file that
// changes a draft rule is told to use upsert, not to fix the file.
func TestImportAppendAgain(t *testing.T) {
	e := newEnv(t)
	res, body := e.postFile(e.cookie, map[string]string{"csrf": e.csrf, "mode": "replace"}, goodCSV)
	m := uploadField.FindStringSubmatch(body)
	if res.StatusCode != http.StatusOK || m == nil {
		t.Fatalf("checking a good file: %d\n%s", res.StatusCode, body)
	}
	if res := e.postAs(e.cookie, "/projects/"+e.project.ID+"/import/apply", url.Values{"csrf": {e.csrf}, "upload": {m[1]}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("applying it: %d", res.StatusCode)
	}
	if n := e.ruleCount(t); n != 2 {
		t.Fatalf("%d rules after the import, want 2", n)
	}
	res, body = e.postFile(e.cookie, map[string]string{"csrf": e.csrf, "mode": "append"}, goodCSV)
	if res.StatusCode != http.StatusOK || !uploadField.MatchString(body) || strings.Contains(body, "bad line") {
		t.Fatalf("checking the same file in append mode: %d, want 200 and an Apply\n%s", res.StatusCode, body)
	}
	res, body = e.postFile(e.cookie, map[string]string{"csrf": e.csrf, "mode": "append"},
		"source,destination,statusCode,matchType\n/a,/elsewhere,301,exact\n/c,/d,302,exact\n")
	if res.StatusCode != http.StatusUnprocessableEntity || strings.Contains(body, "bad line") || strings.Contains(body, "Fix it in the file") ||
		!strings.Contains(body, `data-kind="conflict"`) || !strings.Contains(body, "upsert") || !strings.Contains(body, `<td class="num">2</td>`) ||
		uploadField.MatchString(body) {
		t.Fatalf("checking a file that changes /a in append mode: %d, want 422, line 2 listed, upsert named and no bad line\n%s", res.StatusCode, body)
	}
}
