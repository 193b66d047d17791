package manage

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"redirects"
)

// endlessBody is an import body without end: head, then body repeated.
// At the read numbered cancelAt it calls cancel (the client leaving).
type endlessBody struct {
	head, body []byte
	off, reads int
	cancel     func()
	cancelAt   int
}

func (e *endlessBody) Read(p []byte) (int, error) {
	e.reads++
	if e.cancel != nil && e.reads == e.cancelAt {
		e.cancel()
	}
	n := 0
	for n < len(p) {
		var src []byte
		if e.off < len(e.head) {
			src = e.head[e.off:]
		} else {
			src = e.body[(e.off-len(e.head))%len(e.body):]
		}
		k := copy(p[n:], src)
		n += k
		e.off += k
	}
	return n, nil
}

// importRequest is an editor's POST of body to the import route with
// query q, under ctx.
func importRequest(ctx context.Context, a *org, q string, body *endlessBody) *http.Request {
	req := httptest.NewRequestWithContext(ctx, "POST", "/manage/v1/projects/"+a.project.ID+"/imports?"+q, body)
	req.Header.Set("Content-Type", "application/octet-stream")
	req.Header.Set("Authorization", "Bearer "+a.tokens[redirects.RoleEditor].token)
	return req
}

// TestImportStopsWhenClientLeaves: an unclosed netlify.toml array sent
// without end, by a client that goes away (the request's context ends at
// the 50th read of the body): the handler returns within a read of that,
// instead of working on after the client has gone.
func TestImportStopsWhenClientLeaves(t *testing.T) {
	e := newEnv(t, newSQLite, false, nil)
	a := e.newOrg("Gone")
	for _, q := range []string{"from=netlify-toml&dry_run=true", "from=auto&filename=netlify.toml&dry_run=true", "from=netlify&dry_run=true"} {
		ctx, cancel := context.WithCancel(context.Background())
		body := &endlessBody{head: []byte("[[redirects]]\nfrom = \"/a\"\nto = [\"/b\",\n"), body: []byte("  \"/c\",\n"), cancel: cancel, cancelAt: 50}
		if strings.Contains(q, "from=netlify&") {
			body.head, body.body = []byte("/a /b 301\n"), []byte("# a comment\n")
		}
		rec := httptest.NewRecorder()
		e.srv.Config.Handler.ServeHTTP(rec, importRequest(ctx, a, q, body))
		cancel()
		if body.reads < 50 || body.reads > 52 {
			t.Errorf("%s: the handler read the body %d times, want it to read until the client left (50) and stop at the next read", q, body.reads)
		}
		if rec.Code == http.StatusOK {
			t.Errorf("%s: an import of a body cut short answered 200: %s", q, rec.Body)
		}
	}
}

// TestImportRowLimitWhileReading: the rule limit (MaxImportRows) is
// checked while the file is read: an endless _redirects file is refused
// at the line that makes one rule too many, soon after it, not once the
// whole body (up to 200 MB) is read.
func TestImportRowLimitWhileReading(t *testing.T) {
	e := newEnv(t, newSQLite, false, nil)
	a := e.newOrg("Rows")
	var b strings.Builder
	for i := 0; i < 1000; i++ {
		b.WriteString("/r" + strconv.Itoa(i) + " /b 301\n")
	}
	body := &endlessBody{body: []byte(b.String())}
	rec := httptest.NewRecorder()
	e.srv.Config.Handler.ServeHTTP(rec, importRequest(context.Background(), a, "from=netlify&dry_run=true", body))
	want := "line " + strconv.Itoa(MaxImportRows+1)
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), strconv.Itoa(MaxImportRows)+" rules") || !strings.Contains(rec.Body.String(), want) {
		t.Fatalf("answer %d %.500s, want 422 naming the limit of %d rules and %s", rec.Code, rec.Body, MaxImportRows, want)
	}
	if perRule := len(b.String()) / 1000; body.off > (MaxImportRows+1)*perRule+(4<<20) {
		t.Errorf("read %d bytes of the body, want the read to stop soon after line %d (%d bytes)", body.off, MaxImportRows+1, (MaxImportRows+1)*perRule)
	}
}
