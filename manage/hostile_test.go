package manage

import (
	"fmt"
	"strings"
	"testing"

	"redirects"
)

// TestNULAndInvalidUTF8Refused (issue #31): a JSON string holding NUL
// (\u0000) or an unpaired surrogate escape, or raw bytes that are not
// UTF-8, is refused with 400 INVALID_INPUT naming the field, whichever
// request carries it, and nothing is stored; PostgreSQL refused NUL with
// a 500.
func TestNULAndInvalidUTF8Refused(t *testing.T) { runSuite(t, testNULAndInvalidUTF8Refused) }

func testNULAndInvalidUTF8Refused(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("A")
	owner := a.tokens[redirects.RoleOwner]
	pbase := "/manage/v1/projects/" + a.project.ID
	obase := "/manage/v1/orgs/" + a.org.ID
	rule := fmt.Sprintf("%s/rules/%d", pbase, a.rule.ID)
	before := auditCount(t, e, a.org.ID)
	for _, tc := range []struct {
		method, target, body, mention string
	}{
		{"POST", pbase + "/rules", `{"source":"/a\u0000b","destination":"/d"}`, "source holds a NUL character (\\u0000) at byte 2 of its value"},
		{"POST", pbase + "/rules", `{"source":"/a","destination":"/d\u0000"}`, "destination holds a NUL character (\\u0000) at byte 2 of its value"},
		{"PATCH", rule, `{"destination":"/x\u0000"}`, "destination holds a NUL character"},
		{"POST", pbase + "/rules", `{"source":"/a","destination":"/d\ud800"}`, "destination holds \\ud800, half of a surrogate pair without its other half"},
		{"POST", obase + "/projects", "{\"name\":\"sh\xffop\"}", "name is not valid UTF-8: byte 2 of its value"},
		{"POST", obase + "/projects", `{"name":"shop\u0000"}`, "name holds a NUL character"},
		{"PATCH", pbase, `{"name":"x\u0000"}`, "name holds a NUL character"},
		{"PATCH", pbase, `{"hosts":["www.example.com","a\u0000.example.com"]}`, "hosts holds a NUL character"},
		{"POST", pbase + "/keys", `{"name":"k\u0000"}`, "name holds a NUL character"},
		{"POST", obase + "/tokens", `{"role":"viewer","label":"bot\u0000"}`, "label holds a NUL character"},
		{"POST", obase + "/members", `{"email":"x\u0000@example.com","role":"viewer"}`, "email holds a NUL character"},
		{"POST", obase + "/webhooks", `{"url":"https://hooks.example.com/\u0000"}`, "url holds a NUL character"},
		{"POST", obase + "/webhooks", `{"url":"https://hooks.example.com/","actions":["rule.\u0000"]}`, "actions holds a NUL character"},
		{"POST", obase + "/webhooks", `{"url":"https://hooks.example.com/","projects":["\udc00x"]}`, "projects holds \\udc00"},
	} {
		r := owner.do(tc.method, tc.target, []byte(tc.body)).want(t, 400, "INVALID_INPUT")
		if _, msg := r.errBody(t); !strings.Contains(msg, tc.mention) {
			t.Errorf("%s %s %q: %q, want it to say %q", tc.method, tc.target, tc.body, msg, tc.mention)
		}
	}
	// A path or query parameter so written names nothing: 400 on both
	// stores (PostgreSQL answered its own refusal, SQLite 404).
	for target, mention := range map[string]string{
		"/manage/v1/projects/%00":           "the request path holds a NUL byte at byte 20",
		"/manage/v1/projects/prj_%FF/rules": "the request path is not valid UTF-8: byte 24 is 0xFF",
		"/manage/v1/orgs/%00/webhooks":      "the request path holds a NUL byte",
		pbase + "/rules?q=%00":              `the query parameter "q" holds a NUL byte at byte 0`,
		obase + "/audit?action=rule.%FF":    `the query parameter "action" is not valid UTF-8: byte 5 is 0xFF`,
	} {
		r := owner.do("GET", target, nil).want(t, 400, "INVALID_INPUT")
		if _, msg := r.errBody(t); !strings.Contains(msg, mention) {
			t.Errorf("GET %s: %q, want it to say %q", target, msg, mention)
		}
	}
	// Only the lookup's path parameter is the route's to judge: forgetting
	// a miss by a path so written is refused too, and forgets nothing
	// (PostgreSQL answered its own 400, SQLite 204).
	now := e.clock.Now()
	if err := e.store.AddMisses(e.ctx, []redirects.Miss{{ProjectID: a.project.ID, Path: "/gone", Count: 1, FirstSeen: now, LastSeen: now}}); err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{pbase + "/misses?path=%00", pbase + "/misses?path=/gone%FF"} {
		r := owner.do("DELETE", target, nil).want(t, 400, "INVALID_INPUT")
		if _, msg := r.errBody(t); !strings.Contains(msg, `the query parameter "path"`) {
			t.Errorf("DELETE %s: %q, want it to name the query parameter \"path\"", target, msg)
		}
	}
	if ms, err := e.store.FindMisses(e.ctx, a.project.ID, 10); err != nil || len(ms) != 1 || ms[0].Path != "/gone" {
		t.Errorf("misses after the refused deletes: %+v, %v; want /gone kept", ms, err)
	}
	if r := owner.do("GET", pbase+"/lookup?path=/a%00", nil); r.status == 400 {
		if _, msg := r.errBody(t); strings.Contains(msg, "query parameter") {
			t.Errorf("lookup of a path with NUL: %q, want the lookup's own answer", msg)
		}
	}
	// A caller who is not signed in is answered 401 first, whatever the
	// request holds.
	for _, target := range []string{"/manage/v1/projects/%00", pbase + "/rules?q=%00", pbase + "/misses?path=%00"} {
		e.anon().do("GET", target, nil).want(t, 401, codeUnauthenticated)
		e.anon().do("DELETE", target, nil).want(t, 401, codeUnauthenticated)
	}
	// A pair of surrogate escapes is one character, and an escaped
	// backslash before "u0000" is no escape of NUL: both are accepted.
	owner.do("POST", pbase+"/rules", []byte(`{"source":"/emoji-\ud83d\ude00","destination":"/d"}`)).want(t, 201)
	owner.do("POST", obase+"/projects", []byte(`{"name":"back\\u0000slash"}`)).want(t, 201)

	if after := auditCount(t, e, a.org.ID); after != before+2 {
		t.Errorf("%d audit entries written, want the 2 of the accepted requests", after-before)
	}
	rs, err := e.store.FindRules(e.ctx, a.project.ID)
	if err != nil || len(rs) != 2 {
		t.Fatalf("rules %+v (%v), want the test's first and the emoji one", rs, err)
	}
	for _, r := range rs {
		if strings.ContainsAny(r.Source+r.Destination, "\x00\ufffd") {
			t.Errorf("rule %+v stored with NUL or U+FFFD", r)
		}
	}
}

