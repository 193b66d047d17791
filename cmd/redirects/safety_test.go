package main_test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"redirects"
	"redirects/export"
	"redirects/internal/servertest"
)

// mustExit runs a command that must exit with code and returns its result.
func (c *cli) mustExit(code int, args ...string) result {
	c.t.Helper()
	r := c.exec("", args...)
	if r.code != code {
		c.t.Fatalf("redirects %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, code, r.stdout, r.stderr)
	}
	return r
}

func TestLintCommand(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	c.ok("rule", "add", "--project", p, "--source", "/a", "--destination", "/b")
	loopID := c.ok("rule", "add", "--project", p, "--source", "/b", "--destination", "https://www.example.com/a?from=b")
	c.ok("rule", "add", "--project", p, "--source", "/docs", "--destination", "/manual", "--match", "starts_with", "--priority", "50")
	c.ok("rule", "add", "--project", p, "--source", "/docs/old", "--destination", "/archive", "--match", "starts_with")

	// Without --host the absolute destination leaves the project: a chain,
	// no loop.
	out := c.ok("lint", "--project", p)
	lines := strings.Split(out, "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "warning  chain       rule 1 (exact /a) redirects to /b, which rule 2 (exact /b) redirects again") ||
		!strings.HasPrefix(lines[1], "warning  shadowed    rule 4 (starts_with /docs/old) never answers") {
		t.Fatalf("lint printed:\n%s\nwant a chain and a shadowed rule", out)
	}

	r := c.mustExit(1, "lint", "--project", p, "--host", "www.example.com")
	if !strings.Contains(r.stdout, "error    loop        redirect loop of 2 rules: /a -> /b -> /a") ||
		!strings.Contains(r.stderr, "lint of the draft: 4 rules, 1 error, 1 warning; errors block a deploy") {
		t.Fatalf("lint with the loop:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
	}
	r = c.mustExit(1, "lint", "--project", p, "--host", "www.example.com", "--json")
	var lint struct {
		Target           string
		Errors, Warnings int
		Findings         []struct {
			Severity, Kind string
			Rules          []struct{ ID int64 }
			Path           []string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &lint); err != nil {
		t.Fatalf("lint --json: %v\n%s", err, r.stdout)
	}
	if lint.Target != "the draft" || lint.Errors != 1 || lint.Warnings != 1 || len(lint.Findings) != 2 ||
		lint.Findings[0].Kind != "loop" || strconv.FormatInt(lint.Findings[0].Rules[1].ID, 10) != loopID ||
		strings.Join(lint.Findings[0].Path, " ") != "/a /b /a" || lint.Findings[1].Kind != "shadowed" {
		t.Fatalf("lint --json = %+v", lint)
	}

	// A deployed version is linted as it was deployed.
	c.ok("rule", "delete", "--project", p, loopID)
	c.ok("deploy", "--project", p)
	c.ok("rule", "add", "--project", p, "--source", "/b", "--destination", "/a")
	c.mustExit(1, "lint", "--project", p)
	c.ok("lint", "--project", p, "--version", "1", "--host", "www.example.com")
	c.ok("lint", "--project", p, "--version", "live")

	c.fail(2, `--version "one" is not draft, live or a version number`, "lint", "--project", p, "--version", "one")
	c.fail(2, "lint needs --project", "lint")
	c.fail(2, "not a host name", "lint", "--project", p, "--host", "https://x/")
	c.fail(1, "--version 0 is not a positive version number", "lint", "--project", p, "--version", "0")
	c.fail(1, "not found", "lint", "--project", p, "--version", "7")
	c.fail(1, "not found", "lint", "--project", "prj_nosuchproject00")
}

func TestDiffAndExplainCommands(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	c.ok("rule", "add", "--project", p, "--source", "/old", "--destination", "/new")
	c.ok("rule", "add", "--project", p, "--source", "/blog", "--destination", "/news", "--match", "starts_with")

	// Nothing deployed: everything is added.
	out := c.ok("diff", "--project", p)
	for _, want := range []string{"+ exact /old -> 301 /new (priority 100)", "+ starts_with /blog -> 301 /news (priority 100)",
		"path /blog/_: no redirect -> 301 /news"} {
		if !strings.Contains(out, want) {
			t.Fatalf("diff before the first deploy lacks %q:\n%s", want, out)
		}
	}
	c.ok("deploy", "--project", p)
	c.ok("rule", "add", "--project", p, "--source", "/blog/2019", "--destination", "/archive", "--match", "starts_with", "--priority", "10", "--status", "302")
	var d struct {
		From, To                   string
		Added, Removed             []struct{ Source string }
		PathsChecked, PathsChanged int
		Impact                     []struct {
			Path     string
			From, To struct {
				StatusCode  int
				Destination string
			}
		}
	}
	c.jsonOf(&d, "diff", "--project", p, "--json")
	if d.From != "version 1 (live)" || d.To != "the draft" || len(d.Added) != 1 || d.Added[0].Source != "/blog/2019" ||
		len(d.Removed) != 0 || d.PathsChanged != 2 || len(d.Impact) != 2 || d.Impact[0].Path != "/blog/2019" ||
		d.Impact[0].From.Destination != "/news" || d.Impact[0].To.StatusCode != 302 || d.Impact[0].To.Destination != "/archive" {
		t.Fatalf("diff --json = %+v", d)
	}
	c.ok("deploy", "--project", p)
	if out := c.ok("diff", "--project", p, "--from", "2", "--to", "1"); !strings.Contains(out, "- starts_with /blog/2019 -> 302 /archive") {
		t.Fatalf("diff --from 2 --to 1:\n%s", out)
	}
	if out := c.ok("diff", "--project", p, "--from", "live", "--to", "draft"); out != "" {
		t.Fatalf("diff of the live version and an equal draft printed %q", out)
	}
	c.fail(1, "not found", "diff", "--project", p, "--from", "9")
	c.fail(2, `--to "latest" is not draft, live or a version number`, "diff", "--project", p, "--to", "latest")

	var e struct {
		Target, Matched string
		Answer          struct{ ID int64 }
		Candidates      []struct {
			Rule    struct{ Source string }
			Answers bool
			Reason  string
		}
	}
	c.jsonOf(&e, "explain", "--project", p, "--path", "/blog/2019/x?page=2", "--version", "1", "--json")
	if e.Target != "version 1" || e.Matched != "/blog/2019/x" || len(e.Candidates) != 1 || e.Candidates[0].Rule.Source != "/blog" {
		t.Fatalf("explain of version 1 = %+v", e)
	}
	c.jsonOf(&e, "explain", "--project", p, "--path", "/blog/2019/x", "--json")
	if e.Target != "the draft" || len(e.Candidates) != 2 || !e.Candidates[0].Answers || e.Candidates[0].Rule.Source != "/blog/2019" ||
		e.Candidates[1].Reason != "priority 100 loses to 10 (rule 3)" {
		t.Fatalf("explain of the draft = %+v", e)
	}
	out = c.ok("explain", "--project", p, "--path", "/blog/2019/x")
	if !strings.HasPrefix(out, "/blog/2019/x: 302 /archive, by rule 3 (starts_with /blog/2019) of the draft") || !strings.Contains(out, "priority 100 loses to 10") {
		t.Fatalf("explain printed:\n%s", out)
	}
	if out := c.ok("explain", "--project", p, "--path", "/other"); out != "/other: no rule of the draft matches /other: no redirect" {
		t.Fatalf("explain of a miss printed %q", out)
	}
	c.fail(2, "explain needs --path", "explain", "--project", p)
	c.fail(1, "--path \"x\" must start with /", "explain", "--project", p, "--path", "x")
	// --host is the lookup's host: host-less rules answer every host.
	if out := c.ok("explain", "--project", p, "--path", "/old", "--host", "Example.com"); !strings.HasPrefix(out, "/old on Example.com: 301 /new, by rule 1 (exact /old) of the draft") {
		t.Fatalf("explain --host printed:\n%s", out)
	}
	c.fail(1, `--host "a b" is not a host name`, "explain", "--project", p, "--path", "/old", "--host", "a b")
}

func TestTestCommand(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	c.ok("rule", "add", "--project", p, "--source", "/old", "--destination", "/mid", "--status", "302")
	c.ok("rule", "add", "--project", p, "--source", "/mid", "--destination", "https://www.example.com/final")
	dir := t.TempDir()
	file := filepath.Join(dir, "cases.csv")
	os.WriteFile(file, []byte("path,status,destination,final_destination\n"+
		"/old,302,/mid,https://www.example.com/final\n"+
		"/mid,301,https://www.example.com/final,\n"+
		"/nope,none,,\n"), 0o644)
	out := c.ok("test", "--project", p, file)
	if strings.Count(out, "ok    line") != 3 {
		t.Fatalf("test printed:\n%s", out)
	}
	// A host column: host-less rules answer every host.
	hosted := filepath.Join(dir, "hosted.csv")
	os.WriteFile(hosted, []byte("path,status,destination,host\n/old,302,/mid,www.example.com\n/old,302,/mid,\n"), 0o644)
	if out := c.ok("test", "--project", p, hosted); !strings.Contains(out, "ok    line 2: /old on www.example.com: 302 /mid") || !strings.Contains(out, "ok    line 3: /old: 302 /mid") {
		t.Fatalf("test with a host column printed:\n%s", out)
	}

	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("path,status,destination\n/old,301,/mid\n/nope,none,\n"), 0o644)
	junit := filepath.Join(dir, "report.xml")
	r := c.mustExit(1, "test", "--project", p, bad, "--junit", junit)
	if !strings.Contains(r.stdout, "FAIL  line 2: /old: answered 302 /mid, want 301 /mid") || !strings.Contains(r.stdout, "ok    line 3: /nope: no redirect") ||
		!strings.Contains(r.stderr, "test of the draft: 2 cases, 1 failed") {
		t.Fatalf("failing test:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
	}
	body, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
	}
	if err := xml.Unmarshal(body, &doc); err != nil || doc.Tests != 2 || doc.Failures != 1 {
		t.Fatalf("JUnit report (%v):\n%s", err, body)
	}
	var res struct {
		Cases, Failed int
		Results       []struct {
			Pass     bool
			Problems []string
		}
	}
	r = c.mustExit(1, "test", "--project", p, bad, "--json")
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.Cases != 2 || res.Failed != 1 || res.Results[0].Pass || !res.Results[1].Pass {
		t.Fatalf("test --json (%v): %s", err, r.stdout)
	}

	// Deployed versions are tested as deployed.
	c.ok("deploy", "--project", p)
	c.ok("test", "--project", p, file, "--version", "1")

	broken := filepath.Join(dir, "broken.csv")
	os.WriteFile(broken, []byte("path,status,destination\nold,301,/x\n/a,304,/b\n"), 0o644)
	c.fail(1, "line 2: path \"old\" must start with /", "test", "--project", p, broken)
	c.fail(1, "line 3: status \"304\" is not one of 301, 302, 303, 307, 308, 410, none", "test", "--project", p, broken)
	c.fail(2, "test takes FILE", "test", "--project", p)
	c.fail(1, "no such file", "test", "--project", p, filepath.Join(dir, "missing.csv"))
}

// TestVerifyCommand loads the project's nginx export into a real nginx and
// verifies it: no mismatch; then a copy with one destination changed by
// hand: exactly that mismatch, exit 1.
func TestVerifyCommand(t *testing.T) {
	bin := servertest.LookPath(t, "nginx")
	c := newCLI(t)
	_, p := c.setup()
	c.ok("rule", "add", "--project", p, "--source", "/old", "--destination", "/new")
	c.ok("rule", "add", "--project", p, "--source", "/promo", "--destination", "https://shop.example.com/sale", "--status", "302")
	c.ok("rule", "add", "--project", p, "--source", "/blog/", "--destination", "/news/", "--match", "starts_with")
	c.ok("deploy", "--project", p)
	conf := c.ok("export", "--project", p, "--format", "nginx") + "\n"
	edited := strings.Replace(conf, "return 302 https://shop.example.com/sale;", "return 302 https://shop.example.com/old-sale;", 1)
	if edited == conf {
		t.Fatalf("the nginx export lacks the /promo line:\n%s", conf)
	}
	dir := t.TempDir()
	servertest.WriteFile(t, filepath.Join(dir, "redirects.conf"), []byte(conf))
	servertest.WriteFile(t, filepath.Join(dir, "edited.conf"), []byte(edited))
	ports := []int{servertest.FreePort(t), servertest.FreePort(t)}
	cfg := filepath.Join(dir, "nginx.conf")
	servertest.WriteFile(t, cfg, []byte(servertest.NginxConf(dir, "", []string{
		export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxServerSnippet,
		export.NginxAbsoluteRedirectSnippet + "\ninclude /etc/nginx/edited.conf;",
	}, ports)))
	servertest.Check(t, bin, "-t", "-p", dir, "-e", "stderr", "-c", cfg)
	servertest.Start(t, ports, bin, "-p", dir, "-e", "stderr", "-c", cfg)

	own := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	if out := c.ok("verify", "--project", p, "--base-url", own); out != "" {
		t.Fatalf("verify of the project's own export printed %q", out)
	}
	r := c.mustExit(1, "verify", "--project", p, "--base-url", "http://127.0.0.1:"+strconv.Itoa(ports[1]))
	if want := "/promo: location: the server answers 302 https://shop.example.com/old-sale, the API 302 https://shop.example.com/sale\n"; r.stdout != want ||
		!strings.Contains(r.stderr, "3 paths, 1 mismatch") {
		t.Fatalf("verify of the edited config:\nstdout: %q\nwant:   %q\nstderr: %s", r.stdout, want, r.stderr)
	}
	var v struct {
		Paths      int
		Mismatches []struct{ Path, Problem string }
	}
	r = c.mustExit(1, "verify", "--project", p, "--base-url", "http://127.0.0.1:"+strconv.Itoa(ports[1]), "--json")
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || v.Paths != 3 || len(v.Mismatches) != 1 || v.Mismatches[0].Problem != "location" {
		t.Fatalf("verify --json (%v): %s", err, r.stdout)
	}
	c.fail(2, "verify needs --base-url", "verify", "--project", p)
	c.fail(1, "must be http:// or https://", "verify", "--project", p, "--base-url", "ftp://127.0.0.1")
	c.fail(1, "--concurrency 0 is outside 1..256", "verify", "--project", p, "--base-url", own, "--concurrency", "0")
}

// TestPatternSafetyCommands: with pattern and host-scoped rules in the
// store (added through it: the rule commands take them next), lint
// reports the loop through :lang, explain --host names the captures, and
// test runs a host column.
func TestPatternSafetyCommands(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	db := c.openDB()
	defer db.Close()
	for _, r := range []redirects.Rule{
		{Source: "/:lang/guide/*", Destination: "/:lang/docs/:splat", MatchType: redirects.Pattern},
		{Source: "/:lang/docs/*", Destination: "/:lang/guide/:splat", MatchType: redirects.Pattern},
		{Source: "/*", Destination: "https://example.com/:splat", MatchType: redirects.Pattern, Host: "old.example.com"},
	} {
		r.ProjectID, r.StatusCode, r.Priority = p, 301, 100
		if err := db.AddRule(context.Background(), &r); err != nil {
			t.Fatal(err)
		}
	}
	r := c.mustExit(1, "lint", "--project", p)
	if !strings.Contains(r.stdout, "redirect loop of 2 rules: /lang/guide/splat -> /lang/docs/splat -> /lang/guide/splat") {
		t.Fatalf("lint printed:\nstdout: %s\nstderr: %s", r.stdout, r.stderr)
	}
	out := c.ok("explain", "--project", p, "--path", "/en/x", "--host", "OLD.example.com")
	if !strings.HasPrefix(out, "/en/x on OLD.example.com: 301 https://example.com/en/x, by rule 3 (pattern /* on old.example.com) of the draft") ||
		!strings.Contains(out, `captured splat = "en/x"`) {
		t.Fatalf("explain --host printed:\n%s", out)
	}
	var e struct {
		Host     string
		Captures []struct{ Name, Value string }
	}
	c.jsonOf(&e, "explain", "--project", p, "--path", "/en/guide/a", "--json")
	if e.Host != "" || len(e.Captures) != 2 || e.Captures[0].Name != "lang" || e.Captures[0].Value != "en" || e.Captures[1].Value != "a" {
		t.Fatalf("explain --json = %+v", e)
	}
	file := filepath.Join(t.TempDir(), "cases.csv")
	os.WriteFile(file, []byte("path,status,destination,host\n/en/x,301,https://example.com/en/x,old.example.com\n/en/x,none,,\n"), 0o644)
	if out := c.ok("test", "--project", p, file); strings.Count(out, "ok    line") != 2 {
		t.Fatalf("test printed:\n%s", out)
	}
}
