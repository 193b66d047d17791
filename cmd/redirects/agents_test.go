package main_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"redirects/internal/servertest"
)

// callJSON sends body (JSON, or none) to the management API and decodes
// the answer into out; it returns the status.
func callJSON(t *testing.T, c *http.Client, method, url string, body, out any) int {
	t.Helper()
	var rd bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd.Reset(b)
	}
	req, err := http.NewRequest(method, url, &rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	if out != nil && res.StatusCode < 300 {
		if err := json.NewDecoder(res.Body).Decode(out); err != nil {
			t.Fatalf("%s %s: %d, body not JSON: %v", method, url, res.StatusCode, err)
		}
	}
	return res.StatusCode
}

// TestSyncAgentsReported is "which servers have which version" end to end
// (docs/delivery.md#which-servers-have-which-version): the binary serves
// the edge and the management API; two runs of the binary's
// `redirects sync --once` keep a file current, and the second tells the
// edge the version it applied; the management API lists the agent under
// its host name and file, at the live version; after a deploy that no
// agent applied, it is behind; the next run catches up.
func TestSyncAgentsReported(t *testing.T) {
	c := newCLI(t)
	_, project := c.setup()
	c.ok("rule", "add", "--project", project, "--source", "/old", "--destination", "/new")
	c.ok("deploy", "--project", project)
	key := c.ok("key", "create", "--project", project)
	const pw = "correct horse battery staple"
	if r := c.exec(pw+"\n", "user", "create", "--email", "ops@example.com", "--operator", "--password-stdin"); r.code != 0 {
		t.Fatalf("user create: %s", r.stderr)
	}
	addr := "127.0.0.1:" + strconv.Itoa(servertest.FreePort(t))
	s := startServeProcess(t, c, "--manage-addr", addr)
	api := "http://" + addr + "/manage/v1"
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	waitMinute(t, "the management API to answer", func() bool {
		res, err := hc.Get(api + "/orgs")
		if err == nil {
			res.Body.Close()
		}
		return err == nil && res.StatusCode == 401
	})
	if code := callJSON(t, hc, "POST", api+"/session", map[string]string{"email": "ops@example.com", "password": pw}, nil); code != 200 {
		t.Fatalf("login: %d", code)
	}
	type agentsAnswer struct {
		LiveVersion int
		Agents      []struct {
			Agent, Format, SeenAt string
			AppliedVersion        int
			Behind                bool
		}
	}
	agents := func() agentsAnswer {
		t.Helper()
		var a agentsAnswer
		if code := callJSON(t, hc, "GET", api+"/projects/"+project+"/agents", nil, &a); code != 200 {
			t.Fatalf("GET agents: %d", code)
		}
		return a
	}
	if a := agents(); a.LiveVersion != 1 || len(a.Agents) != 0 {
		t.Fatalf("agents before any sync = %+v, want live version 1 and none", a)
	}

	out := filepath.Join(t.TempDir(), "redirects.conf")
	sync := func() {
		t.Helper()
		r := c.execProcess("", "sync", "--edge", s.base, "--key", key, "--project", project, "--format", "nginx", "--out", out, "--once")
		if r.code != 0 {
			t.Fatalf("sync --once: exit %d\n%s", r.code, r.stderr)
		}
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	name := host + " " + out
	// The edge writes what it saw at its next flush, within a second or so.
	until := func(what string, ok func(agentsAnswer) bool) agentsAnswer {
		t.Helper()
		var a agentsAnswer
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if a = agents(); ok(a) {
				return a
			}
		}
		t.Fatalf("%s: the API answers %+v; logs:\n%s", what, a, s.logs.String())
		return a
	}
	start := time.Now()
	sync()
	a := until("the agent at version 1", func(a agentsAnswer) bool {
		return len(a.Agents) == 1 && a.Agents[0].AppliedVersion == 1
	})
	if g := a.Agents[0]; g.Agent != name || g.Format != "nginx" || g.Behind || a.LiveVersion != 1 {
		t.Errorf("the agent = %+v (live %d), want %q, nginx, version 1, not behind", g, a.LiveVersion, name)
	}
	if seen, err := time.Parse(time.RFC3339, a.Agents[0].SeenAt); err != nil || seen.Before(start.Add(-time.Second)) || seen.After(time.Now().Add(time.Second)) {
		t.Errorf("seenAt %q is not the time of the sync", a.Agents[0].SeenAt)
	}

	// A deploy no agent applied: the agent is behind.
	c.ok("rule", "add", "--project", project, "--source", "/older", "--destination", "/newer")
	c.ok("deploy", "--project", project)
	a = until("the live version 2", func(a agentsAnswer) bool { return a.LiveVersion == 2 })
	if len(a.Agents) != 1 || a.Agents[0].AppliedVersion != 1 || !a.Agents[0].Behind {
		t.Errorf("after a deploy without sync the agents are %+v, want %q at version 1, behind", a.Agents, name)
	}
	// The next run applies version 2 (once the edge has it: it follows
	// the store within a second or so) and says so.
	waitMinute(t, "sync --once to apply version 2", func() bool {
		sync()
		body, err := os.ReadFile(out)
		return err == nil && strings.Contains(string(body), "/older")
	})
	until("the agent at version 2, not behind", func(a agentsAnswer) bool {
		return len(a.Agents) == 1 && a.Agents[0].AppliedVersion == 2 && !a.Agents[0].Behind
	})

	// A staged version is not live (docs/contract.md#staged-deploys): the
	// agent on version 2 is current while version 3 waits for a promote.
	c.ok("rule", "add", "--project", project, "--source", "/staged", "--destination", "/later")
	if v := c.ok("deploy", "--project", project, "--stage"); v != "3" {
		t.Fatalf("deploy --stage printed %q, want 3", v)
	}
	if a := agents(); a.LiveVersion != 2 || len(a.Agents) != 1 || a.Agents[0].Behind {
		t.Errorf("with version 3 staged the API answers %+v, want live version 2 and the agent on 2 not behind", a)
	}
}
