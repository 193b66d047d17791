package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"redirects"
)

// remoteStep is one step of TestRemoteCLI's scenario: a command line whose
// placeholders are each side's values (O the organization, P the project,
// F the project file, E the web server verify checks, and what earlier
// steps captured).
type remoteStep struct {
	args []string
	// same runs the step with --db on the database the API serves
	// (rather than on its twin), for what the two databases cannot share:
	// the traffic an edge counted, the audit log of the API's own calls,
	// the token the API is called with. Reads only: a write would run
	// twice on the one database.
	same bool
	// capture names the placeholder that the first ID of the step's output
	// (the prefix of the placeholder in captures) becomes, on each side.
	capture string
}

// captures are the ID prefixes of the placeholders a step captures.
var captures = map[string]string{"U": "usr_", "K": "key_", "T": "tok_", "W": "whk_", "D": "whd_", "Q": "prj_"}

// remoteScenario is TestRemoteCLI's scenario. TestEveryCommandRemote
// requires every command that may run through the API to be in it.
var remoteScenario = []remoteStep{
	{args: []string{"rule", "add", "--project", "P", "--source", "/a", "--destination", "/b"}},
	{args: []string{"rule", "add", "--project", "P", "--source", "/docs/", "--destination", "https://docs.example.com/", "--match", "starts_with", "--status", "308", "--preserve-path", "--preserve-query"}},
	{args: []string{"rule", "add", "--project", "P", "--source", "/gone", "--status", "410"}},
	{args: []string{"rule", "add", "--project", "P", "--source", "/a", "--destination", "/c"}},
	{args: []string{"rule", "add", "--project", "P", "--source", "no-slash", "--destination", "/c"}},
	{args: []string{"rule", "list", "--project", "P"}},
	{args: []string{"rule", "list", "--project", "P", "--json"}},
	{args: []string{"rule", "list", "--project", "P", "--search", "/d*", "--limit", "1", "--json"}},
	{args: []string{"rule", "update", "--project", "P", "1", "--destination", "/bb", "--status", "307"}},
	{args: []string{"rule", "update", "--project", "P", "99", "--destination", "/x"}},
	{args: []string{"rule", "import", "--project", "P", "--mode", "upsert", "--dry-run", "CSV"}},
	{args: []string{"rule", "import", "--project", "P", "CSV"}},
	{args: []string{"rule", "import", "--project", "P", "--mode", "upsert", "--json", "CSV"}},
	{args: []string{"rule", "import", "--project", "P", "--from", "auto", "--mode", "upsert", "CSV"}},
	{args: []string{"rule", "import", "--project", "P", "--from", "auto", "--mode", "replace", "CSV"}},
	{args: []string{"rule", "undo-import", "--project", "P", "--import", "3"}},
	{args: []string{"rule", "undo-import", "--project", "P", "--import", "3"}},
	{args: []string{"rule", "delete", "--project", "P", "3"}},
	{args: []string{"rule", "list", "--project", "P", "--json"}},
	{args: []string{"project", "update", "--project", "P", "--case-sensitive=false", "--host", "www.example.com"}},
	{args: []string{"project", "list", "--org", "O", "--json"}},
	{args: []string{"deploy", "--project", "P", "--message", "first"}},
	{args: []string{"rule", "add", "--project", "P", "--source", "/loop1", "--destination", "/loop2"}},
	{args: []string{"rule", "add", "--project", "P", "--source", "/loop2", "--destination", "/loop1"}},
	{args: []string{"deploy", "--project", "P", "--message", "loop"}},
	{args: []string{"deploy", "--project", "P", "--message", "forced", "--force", "--reason", "testing"}},
	{args: []string{"deployments", "--project", "P", "--json"}},
	{args: []string{"key", "create", "--project", "P", "--name", "edge"}, capture: "K"},
	{args: []string{"key", "list", "--project", "P", "--json"}},
	{args: []string{"rule", "export", "--project", "P"}},
	{args: []string{"rule", "delete", "--project", "P", "--all-matching", "--search", "/loop*", "--yes"}},
	{args: []string{"rule", "list", "--project", "P"}},
	{args: []string{"lookup", "--project", "P", "--path", "/DOCS/a/b?x=1"}},
	{args: []string{"lookup", "--project", "P", "--path", "/a", "--version", "1"}},
	{args: []string{"lookup", "--project", "P", "--path", "/a", "--version", "9"}},
	{args: []string{"lookup", "--project", "P", "--path", "/a", "--host", "WWW.Example.com:443"}},
	{args: []string{"lookup", "--project", "P", "--path", "/a", "--host", "*.example.com"}},
	{args: []string{"lint", "--project", "P", "--version", "live"}},
	{args: []string{"lint", "--project", "P"}},
	{args: []string{"diff", "--project", "P"}},
	{args: []string{"diff", "--project", "P", "--from", "1", "--to", "2", "--json"}},
	{args: []string{"explain", "--project", "P", "--path", "/gone"}},
	{args: []string{"test", "set", "--project", "P", "TESTS"}},
	{args: []string{"test", "--project", "P"}},
	{args: []string{"test", "--project", "P", "--version", "1", "--json"}},
	{args: []string{"plan", "-f", "F"}},
	{args: []string{"apply", "-f", "F"}},
	{args: []string{"plan", "-f", "F"}},
	{args: []string{"deployments", "--project", "P"}},
	{args: []string{"rule", "add", "--project", "P", "--source", "/staged", "--destination", "/s"}},
	{args: []string{"deploy", "--project", "P", "--stage", "--message", "staged"}},
	{args: []string{"lookup", "--project", "P", "--path", "/staged"}},
	{args: []string{"deployments", "--project", "P", "--json"}},
	{args: []string{"promote", "--project", "P", "--version", "4"}},
	{args: []string{"lookup", "--project", "P", "--path", "/staged"}},
	{args: []string{"promote", "--project", "P", "--version", "3"}},
	{args: []string{"deploy", "--project", "P", "--stage", "--message", "staged again"}},
	{args: []string{"discard", "--project", "P", "--version", "5"}},
	{args: []string{"discard", "--project", "P", "--version", "4"}},
	{args: []string{"project", "update", "--project", "P", "--require-stage"}},
	{args: []string{"deploy", "--project", "P"}},
	{args: []string{"deployments", "--project", "P"}},

	// The organization, projects and keys.
	{args: []string{"org", "list"}},
	{args: []string{"org", "list", "--json"}},
	{args: []string{"project", "create", "--org", "O", "--name", "second"}, capture: "Q"},
	{args: []string{"project", "rename", "--project", "Q", "--name", "second-renamed"}},
	{args: []string{"project", "list", "--org", "O"}},
	{args: []string{"project", "delete", "--project", "Q", "--confirm", "second"}},
	{args: []string{"project", "delete", "--project", "Q", "--confirm", "second-renamed"}},
	{args: []string{"key", "list", "--project", "P"}, same: true},
	{args: []string{"key", "revoke", "--project", "P", "K"}},
	{args: []string{"key", "revoke", "--project", "P", "key_nope"}},

	// Hits and misses before any traffic: every rule never hit.
	{args: []string{"hits", "--project", "P"}},
	{args: []string{"hits", "--project", "P", "--json"}},
	{args: []string{"hits", "--project", "P", "--stale-since", "1h"}},
	{args: []string{"hits", "--project", "prj_nope"}},
	{args: []string{"hits", "--project", "P", "--stale-since", "bogus"}},
	{args: []string{"misses", "--project", "P"}},
	{args: []string{"misses", "--project", "P", "--json"}},
	{args: []string{"misses", "--project", "P", "--limit", "0"}},
	{args: []string{"agents", "list", "--project", "P"}},
	{args: []string{"agents", "list", "--project", "prj_nope"}},
	{args: []string{"agents", "delete", "--project", "P"}},
	{args: []string{"agents", "delete", "--project", "P", "--agent", "web-1", "--format", "nginx"}},
	{args: []string{"agents", "delete", "--project", "P", "--format", "bogus"}},
	{args: []string{"agents", "delete", "--project", "prj_nope"}},
	{args: []string{"suggest", "--project", "P", "--limit", "0"}},
	{args: []string{"suggest", "--project", "P", "--json"}},
	{args: []string{"suggest", "list", "--project", "P"}},
	{args: []string{"suggest", "list", "--project", "prj_nope"}},
	{args: []string{"suggest", "accept", "--project", "P", "--id", "sg_0000000000000000"}},
	{args: []string{"suggest", "dismiss", "--project", "P", "--id", "sg_0000000000000000"}},
	{args: []string{"suggest", "dismiss", "--project", "prj_nope", "--id", "sg_0000000000000000"}},

	// Export files of deployed versions, and of one whose files the
	// retention pruned, rendered again.
	{args: []string{"export", "--project", "P", "--format", "nginx"}},
	{args: []string{"export", "--project", "P", "--format", "csv", "--version", "1"}},
	{args: []string{"export", "--project", "P", "--format", "haproxy-map-prefix", "--version", "2"}},
	{args: []string{"export", "--project", "P", "--format", "haproxy", "--version", "9"}},
	{args: []string{"export", "--project", "P", "--format", "bogus"}},
	{args: []string{"export", "--project", "P", "--format", "csv", "--version", "0"}},
	{args: []string{"export", "--project", "prj_nope", "--format", "csv"}},
	{args: []string{"project", "update", "--project", "P", "--keep-exports", "1", "--require-stage=false"}},
	{args: []string{"deploy", "--project", "P", "--message", "prunes"}},
	{args: []string{"export", "--project", "P", "--format", "nginx", "--version", "1"}},
	{args: []string{"export", "--project", "P", "--format", "csv", "--version", "2"}},

	// verify against a web server that answers 404 to everything.
	{args: []string{"verify", "--base-url", "E", "--project", "P"}},
	{args: []string{"verify", "--base-url", "E", "--project", "P", "--version", "1", "--json"}},
	// The server was started without --check-allow-private: E, on
	// loopback, is refused on both sides.
	{args: []string{"check", "--project", "P", "--base-url", "E"}},
	{args: []string{"check", "--project", "P", "--last"}},
	{args: []string{"check", "--project", "P", "--base-url", "ftp://E"}},
	{args: []string{"check", "--project", "prj_nope"}},

	// Members.
	{args: []string{"member", "add", "--org", "O", "--user", "ada@example.com", "--role", "editor"}, capture: "U"},
	{args: []string{"member", "add", "--org", "O", "--user", "nobody@example.com", "--role", "viewer"}},
	{args: []string{"member", "add", "--org", "O", "--user", "ada@example.com", "--role", "owner-ish"}},
	{args: []string{"member", "list", "--org", "O"}},
	{args: []string{"member", "list", "--org", "O", "--json"}},
	{args: []string{"member", "add", "--org", "O", "--user", "Ada@Example.com", "--role", "viewer"}},
	{args: []string{"member", "list", "--org", "O", "--json"}},
	{args: []string{"member", "add", "--org", "O", "--user", "U", "--role", "owner"}},
	{args: []string{"member", "list", "--org", "O"}},
	{args: []string{"member", "add", "--org", "O", "--user", "U", "--role", "viewer"}},
	{args: []string{"member", "remove", "--org", "O", "--user", "ada@example.com"}},
	{args: []string{"member", "add", "--org", "O", "--user", "ada@example.com", "--role", "viewer"}},
	{args: []string{"member", "remove", "--org", "O", "--user", "U"}},
	{args: []string{"member", "remove", "--org", "O", "--user", "nobody@example.com"}},
	{args: []string{"member", "list", "--org", "org_nope"}},
	{args: []string{"member", "list", "--org", "O"}},

	// Management tokens: T is a viewer token made on each side.
	{args: []string{"token", "list", "--org", "O"}, same: true},
	{args: []string{"token", "list", "--org", "O", "--json"}, same: true},
	{args: []string{"token", "revoke", "--org", "O", "T"}},
	{args: []string{"token", "revoke", "--org", "O", "T"}},
	{args: []string{"token", "revoke", "--org", "O", "tok_nope"}},
	{args: []string{"token", "list", "--org", "org_nope"}},
	{args: []string{"token", "list", "--org", "O"}, same: true},

	// Webhooks: paused before the test event, so that the serve's sender
	// sends nothing and both sides' deliveries stay alike.
	{args: []string{"webhook", "create", "--org", "O", "--url", "E", "--action", "rule.*", "--project", "P"}, capture: "W"},
	{args: []string{"webhook", "create", "--org", "O", "--url", "ftp://nope"}},
	{args: []string{"webhook", "pause", "W"}},
	{args: []string{"webhook", "list", "--org", "O"}},
	{args: []string{"webhook", "list", "--org", "O", "--json"}},
	{args: []string{"webhook", "test", "W"}, capture: "D"},
	{args: []string{"webhook", "deliveries", "W"}},
	{args: []string{"webhook", "deliveries", "W", "--limit", "1", "--json"}},
	{args: []string{"webhook", "deliveries", "W", "--limit", "0"}},
	{args: []string{"webhook", "redeliver", "D"}},
	{args: []string{"webhook", "redeliver", "whd_nope"}},
	{args: []string{"webhook", "rotate-secret", "W", "--overlap", "1h"}},
	{args: []string{"webhook", "deliveries", "whk_nope"}},
	{args: []string{"webhook", "pause", "whk_nope"}},
	{args: []string{"webhook", "list", "--org", "org_nope"}},
	{args: []string{"webhook", "resume", "W"}},
	{args: []string{"webhook", "delete", "W"}},
	{args: []string{"webhook", "delete", "W"}},
	{args: []string{"webhook", "list", "--org", "O"}},

	// The audit log of the database the API serves, read both ways.
	{args: []string{"audit", "--org", "O", "--limit", "5"}, same: true},
	{args: []string{"audit", "--org", "O", "--project", "P", "--action", "rule.*", "--json", "--limit", "3"}, same: true},
	{args: []string{"audit", "--project", "P", "--csv", "--limit", "4"}, same: true},
	{args: []string{"audit", "--org", "O", "--since", "1h", "--limit", "0"}, same: true},
	{args: []string{"audit", "--org", "org_nope"}, same: true},
	{args: []string{"audit", "--org", "O", "--csv", "--json"}, same: true},
	{args: []string{"audit", "--project", "prj_nope"}, same: true},

	// Hits and misses after an edge's traffic (see traffic in the test).
	{args: []string{"hits", "--project", "P"}, same: true},
	{args: []string{"hits", "--project", "P", "--json"}, same: true},
	{args: []string{"hits", "--project", "P", "--stale-since", "1h"}, same: true},
	{args: []string{"misses", "--project", "P"}, same: true},
	{args: []string{"misses", "--project", "P", "--json"}, same: true},
	{args: []string{"misses", "--project", "P", "--limit", "1"}, same: true},
}

