package http

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"redirects"
)

// TestExportRecordsAgents sends export requests over real HTTP on both
// engines, with and without a sync agent's report
// (docs/delivery.md#which-servers-have-which-version), and reads the
// store once the server's own flusher has run: a report with a positive
// version is recorded under the agent's name (Redirects-Agent, or its
// User-Agent and address), the latest one per agent and format; a bad
// version, a request that is not authenticated and a lookup record
// nothing, and none changes the answer.
func TestExportRecordsAgents(t *testing.T) {
	for _, engine := range []string{"evhttp", "net/http"} {
		t.Run(engine, func(t *testing.T) {
			f := newFixture(t, nil)
			s, err := Open(f.ctx, Config{
				Addr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0", Engine: engine, FlushInterval: 20 * time.Millisecond,
				Clock: redirects.SystemClock{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
				Connect: func(context.Context) (*Backend, error) {
					return &Backend{Store: f.db, Limiter: f.limiter, Usage: f.limiter}, nil
				},
			})
			f.ok(err)
			t.Cleanup(func() { s.Close(context.Background()) })
			base := "http://" + s.Addr()
			get := func(path, key string, headers ...string) (int, string, string) {
				t.Helper()
				req, _ := http.NewRequest("GET", base+path, nil)
				if key != "" {
					req.Header.Set("X-API-Key", key)
				}
				req.Header.Set("User-Agent", "test-agent/1")
				for i := 0; i < len(headers); i += 2 {
					req.Header.Set(headers[i], headers[i+1])
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				return resp.StatusCode, resp.Header.Get("ETag"), string(body)
			}
			export := func(format string) string {
				return "/v1/export?project=" + f.project.ID + "&format=" + format
			}
			plainStatus, plainTag, plainBody := get(export("nginx"), f.secret)
			if plainStatus != 200 {
				t.Fatalf("plain export: %d", plainStatus)
			}
			for _, bad := range []string{"0", "-1", "abc", "1.5", "99999999999999999999", "+3"} {
				if st, tag, body := get(export("nginx"), f.secret, redirects.AppliedVersionHeader, bad, redirects.AgentHeader, "bad-"+bad); st != plainStatus || tag != plainTag || body != plainBody {
					t.Errorf("Redirects-Applied-Version %q changed the answer: %d %s", bad, st, tag)
				}
			}
			// Refused requests and lookups report nothing.
			if st, _, _ := get(export("nginx"), "", redirects.AppliedVersionHeader, "2", redirects.AgentHeader, "nokey"); st != 401 {
				t.Errorf("export without a key: %d, want 401", st)
			}
			get("/v1/lookup?project="+f.project.ID+"&path=/a", f.secret, redirects.AppliedVersionHeader, "2", redirects.AgentHeader, "lookup")

			// Reports: a named agent, whose later report wins, and one
			// named by its User-Agent and address.
			get(export("nginx"), f.secret, redirects.AppliedVersionHeader, "1", redirects.AgentHeader, "web-1 /etc/nginx/redirects.conf")
			if st, tag, body := get(export("nginx"), f.secret, redirects.AppliedVersionHeader, "2", redirects.AgentHeader, "web-1 /etc/nginx/redirects.conf"); st != plainStatus || tag != plainTag || body != plainBody {
				t.Errorf("a report changed the answer: %d %s", st, tag)
			}
			get(export("csv"), f.secret, redirects.AppliedVersionHeader, "1")

			want := "test-agent/1 (127.0.0.1) csv 1\nweb-1 /etc/nginx/redirects.conf nginx 2\n"
			var got string
			deadline := time.Now().Add(10 * time.Second)
			for time.Now().Before(deadline) {
				reports, err := f.db.FindAgents(f.ctx, f.project.ID)
				f.ok(err)
				var b strings.Builder
				for _, r := range reports {
					b.WriteString(r.Agent + " " + r.Format + " " + itoa(r.AppliedVersion) + "\n")
					if r.SeenAt.IsZero() || time.Since(r.SeenAt) > time.Minute {
						t.Errorf("report %+v: SeenAt is not the request's time", r)
					}
				}
				if got = b.String(); got == want {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if got != want {
				t.Errorf("agents recorded after the flush:\n%swant\n%s", got, want)
			}
		})
	}
}

// TestAgentTrackerNoReportNoAlloc checks that an export request without
// the Redirects-Applied-Version header allocates nothing more for the
// agents' reports.
func TestAgentTrackerNoReportNoAlloc(t *testing.T) {
	f := newFixture(t, nil)
	q := Req{Method: "GET", Path: "/v1/export", RawQuery: "project=" + f.project.ID + "&format=nginx", APIKey: f.secret, Ctx: f.ctx}
	var w Resp
	f.edge.Handle(&q, &w)
	without := testing.AllocsPerRun(100, func() { w = Resp{}; f.edge.Handle(&q, &w) })
	q.AppliedVersion = ""
	if n := testing.AllocsPerRun(100, func() { w = Resp{}; f.edge.Handle(&q, &w) }); n > without {
		t.Errorf("an export without a report allocates %v times, %v before", n, without)
	}
}
