package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestDashboardStagedDeploys walks a staged deploy in Chromium against the
// real server (docs/contract.md#staged-deploys): the Deploy tab stages the
// draft, the History tab shows the live and the staged version side by
// side with the diff between them, Promote makes it live on the edge, and
// a project that requires staging says so. Every page is checked at
// 1280 and 375 px (and with axe-core when REDIRECTS_TEST_AXE is set).
func TestDashboardStagedDeploys(t *testing.T) {
	s := startDashboard(t)
	b := newBrowser(t, s.manage)
	b.open("/login")
	b.fill("Email address", "alice@example.com")
	b.fill("Password", dashboardPassword)
	b.click("Sign in")

	p := strings.TrimSpace(s.cli(t, "", "project", "create", "--org", s.org, "--name", "Shop"))
	s.cli(t, "", "rule", "add", "--project", p, "--source", "/old", "--destination", "/v1")
	s.cli(t, "", "deploy", "--project", p, "--message", "first")
	key := strings.TrimSpace(s.cli(t, "", "key", "create", "--project", p))
	lookup := func(path string) int {
		t.Helper()
		req, _ := http.NewRequest("GET", s.edge+"/v1/lookup?project="+p+"&path="+path, nil)
		req.Header.Set("X-API-Key", key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	eventually := func(what string, check func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !check(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 10 s", what)
			}
		}
	}
	eventually("version 1 on the edge", func() bool { return lookup("/old") == 200 })

	// Stage the draft from the Deploy tab.
	s.cli(t, "", "rule", "add", "--project", p, "--source", "/new", "--destination", "/v2")
	b.open("/projects/" + p + "/deploy")
	b.see("Stage it: keep the live version live", "Deploy version 2")
	b.fill("Message (what this deploy is for)", "try the new page")
	b.run(chromedp.Click("#stage", chromedp.NodeVisible))
	b.click("Deploy version 2")
	b.see("Staged version 2 (2 exact rules", "It is not live",
		"Staged version 2", "Live", "Version 1", "Staged", "Version 2",
		"Promote version 2", "Discard version 2",
		"What promoting version 2 changes", "1 added, 0 removed, 0 changed", "/new")
	b.shot("history-staged")
	if lookup("/new") != 204 {
		t.Fatalf("the edge answers the staged /new without a version")
	}

	// Promote: version 2 is live on the edge; version 1 can be made live
	// again from the table.
	b.click("Promote version 2")
	b.see("Version 2 is live: edge nodes answer with it within a second. Promote version 1 to undo.", "Make version 1 live")
	b.notSee("Discard version 2")
	b.shot("history-promoted")
	eventually("version 2 live on the edge", func() bool { return lookup("/new") == 200 })
	b.click("Make version 1 live")
	b.see("Version 1 is live")
	eventually("version 1 live again on the edge", func() bool { return lookup("/new") == 204 })

	// A staged version can be discarded.
	s.cli(t, "", "rule", "add", "--project", p, "--source", "/later", "--destination", "/v3")
	s.cli(t, "", "deploy", "--project", p, "--stage")
	b.open("/projects/" + p + "/history")
	b.see("Staged version 3", "2 added")
	b.click("Discard version 3")
	b.see("Discarded staged version 3.")
	b.notSee("Staged version 3")

	// A project that requires staging stages from the Deploy tab.
	s.cli(t, "", "project", "update", "--project", p, "--require-stage")
	b.open("/projects/" + p + "/deploy")
	b.see("This project requires staged deploys", "Stage version 4")
	b.shot("deploy-require-stage")
	b.click("Stage version 4")
	b.see("Staged version 4", "Promote version 4")
}
