package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runCLI runs Main on db, as the command line does, and fails the test
// unless it exits with code.
func runCLI(t *testing.T, db string, code int, args ...string) (stdout, stderr string) {
	t.Helper()
	stdout, stderr, got := inProcess(t, db, "", args...)
	if got != code {
		t.Fatalf("redirects %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), got, code, stdout, stderr)
	}
	return stdout, stderr
}

// hostLoop makes a database with a project whose host is www.example.com
// and whose draft is /a -> https://www.example.com/b and /b -> /a: a loop
// only through the project's own host, which lint reports.
func hostLoop(t *testing.T) (db, org, project string) {
	t.Helper()
	db = "sqlite:" + filepath.Join(t.TempDir(), "r.db")
	org, _ = runCLI(t, db, 0, "org", "create", "--name", "Acme", "--tier", "pro")
	org = strings.TrimSpace(org)
	project, _ = runCLI(t, db, 0, "project", "create", "--org", org, "--name", "www")
	project = strings.TrimSpace(project)
	runCLI(t, db, 0, "project", "update", "--project", project, "--host", "www.example.com")
	runCLI(t, db, 0, "rule", "add", "--project", project, "--source", "/a", "--destination", "https://www.example.com/b")
	runCLI(t, db, 0, "rule", "add", "--project", project, "--source", "/b", "--destination", "/a")
	if out, _ := runCLI(t, db, 1, "lint", "--project", project); !strings.Contains(out, "redirect loop of 2 rules") {
		t.Fatalf("lint of the host loop:\n%s", out)
	}
	return db, org, project
}

// deploymentCount returns the number of deployments of project p in db.
func deploymentCount(t *testing.T, db, p string) int {
	t.Helper()
	out, _ := runCLI(t, db, 0, "deployments", "--project", p, "--json")
	var ds []struct{ Version int }
	if err := json.Unmarshal([]byte(out), &ds); err != nil {
		t.Fatalf("deployments --json: %v\n%s", err, out)
	}
	return len(ds)
}

// TestDeployGateUsesTheProjectsHosts: redirects deploy blocks a loop that
// closes through the project's own host, as lint reports it.
func TestDeployGateUsesTheProjectsHosts(t *testing.T) {
	db, _, p := hostLoop(t)
	_, stderr := runCLI(t, db, 1, "deploy", "--project", p)
	if !strings.Contains(stderr, "redirect loop of 2 rules") || !strings.Contains(stderr, "deploy of the draft blocked, nothing changed: 1 lint error") {
		t.Fatalf("deploy of the host loop, stderr:\n%s", stderr)
	}
	if n := deploymentCount(t, db, p); n != 0 {
		t.Fatalf("deployments after the blocked deploy = %d, want 0", n)
	}
}

// signedIn starts serve with the management listener on db and signs in
// an editor of org made on the command line; it returns the
// listener's base URL, a client holding the session cookie and the
// session's CSRF token.
func signedIn(t *testing.T, db, org string) (base string, client *http.Client, csrf string) {
	t.Helper()
	const pw = "correct horse battery staple"
	if _, errs, code := inProcess(t, db, pw+"\n", "user", "create", "--email", "ed@example.com", "--password-stdin"); code != 0 {
		t.Fatalf("user create: %s", errs)
	}
	runCLI(t, db, 0, "member", "add", "--org", org, "--user", "ed@example.com", "--role", "editor")
	addr := freeAddr(t)
	start(t, db, "serve", "--addr", "127.0.0.1:0", "--admin-addr", "", "--engine", "net/http", "--manage-addr", addr)
	base = "http://" + addr
	jar, _ := cookiejar.New(nil)
	client = &http.Client{Jar: jar, Timeout: 10 * time.Second}
	waitFor(t, "the management API answers", func() bool {
		res, err := client.Get(base + "/manage/v1/orgs")
		if err == nil {
			res.Body.Close()
		}
		return err == nil && res.StatusCode == 401
	})
	var s struct{ CSRFToken string }
	if res := apiCall(t, client, "POST", base+"/manage/v1/session", "", map[string]string{"email": "ed@example.com", "password": pw}, &s); res.StatusCode != 200 {
		t.Fatalf("login: %d", res.StatusCode)
	}
	return base, client, s.CSRFToken
}

// TestManageDeployUsesTheProjectsHosts: the management API's deploy and
// its dry run block the host loop.
func TestManageDeployUsesTheProjectsHosts(t *testing.T) {
	db, org, p := hostLoop(t)
	base, client, csrf := signedIn(t, db, org)

	var check struct {
		Errors  int
		Blocked []string
	}
	if res := apiCall(t, client, "GET", base+"/manage/v1/projects/"+p+"/deploy-check", "", nil, &check); res.StatusCode != 200 ||
		check.Errors != 1 || len(check.Blocked) != 1 {
		t.Fatalf("deploy check of the host loop: %d %+v, want 1 error that blocks", res.StatusCode, check)
	}
	var body struct {
		Code string
		Gate struct {
			Findings []struct{ Kind string }
		}
	}
	res := apiCall(t, client, "POST", base+"/manage/v1/projects/"+p+"/deployments", csrf, map[string]any{"message": "loop"}, &body)
	if res.StatusCode != 409 || body.Code != "DEPLOY_BLOCKED" || len(body.Gate.Findings) == 0 || body.Gate.Findings[0].Kind != "loop" {
		t.Fatalf("deploy of the host loop: %d %+v, want 409 DEPLOY_BLOCKED with the loop", res.StatusCode, body)
	}
	if n := deploymentCount(t, db, p); n != 0 {
		t.Fatalf("deployments after the blocked deploy = %d, want 0", n)
	}
}

// TestDashboardDeployUsesTheProjectsHosts: the dashboard's Deploy button
// (the form posted over HTTP) blocks the host loop.
func TestDashboardDeployUsesTheProjectsHosts(t *testing.T) {
	db, org, p := hostLoop(t)
	base, client, csrf := signedIn(t, db, org)

	res, err := client.PostForm(base+"/projects/"+p+"/deploy", url.Values{"csrf": {csrf}, "message": {"loop"}})
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Request.URL.Path != "/projects/"+p+"/deploy" ||
		!strings.Contains(string(page), "Nothing was deployed: 1 lint error must be fixed") {
		t.Fatalf("dashboard deploy of the host loop: %d %s\n%s", res.StatusCode, res.Request.URL, page)
	}
	if n := deploymentCount(t, db, p); n != 0 {
		t.Fatalf("deployments after the blocked deploy = %d, want 0", n)
	}
}