// TestRemoteCLI runs one scenario of commands twice, on two databases
// made alike: once with --db, once through the management API of a real
// serve (--api and --token), and requires the same output, errors and
// exit codes from both, IDs, secrets and times aside.
func TestRemoteCLI(t *testing.T) {
	storeIndependent(t, "it runs on a SQLite file of its own")
	dir := t.TempDir()
	dbLocal := "sqlite:" + filepath.Join(dir, "local.db")
	dbServed := "sqlite:" + filepath.Join(dir, "served.db")
	idOf := func(prefix, out string) string {
		id := regexp.MustCompile(regexp.QuoteMeta(prefix) + `[A-Za-z0-9]+`).FindString(out)
		if id == "" {
			t.Fatalf("no %s... ID in %q", prefix, out)
		}
		return id
	}
	// Each side's values of the placeholders.
	type side struct{ vals map[string]string }
	setup := func(db string) side {
		org, _ := runCLI(t, db, 0, "org", "create", "--name", "Acme", "--tier", "pro")
		org = strings.TrimSpace(org)
		project, _ := runCLI(t, db, 0, "project", "create", "--org", org, "--name", "www")
		if _, errs, code := inProcess(t, db, "correct horse battery\n", "user", "create", "--email", "ada@example.com", "--password-stdin"); code != 0 {
			t.Fatalf("user create: %s", errs)
		}
		_, errs := runCLI(t, db, 0, "token", "create", "--org", org, "--role", "viewer", "--name", "spare")
		return side{map[string]string{"O": org, "P": strings.TrimSpace(project), "T": idOf("tok_", errs)}}
	}
	local, served := setup(dbLocal), setup(dbServed)
	token, _ := runCLI(t, dbServed, 0, "token", "create", "--org", served.vals["O"], "--role", "owner", "--name", "cli")
	token = strings.TrimSpace(token)
	addr, edgeAddr := freeAddr(t), freeAddr(t)
	start(t, dbServed, "serve", "--addr", edgeAddr, "--admin-addr", "", "--engine", "net/http", "--manage-addr", addr)
	api := "http://" + addr
	waitFor(t, "the management API answers", func() bool {
		res, err := http.Get(api + "/manage/v1/orgs")
		if err == nil {
			res.Body.Close()
		}
		return err == nil && res.StatusCode == 401
	})
	tests := filepath.Join(dir, "tests.csv")
	os.WriteFile(tests, []byte("path,status,destination\n/a,307,/bb\n/nowhere,none,\n"), 0o644)
	projectFile := func(name, project string) string {
		f := filepath.Join(dir, name)
		os.WriteFile(f, []byte(`{"project": "`+project+`", "rules": [{"source": "/a", "destination": "/bb", "statusCode": 307}, {"source": "/new", "destination": "/x"}]}`), 0o644)
		return f
	}
	local.vals["F"], served.vals["F"] = projectFile("local.json", local.vals["P"]), projectFile("served.json", served.vals["P"])
	csv := filepath.Join(dir, "rules.csv")
	os.WriteFile(csv, []byte("source,destination,statusCode,matchType\n/imported,/here,302,exact\n/a,/b,301,exact\n"), 0o644)
	// The web server verify checks: nothing is there.
	web := httptest.NewServer(http.NotFoundHandler())
	defer web.Close()
	local.vals["E"], served.vals["E"] = web.URL, web.URL
	for _, sd := range []side{local, served} {
		sd.vals["CSV"], sd.vals["TESTS"] = csv, tests
	}

	// traffic has an edge count hits and misses of the served project,
	// and waits for its flush.
	traffic := func() {
		p := served.vals["P"]
		key, _ := runCLI(t, dbServed, 0, "key", "create", "--project", p, "--name", "traffic")
		key = strings.TrimSpace(key)
		lookup := func(path string) int {
			req, _ := http.NewRequest("GET", "http://"+edgeAddr+"/v1/lookup?project="+url.QueryEscape(p)+"&path="+url.QueryEscape(path), nil)
			req.Header.Set("X-API-Key", key)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				return 0
			}
			res.Body.Close()
			return res.StatusCode
		}
		waitFor(t, "the edge knows the new key", func() bool { return lookup("/a") == 200 })
		for path, n := range map[string]int{"/a": 4, "/new": 2, "/nowhere/1": 3, "/nowhere/2": 1} {
			for range n {
				lookup(path)
			}
		}
		waitFor(t, "the edge's hits and misses are flushed", func() bool {
			out, _, _ := inProcess(t, dbServed, "", "misses", "--project", p, "--json")
			var misses []struct{ Count int64 }
			json.Unmarshal([]byte(out), &misses)
			hits, _, _ := inProcess(t, dbServed, "", "hits", "--project", p, "--json")
			// Every lookup counted: /a's first 200 and four more.
			return len(misses) == 2 && misses[0].Count == 3 && misses[1].Count == 1 &&
				strings.Contains(hits, `"hits": 5,`) && strings.Contains(hits, `"hits": 2,`)
		})
	}

	norm := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z|redir_(live|test|mgmt)_[A-Za-z0-9]+|whsec_[A-Za-z0-9]+|(key|usr|tok|whk|whd|prj)_[A-Za-z0-9]+|` +
		`\.\.\.\.?[A-Za-z0-9]{4}\b|"last4": "[^"]*"`)
	clean := func(s string, sd side) string {
		s = strings.ReplaceAll(strings.ReplaceAll(s, sd.vals["P"], "P"), sd.vals["O"], "O")
		s = strings.ReplaceAll(strings.ReplaceAll(s, "local.json", "F"), "served.json", "F")
		return norm.ReplaceAllString(s, "X")
	}
	trafficked := false
	for _, step := range remoteScenario {
		if step.same && step.args[0] == "hits" && !trafficked {
			traffic()
			trafficked = true
		}
		argsFor := func(sd side) []string {
			out := make([]string, len(step.args))
			for i, a := range step.args {
				if v, ok := sd.vals[a]; ok {
					a = v
				}
				out[i] = a
			}
			return out
		}
		db, dbSide := dbLocal, local
		if step.same {
			db, dbSide = dbServed, served
		}
		lo, le, lc := inProcess(t, db, "", argsFor(dbSide)...)
		// Through the API: no database at all, the address and token in
		// the global flags.
		m := &Main{Stdin: strings.NewReader(""), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Clock: nil,
			Getenv: func(string) string { return "" }}
		ro, re, rc := runMain(t, m, append([]string{"--api", api, "--token", token}, argsFor(served)...))
		what := strings.Join(step.args, " ")
		if step.capture != "" {
			local.vals[step.capture] = idOf(captures[step.capture], lo+le)
			served.vals[step.capture] = idOf(captures[step.capture], ro+re)
		}
		if lc != rc {
			t.Errorf("%s: exit %d with --db, %d through the API\n--db stderr: %s\n--api stderr: %s", what, lc, rc, le, re)
			continue
		}
		if a, b := clean(lo, dbSide), clean(ro, served); a != b {
			t.Errorf("%s: stdout differs\n--db:\n%s\n--api:\n%s", what, a, b)
		}
		if step.same && (step.args[0] == "hits" || step.args[0] == "misses") && lo != ro {
			// One database on both sides: the times too, to the fraction
			// of a second the store keeps.
			t.Errorf("%s: stdout differs on one database, times included\n--db:\n%s\n--api:\n%s", what, lo, ro)
		}
		if a, b := clean(le, dbSide), clean(re, served); a != b {
			t.Errorf("%s: stderr differs\n--db:\n%s\n--api:\n%s", what, a, b)
		}
	}
	if !trafficked {
		t.Fatal("the scenario never read the traffic's hits")
	}
	// Without --org, audit through the API reads the token's organization.
	dbAudit, _, _ := inProcess(t, dbServed, "", "audit", "--org", served.vals["O"], "--limit", "0")
	m := &Main{Stdin: strings.NewReader(""), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Getenv: func(string) string { return "" }}
	if apiAudit, errs, code := runMain(t, m, []string{"--api", api, "--token", token, "audit", "--limit", "0"}); code != 0 || apiAudit != dbAudit || strings.Count(apiAudit, "\n") < 50 {
		t.Errorf("audit without --org through the API: exit %d %s\n%s\nwant the organization's log:\n%s", code, errs, apiAudit, dbAudit)
	}
	// The export of version 1 above was rendered again: the retention
	// pruned its files.
	db, err := OpenStore(t.Context(), dbServed, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = db.FindExport(t.Context(), served.vals["P"], 1, "nginx")
	db.Close()
	if !redirects.IsExportsPruned(err) {
		t.Errorf("version 1's export files: %v, want pruned", err)
	}

	// What needs the database says so, and a bad token is refused.
	m = &Main{Stdin: strings.NewReader(""), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Getenv: func(string) string { return "" }}
	_, errs, code := runMain(t, m, []string{"--api", api, "--token", token, "serve"})
	if code != 1 || !strings.Contains(errs, "serve needs the database") {
		t.Errorf("serve through the API: exit %d, %q", code, errs)
	}
	_, errs, code = runMain(t, m, []string{"--api", api, "--token", "redir_mgmt_wrong", "rule", "list", "--project", served.vals["P"]})
	if code != 1 || !strings.Contains(errs, "redirects: ") {
		t.Errorf("a bad token: exit %d, %q", code, errs)
	}
	_, errs, code = runMain(t, m, []string{"--api", api, "rule", "list", "--project", served.vals["P"]})
	if code != 1 || !strings.Contains(errs, "needs a management token") {
		t.Errorf("--api without a token: exit %d, %q", code, errs)
	}

	// login saves a profile (mode 0600) that later commands use.
	home := t.TempDir()
	env := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return home
		}
		return ""
	}
	m = &Main{Stdin: strings.NewReader(token + "\n"), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Getenv: env}
	if _, errs, code := runMain(t, m, []string{"login", "--api", api}); code != 0 {
		t.Fatalf("login: exit %d: %s", code, errs)
	}
	fi, err := os.Stat(filepath.Join(home, "redirects", "profile.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the profile: %v, mode %v", err, fi.Mode())
	}
	m = &Main{Stdin: strings.NewReader(""), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Getenv: env}
	out, errs, code := runMain(t, m, []string{"deployments", "--project", served.vals["P"]})
	if code != 0 || !strings.Contains(out, "forced") {
		t.Fatalf("deployments with the saved login: exit %d\n%s\n%s", code, out, errs)
	}
	m = &Main{Stdin: strings.NewReader("redir_mgmt_nope\n"), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Getenv: env}
	if _, _, code := runMain(t, m, []string{"login", "--api", api}); code != 1 {
		t.Fatalf("login with a bad token: exit %d", code)
	}
	m = &Main{Stdin: strings.NewReader(""), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Getenv: env}
	runMain(t, m, []string{"logout"})
	if _, err := os.Stat(filepath.Join(home, "redirects", "profile.json")); !os.IsNotExist(err) {
		t.Fatalf("logout left the profile: %v", err)
	}
}

