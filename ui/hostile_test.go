package ui

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
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
