package http

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"redirects"
)

// TestExportLongPoll holds the change feed (docs/contract.md#the-change-feed)
// over real HTTP on both engines: a long-poll with the latest file's ETag
// waits for the next deployment and answers it; one whose time is up answers
// 304; a stale ETag answers at once; closing the server releases a held
// long-poll with a 304.
func TestExportLongPoll(t *testing.T) {
	for _, engine := range []string{"evhttp", "net/http"} {
		t.Run(engine, func(t *testing.T) {
			f := newFixture(t, nil)
			s := f.open(engine)
			base := "http://" + s.Addr() + "/v1/export?project=" + f.project.ID + "&format=haproxy-map-exact"
			get := func(query, etag string) (*http.Response, string) {
				t.Helper()
				req, _ := http.NewRequest("GET", base+query, nil)
				req.Header.Set("X-API-Key", f.secret)
				if etag != "" {
					req.Header.Set("If-None-Match", etag)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				return resp, string(body)
			}
			first, body := get("", "")
			etag := first.Header.Get("ETag")
			if first.StatusCode != 200 || etag == "" || !strings.HasSuffix(body, "\n/a /to-a\n/b /to-b\n") {
				t.Fatalf("plain export: %d ETag %q body %q", first.StatusCode, etag, body)
			}

			if v := first.Header.Get("Redirects-Version"); v != "" {
				t.Errorf("an export without wait carries Redirects-Version %q", v)
			}
			if resp, _ := get("&wait=0", ""); resp.StatusCode != 200 || resp.Header.Get("Redirects-Version") != "2" {
				t.Errorf("wait=0: %d Redirects-Version %q, want 200 and 2", resp.StatusCode, resp.Header.Get("Redirects-Version"))
			}

			// Nothing deployed: the time runs out and the answer is 304.
			if resp, body := get("&wait=1", etag); resp.StatusCode != 304 || resp.Header.Get("ETag") != etag || body != "" || resp.Header.Get("Redirects-Version") != "2" {
				t.Fatalf("idle long-poll: %d ETag %q body %q, want 304 with %q", resp.StatusCode, resp.Header.Get("ETag"), body, etag)
			}
			// A stale ETag is answered at once, whatever the wait.
			if resp, _ := get("&wait=60", `"stale"`); resp.StatusCode != 200 || resp.Header.Get("ETag") != etag {
				t.Fatalf("stale ETag: %d ETag %q, want 200 with %q", resp.StatusCode, resp.Header.Get("ETag"), etag)
			}

			// A deploy while a long-poll waits: the poll answers the new file.
			type answer struct {
				resp *http.Response
				body string
			}
			done := make(chan answer, 1)
			go func() {
				resp, body := get("&wait=60", etag)
				done <- answer{resp, body}
			}()
			waitFor(t, "the long-poll to be held", func() bool { return s.edge.waiting.Load() == 1 })
			f.addRule("/c", "/to-c")
			f.deploy()
			a := <-done
			if a.resp.StatusCode != 200 || !strings.HasSuffix(a.body, "\n/a /to-a\n/b /to-b\n/c /to-c\n") || a.resp.Header.Get("ETag") == etag || a.resp.Header.Get("Redirects-Version") != "3" {
				t.Fatalf("long-poll across a deploy: %d ETag %q body %q", a.resp.StatusCode, a.resp.Header.Get("ETag"), a.body)
			}
			if s.edge.waiting.Load() != 0 {
				t.Errorf("%d long-polls still counted as held", s.edge.waiting.Load())
			}

			// Closing the server answers a held long-poll with 304.
			etag = a.resp.Header.Get("ETag")
			go func() {
				resp, body := get("&wait=60", etag)
				done <- answer{resp, body}
			}()
			waitFor(t, "the long-poll to be held", func() bool { return s.edge.waiting.Load() == 1 })
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := s.Close(ctx); err != nil {
				t.Fatalf("Close with a held long-poll: %v", err)
			}
			if a := <-done; a.resp.StatusCode != 304 || a.resp.Header.Get("ETag") != etag {
				t.Fatalf("long-poll at shutdown: %d ETag %q, want 304 %q", a.resp.StatusCode, a.resp.Header.Get("ETag"), etag)
			}
		})
	}
}

// TestExportWaitParameter holds wait's validation: whole seconds 0 to 60,
// not with version; a lookup ignores it, as it ignores any unknown
// parameter.
func TestExportWaitParameter(t *testing.T) {
	f := newFixture(t, nil)
	q := "project=" + f.project.ID + "&format=csv"
	for _, bad := range []string{"-1", "61", "1.5", "x", "", "+5", "600000000000000000000"} {
		wantError(t, f.handle("GET", "/v1/export", q+"&wait="+bad, f.secret), errInvalidWait)
	}
	wantError(t, f.handle("GET", "/v1/export", q+"&wait=1&wait=1", f.secret), errBadQuery("Repeated wait parameter"))
	wantError(t, f.handle("GET", "/v1/export", q+"&wait=5&version=1", f.secret), errWaitVersion)
	// wait=0 is no wait: with the ETag held, 304 at once.
	w := f.handle("GET", "/v1/export", q, f.secret)
	etag := header(w, "ETag")
	if w = f.handleReq(&Req{Method: "GET", Path: "/v1/export", RawQuery: q + "&wait=0&version=2", APIKey: f.secret, IfNoneMatch: etag, Ctx: f.ctx}); w.Status != 304 {
		t.Errorf("wait=0 with version and the ETag held: %d, want 304", w.Status)
	}
	if w = f.handle("GET", "/v1/lookup", f.lookupQuery("/a")+"&wait=x", f.secret); w.Status != 200 {
		t.Errorf("lookup with wait=x: %d, want 200 (an unknown parameter)", w.Status)
	}
	// Without wait, MISSING_FORMAT still comes before anything about wait.
	wantError(t, f.handle("GET", "/v1/export", "project="+f.project.ID+"&wait=x", f.secret), errMissingFormat)
}

// waitFor polls cond until it holds, or fails the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestExportLongPollCountsOnce holds the counting of a long-poll: one
// request in the per-minute window, whatever it waits, and no quota.
func TestExportLongPollCountsOnce(t *testing.T) {
	f := newFixture(t, &redirects.Org{Name: "acme", Tier: redirects.TierPro})
	q := "project=" + f.project.ID + "&format=csv"
	first := f.handle("GET", "/v1/export", q, f.secret)
	remaining := header(first, "X-RateLimit-Remaining")
	w := f.handleReq(&Req{Method: "GET", Path: "/v1/export", RawQuery: q + "&wait=1", APIKey: f.secret, IfNoneMatch: header(first, "ETag"), Ctx: f.ctx})
	if w.Status != 304 {
		t.Fatalf("long-poll: %d, want 304", w.Status)
	}
	if got, want := header(w, "X-RateLimit-Remaining"), strconv.Itoa(mustAtoi(t, remaining)-1); got != want {
		t.Errorf("X-RateLimit-Remaining after a long-poll: %s, want %s (counted once)", got, want)
	}
	if h := header(w, "X-Quota-Remaining"); h != "" {
		t.Errorf("a long-poll carries X-Quota-Remaining %q: exports use no quota", h)
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return n
}