// runMain runs m on args and returns its output and exit code.
func runMain(t *testing.T, m *Main, args []string) (string, string, int) {
	t.Helper()
	if m.Clock == nil {
		m.Clock = redirects.SystemClock{}
	}
	done := make(chan int, 1)
	go func() { done <- m.Run(t.Context(), args) }()
	select {
	case code := <-done:
		return m.Stdout.(*syncBuffer).String(), m.Stderr.(*syncBuffer).String(), code
	case <-time.After(60 * time.Second):
		t.Fatalf("redirects %s did not end within 60 s", strings.Join(args, " "))
		return "", "", 0
	}
}

// scenarioCommand returns the command a step of the scenario runs.
func scenarioCommand(args []string) string {
	if len(args) > 1 && findCommand(args[0]+" "+args[1]) != nil {
		return args[0] + " " + args[1]
	}
	return args[0]
}

// TestEveryCommandRemote walks the command table: each command either
// needs the database, and says so through the management API before it
// does anything, or opens no store at all, or is run by TestRemoteCLI's
// scenario, which requires the API to answer it as the database does. A
// new command fails here until it is one of the three.
func TestEveryCommandRemote(t *testing.T) {
	storeIndependent(t, "it runs on a SQLite file of its own")
	exercised := map[string]bool{}
	for _, st := range remoteScenario {
		exercised[scenarioCommand(st.args)] = true
	}
	// Commands that open no store, so --api changes nothing for them
	// (TestRemoteCLI runs login and logout).
	storeless := map[string]bool{"login": true, "logout": true, "version": true, "help": true, "sync": true}
	// Arguments with which each command that needs the database would
	// otherwise run.
	needsDB := map[string][]string{
		"serve":               {"--addr", "127.0.0.1:0", "--admin-addr", ""},
		"quickstart":          {"--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0", "--manage-addr", "127.0.0.1:0"},
		"user create":         {"--email", "ada@example.com"},
		"user list":           nil,
		"user disable":        {"ada@example.com"},
		"user reset-password": {"ada@example.com"},
		"org create":          {"--name", "Acme", "--tier", "pro"},
		"org update":          {"org_x", "--name", "Acme"},
		"org delete":          {"org_x", "--confirm", "Acme"},
		"token create":        {"--org", "org_x", "--role", "viewer"},
	}
	// An API that is never called: a command that needs the database says
	// so before it calls anything.
	env := func(k string) string {
		return map[string]string{"REDIRECTS_API": "http://127.0.0.1:1", "REDIRECTS_TOKEN": "redir_mgmt_unused"}[k]
	}
	walked := 0
	for _, cm := range commands {
		if cm.run == nil {
			continue
		}
		walked++
		switch args, ok := needsDB[cm.name]; {
		case cm.needsDB != ok:
			t.Errorf("%s: needsDB is %v, but the test's list of commands that need the database says %v", cm.name, cm.needsDB, ok)
		case ok:
			if exercised[cm.name] {
				t.Errorf("%s needs the database, yet TestRemoteCLI's scenario runs it", cm.name)
			}
			m := &Main{Stdin: strings.NewReader("a password long enough\n"), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Getenv: env}
			out, errs, code := runMain(t, m, append(strings.Fields(cm.name), args...))
			want := "redirects: " + cm.name + " needs the database: "
			if code != 1 || out != "" || !strings.HasPrefix(errs, want) || !strings.Contains(errs, "run it with --db") {
				t.Errorf("%s through the API: exit %d, stdout %q, stderr %q; want exit 1 and %q...", cm.name, code, out, errs, want)
			}
			m = &Main{Stdin: strings.NewReader(""), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Getenv: env}
			if help, _, code := runMain(t, m, append(strings.Fields(cm.name), "--help")); code != 0 || !strings.Contains(help, "\nNeeds the database (--db): ") {
				t.Errorf("%s --help through the API: exit %d, no \"Needs the database\":\n%s", cm.name, code, help)
			}
			// With --db it runs on the database (here: a usage error or
			// an answer, never the refusal).
			if cm.name != "serve" && cm.name != "quickstart" {
				db := "sqlite:" + filepath.Join(t.TempDir(), "r.db")
				_, errs, _ := inProcess(t, db, "a password long enough\n", append(append(strings.Fields(cm.name), args...), "--db", db)...)
				if strings.Contains(errs, "needs the database") {
					t.Errorf("%s with --db: %q", cm.name, errs)
				}
			}
		case storeless[cm.name]:
			if exercised[cm.name] {
				t.Errorf("%s opens no store, yet TestRemoteCLI's scenario runs it", cm.name)
			}
		case !exercised[cm.name]:
			t.Errorf("%s may run through the management API, but TestRemoteCLI's scenario never runs it: add steps for it there (or mark it needsDB with whyDB, if the API cannot serve it)", cm.name)
		}
	}
	for name := range needsDB {
		if cm := findCommand(name); cm == nil || cm.run == nil {
			t.Errorf("the test's list of commands that need the database names %q, which is no command", name)
		}
	}
	for name := range exercised {
		if cm := findCommand(name); cm == nil || cm.run == nil {
			t.Errorf("TestRemoteCLI's scenario runs %q, which is no command", name)
		}
	}
	if walked < 60 {
		t.Fatalf("walked %d commands; the table has more", walked)
	}
}
