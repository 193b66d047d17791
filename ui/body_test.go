package ui

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"redirects"
	"redirects/manage"
)

// bigBody is n bytes of a form that is never held in memory: head, then
// filler, then tail; read counts what the server pulled.
type bigBody struct {
	head, tail string
	fill       byte
	n, off     int64
	read       atomic.Int64
}

func (b *bigBody) Read(p []byte) (int, error) {
	if b.off >= b.n {
		return 0, io.EOF
	}
	i := 0
	for i < len(p) && b.off < b.n {
		switch {
		case b.off < int64(len(b.head)):
			p[i] = b.head[b.off]
		case b.off >= b.n-int64(len(b.tail)):
			p[i] = b.tail[b.off-(b.n-int64(len(b.tail)))]
		default:
			p[i] = b.fill
		}
		i++
		b.off++
	}
	b.read.Add(int64(i))
	return i, nil
}

// postBig sends body to target on srv with the session cookie; sized sets
// Content-Length, else the body is chunked.
func postBig(t *testing.T, srv *httptest.Server, cookie, target, ctype string, body *bigBody, sized bool) int {
	t.Helper()
	req, err := http.NewRequest("POST", srv.URL+target, body)
	if err != nil {
		t.Fatal(err)
	}
	if sized {
		req.ContentLength = body.n
	} else {
		req.ContentLength = -1
	}
	req.Header.Set("Content-Type", ctype)
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: manage.SessionCookie, Value: cookie})
	}
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v (after %d bytes)", target, err, body.read.Load())
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// TestBigFormsAreRefusedBeforeBeingRead (finding 6): a viewer's 200 MB
// form post is refused without the dashboard reading it: an ordinary form
// past its cap (413, at once when Content-Length says so), and an import
// form, whose file is read only after the session, the CSRF token and the
// role passed (403 for a viewer); a token after the file is no token.
func TestBigFormsAreRefusedBeforeBeingRead(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	owner, err := e.db.FindUserByEmail(ctx, "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e.h)
	t.Cleanup(srv.Close)
	const size = 200 << 20
	const bound = 32 << 20 // far below the body: what the socket and the cap let through
	form := func() *bigBody {
		return &bigBody{head: "csrf=" + e.csrf + "&name=", fill: 'a', n: size}
	}
	multi := func(csrfFirst bool) *bigBody {
		csrf := "--B\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n" + e.csrf + "\r\n"
		file := "--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"r.csv\"\r\nContent-Type: text/csv\r\n\r\nsource,destination\r\n"
		b := &bigBody{fill: 'a', n: size, tail: "\r\n--B--\r\n"}
		if csrfFirst {
			b.head = csrf + file
		} else {
			b.head, b.tail = file, "\r\n"+csrf+"--B--\r\n"
		}
		return b
	}
	projects := "/orgs/" + e.org.ID + "/projects"
	imports := "/projects/" + e.project.ID + "/import"
	urlencoded, multipart := "application/x-www-form-urlencoded", "multipart/form-data; boundary=B"

	// The owner first: the caps do not depend on the role.
	for _, sized := range []bool{true, false} {
		b := form()
		if got := postBig(t, srv, e.cookie, projects, urlencoded, b, sized); got != http.StatusRequestEntityTooLarge || b.read.Load() > bound {
			t.Errorf("a 200 MB form (Content-Length %v): %d after %d MiB read; want 413 within %d MiB", sized, got, b.read.Load()>>20, bound>>20)
		}
	}
	b := multi(false)
	if got := postBig(t, srv, e.cookie, imports, multipart, b, false); got != http.StatusForbidden || b.read.Load() > bound {
		t.Errorf("an import with its CSRF token after a 200 MB file: %d after %d MiB read; want 403 before the file", got, b.read.Load()>>20)
	}

	if err := e.db.SetMember(ctx, &redirects.Membership{OrgID: e.org.ID, UserID: owner.ID, Role: redirects.RoleViewer}); err != nil {
		t.Fatal(err)
	}
	for _, sized := range []bool{true, false} {
		b := multi(true)
		if got := postBig(t, srv, e.cookie, imports, multipart, b, sized); got != http.StatusForbidden || b.read.Load() > bound {
			t.Errorf("a viewer's 200 MB import (Content-Length %v): %d after %d MiB read; want 403 before the file is read", sized, got, b.read.Load()>>20)
		}
		b = form()
		if got := postBig(t, srv, e.cookie, projects, urlencoded, b, sized); got != http.StatusRequestEntityTooLarge || b.read.Load() > bound {
			t.Errorf("a viewer's 200 MB form (Content-Length %v): %d after %d MiB read; want 413", sized, got, b.read.Load()>>20)
		}
	}
	// An anonymous sign-in form: a few KiB.
	b = &bigBody{head: "email=a%40example.com&password=", fill: 'a', n: 64 << 10}
	if got := postBig(t, srv, "", "/login", urlencoded, b, false); got != http.StatusRequestEntityTooLarge {
		t.Errorf("a 64 KiB sign-in form: %d, want 413", got)
	}
	if rules, _ := e.db.FindRules(ctx, e.project.ID); len(rules) != 0 {
		t.Fatalf("%d rules were imported", len(rules))
	}
}
