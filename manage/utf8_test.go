package manage

import (
	"strconv"
	"strings"
	"testing"

	"redirects"
)

// TestInvalidUTF8IsRefused (finding 9): invalid UTF-8 in a JSON body is
// refused with the field and the byte, not stored as U+FFFD; a
// bidirectional control in a name is refused naming the field and byte.
func TestInvalidUTF8IsRefused(t *testing.T) {
	e := newEnv(t, newSQLite, false, nil)
	a := e.newOrg("A")
	owner := a.tokens[redirects.RoleOwner]
	rules := "/manage/v1/projects/" + a.project.ID + "/rules"
	for _, tc := range []struct {
		target, body, field string
		at                  int
	}{
		{rules, "{\"source\":\"/caf\xe9\",\"destination\":\"/d\"}", "source", 4},
		{rules, "{\"source\":\"/s\",  \"destination\": \"/d\xff\xfe\"}", "destination", 2},
		{"/manage/v1/orgs/" + a.org.ID + "/projects", "{\"name\":\"ab\\\"c\xc3\"}", "name", 5},
		{"/manage/v1/projects/" + a.project.ID + "/keys", "{\"name\":\"k\x80\"}", "name", 1},
	} {
		r := owner.do("POST", tc.target, []byte(tc.body)).want(t, 400, "INVALID_INPUT")
		_, msg := r.errBody(t)
		want := tc.field + " is not valid UTF-8: byte " + strconv.Itoa(tc.at) + " of its value"
		if !strings.HasPrefix(msg, want) {
			t.Errorf("POST %s %q: %q, want it to start %q", tc.target, tc.body, msg, want)
		}
	}
	if rs, _ := e.store.FindRules(e.ctx, a.project.ID); len(rs) != 1 {
		t.Fatalf("%d rules stored, want the one the test began with", len(rs))
	}
	for _, tc := range []struct{ target, body, field string }{
		{"/manage/v1/orgs/" + a.org.ID + "/projects", `{"name":"shop\u202Egnp.exe"}`, "project name"},
		{"/manage/v1/projects/" + a.project.ID + "/keys", `{"name":"edge\u2067x"}`, "key name"},
		{"/manage/v1/orgs/" + a.org.ID + "/tokens", `{"role":"viewer","label":"bot\u200F"}`, "token label"},
	} {
		r := a.sessions[redirects.RoleOwner].do("POST", tc.target, tc.body).want(t, 400, "INVALID_INPUT")
		if _, msg := r.errBody(t); !strings.HasPrefix(msg, tc.field) || !strings.Contains(msg, "bidirectional control character") || !strings.Contains(msg, "at byte") {
			t.Errorf("POST %s %s: %q", tc.target, tc.body, msg)
		}
	}
}
