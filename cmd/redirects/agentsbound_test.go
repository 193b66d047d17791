package main_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"redirects"
	main "redirects/cmd/redirects"
	"redirects/internal/servertest"
	"redirects/internal/testreport"
)

// TestAgentReportsBounded floods a real `redirects serve` with export
// requests that each name another agent, on SQLite and (with
// REDIRECTS_TEST_POSTGRES) PostgreSQL: the store keeps at most
// redirects.MaxAgentsPerFormat agents per project and format, the seen
// last, and the management API's agents reply stays small. An agent name
// holding bytes that are not UTF-8 is stored with U+FFFD in their place; a
// test key's report is not stored.
func TestAgentReportsBounded(t *testing.T) {
	stores := map[string]func(t *testing.T) string{
		"sqlite": func(t *testing.T) string { return "sqlite:" + t.TempDir() + "/redirects.db" },
		"postgres": func(t *testing.T) string {
			if os.Getenv("REDIRECTS_TEST_POSTGRES") == "" {
				testreport.Skip(t, testreport.Postgres, "REDIRECTS_TEST_POSTGRES is not set: no PostgreSQL server to test on")
			}
			return newPostgresDatabase(t)
		},
	}
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			c := &cli{t: t, db: stores[name](t)}
			org := c.ok("org", "create", "--name", "Acme", "--tier", "enterprise")
			project := c.ok("project", "create", "--org", org, "--name", "www")
			c.ok("rule", "add", "--project", project, "--source", "/old", "--destination", "/new")
			c.ok("deploy", "--project", project)
			live := c.ok("key", "create", "--project", project)
			test := c.ok("key", "create", "--project", project, "--test")
			const pw = "correct horse battery staple"
			if r := c.exec(pw+"\n", "user", "create", "--email", "ops@example.com", "--operator", "--password-stdin"); r.code != 0 {
				t.Fatalf("user create: %s", r.stderr)
			}
			addr := "127.0.0.1:" + strconv.Itoa(servertest.FreePort(t))
			s := startServeProcess(t, c, "--manage-addr", addr)
			api := "http://" + addr + "/manage/v1"
			hc := login(t, api, "ops@example.com", pw)

			export := s.base + "/v1/export?project=" + url.QueryEscape(project) + "&format=nginx"
			report := func(hc *http.Client, key, agent string) {
				req, _ := http.NewRequest("GET", export, nil)
				req.Header.Set("X-API-Key", key)
				req.Header.Set(redirects.AppliedVersionHeader, "1")
				req.Header.Set(redirects.AgentHeader, agent)
				res, err := hc.Do(req)
				if err != nil {
					t.Errorf("export request: %v", err)
					return
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					t.Errorf("export request of %s: %d", agent, res.StatusCode)
				}
			}
			// The flood: 3,000 agent names, four connections at a time.
			const flood = 3000
			var wg sync.WaitGroup
			for w := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					hc := &http.Client{Timeout: 30 * time.Second}
					for i := w; i < flood; i += 4 {
						report(hc, live, fmt.Sprintf("flood-%04d", i))
					}
				}()
			}
			wg.Wait()
			// Then a test key's report, and a name no client library would
			// send, written on the connection as it is: bytes that are not
			// UTF-8. (NUL the edge refuses with a 400 before any check.)
			report(http.DefaultClient, test, "test-key-agent")
			conn, err := net.Dial("tcp", strings.TrimPrefix(s.base, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: edge\r\nX-API-Key: %s\r\n%s: 1\r\n%s: web one \xff\xfename\r\nConnection: close\r\n\r\n",
				strings.TrimPrefix(export, s.base), live, redirects.AppliedVersionHeader, redirects.AgentHeader)
			status, err := bufio.NewReader(conn).ReadString('\n')
			conn.Close()
			if err != nil || !strings.Contains(status, " 200 ") {
				t.Fatalf("export with bytes that are not UTF-8 in %s: %q, %v", redirects.AgentHeader, status, err)
			}

			const hostile = "web one \uFFFD\uFFFDname"
			db, err := main.OpenStore(context.Background(), c.db, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var reports []redirects.AgentReport
			waitMinute(t, "the edge to flush the report of "+strconv.Quote(hostile), func() bool {
				reports, err = db.(redirects.AgentStore).FindAgents(context.Background(), project)
				if err != nil {
					t.Fatalf("FindAgents: %v", err)
				}
				for _, r := range reports {
					if strings.HasPrefix(r.Agent, "web one ") && strings.HasSuffix(r.Agent, "name") {
						return true
					}
				}
				return false
			})
			if !slices.ContainsFunc(reports, func(r redirects.AgentReport) bool { return r.Agent == hostile }) {
				t.Errorf("no agent named %q among %d: the bytes that are not UTF-8 were not replaced", hostile, len(reports))
			}
			perFormat := map[string]int{}
			for _, r := range reports {
				perFormat[r.Format]++
				if r.Agent == "test-key-agent" {
					t.Errorf("a test key's report was stored: %+v", r)
				}
			}
			if len(perFormat) != 1 || perFormat["nginx"] != redirects.MaxAgentsPerFormat {
				t.Errorf("after %d agents the store holds %v, want %d in nginx", flood, perFormat, redirects.MaxAgentsPerFormat)
			}
			res, err := hc.Get(api + "/projects/" + project + "/agents")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || strings.Count(string(body), `"agent":`) != redirects.MaxAgentsPerFormat || len(body) > 64<<10 {
				t.Errorf("GET agents after the flood: %d, %d bytes, %d agents; want 200 with %d agents under 64 KiB", res.StatusCode, len(body), strings.Count(string(body), `"agent":`), redirects.MaxAgentsPerFormat)
			}
			if !strings.Contains(string(body), `"agent":"web one \ufffd\ufffdname"`) && !strings.Contains(string(body), `"agent":"`+hostile+`"`) {
				t.Errorf("the agents reply does not show %q:\n%.2000s", hostile, body)
			}
			// The command line forgets them.
			if r := c.exec("", "agents", "delete", "--project", project, "--format", "nginx"); r.code != 0 || !strings.Contains(r.stdout+r.stderr, "forgot 100 agent reports") {
				t.Errorf("agents delete --format nginx: exit %d, %q %q; want it to say it forgot 100", r.code, r.stdout, r.stderr)
			}
			if reports, err := db.(redirects.AgentStore).FindAgents(context.Background(), project); err != nil || len(reports) != 0 {
				t.Errorf("after agents delete the store holds %d reports (%v), want none", len(reports), err)
			}
		})
	}
}

// login signs in to the management API at api and returns a client that
// holds the session.
func login(t *testing.T, api, email, password string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	waitMinute(t, "the management API to answer", func() bool {
		res, err := hc.Get(api + "/orgs")
		if err == nil {
			res.Body.Close()
		}
		return err == nil && res.StatusCode == 401
	})
	if code := callJSON(t, hc, "POST", api+"/session", map[string]string{"email": email, "password": password}, nil); code != 200 {
		t.Fatalf("login: %d", code)
	}
	return hc
}