// TestWebhookOtherOrganizationsProject (issue #31, finding 14): a webhook
// created with another organization's project ID is answered exactly as
// one with an unknown project ID: 404 NOT_FOUND, project "ID" not found.
func TestWebhookOtherOrganizationsProject(t *testing.T) {
	runSuite(t, testWebhookOtherOrganizationsProject)
}

func testWebhookOtherOrganizationsProject(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a, b := e.newOrg("A"), e.newOrg("B")
	owner := a.tokens[redirects.RoleOwner]
	hooks := "/manage/v1/orgs/" + a.org.ID + "/webhooks"
	for _, id := range []string{b.project.ID, "prj_0000000000000000"} {
		r := owner.do("POST", hooks, map[string]any{"url": "https://hooks.example.com/in", "projects": []string{id}}).want(t, 404, "NOT_FOUND")
		if _, msg := r.errBody(t); msg != fmt.Sprintf("project %q not found", id) {
			t.Errorf("webhook with project %s: %q, want %q", id, msg, fmt.Sprintf("project %q not found", id))
		}
	}
	var list struct {
		Webhooks []webhookJSON `json:"webhooks"`
	}
	owner.do("GET", hooks, nil).want(t, 200).decode(t, &list)
	if len(list.Webhooks) != 0 {
		t.Errorf("webhooks %+v stored, want none", list.Webhooks)
	}
	owner.do("POST", hooks, map[string]any{"url": "https://hooks.example.com/in", "projects": []string{a.project.ID}}).want(t, 201)
}

// TestPasswordFieldsNotCheckedAsText: password, currentPassword and
// newPassword are only hashed, never stored as text: NUL (\u0000), half a
// surrogate pair and bytes that are not UTF-8 in them are not refused as
// INVALID_INPUT, while the same in any other field of the body still is.
func TestPasswordFieldsNotCheckedAsText(t *testing.T) {
	runSuite(t, testPasswordFieldsNotCheckedAsText)
}

func testPasswordFieldsNotCheckedAsText(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	u, pw := e.user("ada@example.com", false)
	c, r := e.login(u.Email, pw)
	if c == nil {
		t.Fatalf("login: %d %s", r.status, r.body)
	}
	const fresh = `a new\u0000passphrase, long enough`
	c.do("POST", "/manage/v1/session/password", `{"currentPassword":"wrong\ud800","newPassword":"`+fresh+`"}`).want(t, 401, codeUnauthenticated)
	c.do("POST", "/manage/v1/session/password", "{\"currentPassword\":\"wrong\xff\",\"newPassword\":\"x\"}").want(t, 401, codeUnauthenticated)
	c.do("POST", "/manage/v1/session/password", `{"currentPassword":"`+pw+`","newPassword":"`+fresh+`"}`).want(t, 200)
	e.anon().do("POST", "/manage/v1/session", `{"email":"ada@example.com","password":"`+fresh+`"}`).want(t, 200)
	e.anon().do("POST", "/manage/v1/session", `{"email":"ada@example.com","password":"x\udc00"}`).want(t, 401, codeUnauthenticated)
	// Another field of the same body is checked as ever.
	for body, mention := range map[string]string{
		`{"password":"\u0000","email":"ada\u0000@example.com"}`: "email holds a NUL character",
		"{\"password\":\"\xff\",\"email\":\"ada\xff\"}":         "email is not valid UTF-8",
	} {
		r := e.anon().do("POST", "/manage/v1/session", body).want(t, 400, "INVALID_INPUT")
		if _, msg := r.errBody(t); !strings.Contains(msg, mention) {
			t.Errorf("sign-in %q: %q, want it to say %q", body, msg, mention)
		}
	}
}
