package http

import (
	"net/url"
	"strings"
	"testing"
)

// TestLookupPathForm checks the one path form of docs/contract.md#matching
// through the edge, with rules stored through the real store: a source
// written with escapes is stored decoded, and the lookup's path is the
// client's request path, query-escaped, decoded once more before matching.
func TestLookupPathForm(t *testing.T) {
	f := newFixture(t, nil)
	f.addRule("/caf%C3%A9", "/to-cafe")
	f.addRule("/p+q", "/to-plus")
	f.addRule("/a%2fb", "/to-slash")
	f.deploy()
	f.refresh()

	for _, c := range []struct {
		requestPath string // as a client sends it on its request line
		status      int
		dest        string
	}{
		{"/café", 200, "/to-cafe"},
		{"/caf%C3%A9", 200, "/to-cafe"},
		{"/caf%c3%a9", 200, "/to-cafe"},
		{"/%63af%C3%A9", 200, "/to-cafe"},
		{"/caf%25C3%25A9", 204, ""}, // decodes to "/caf%C3%A9", which no source is
		{"/p+q", 200, "/to-plus"},
		{"/p%2Bq", 200, "/to-plus"},
		{"/p q", 204, ""},
		{"/a/b", 200, "/to-slash"},
		{"/a%2Fb", 200, "/to-slash"},
		{"/a%2Fb?x=1", 200, "/to-slash"},
		{"/a%3Fb", 204, ""}, // an escaped '?' is part of the path
		{"/a", 200, "/to-a"},
		{"/a%3F", 204, ""},
		{"/%61", 200, "/to-a"},
	} {
		w := f.handle("GET", "/v1/lookup", f.lookupQuery(url.QueryEscape(c.requestPath)), f.secret)
		if w.Status != c.status || c.dest != "" && !strings.Contains(string(w.Body), `"destination":"`+c.dest+`"`) {
			t.Errorf("lookup of the request path %q: %d %s, want %d %s", c.requestPath, w.Status, w.Body, c.status, c.dest)
		}
	}
	w := f.handle("GET", "/v1/lookup", f.lookupQuery(url.QueryEscape("/50%off")), f.secret)
	if w.Status != 400 || !strings.Contains(string(w.Body), `"INVALID_PATH"`) || !strings.Contains(string(w.Body), "escape") {
		t.Errorf("lookup of a malformed escape: %d %s, want 400 INVALID_PATH naming the escape", w.Status, w.Body)
	}
}
