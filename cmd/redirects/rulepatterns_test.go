package main

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRulePatternsCLI runs the rule commands with hosts and the pattern
// and regex match types on two databases made alike, once with --db and
// once through the management API of a real serve, and requires the same
// output, errors and exit codes of both; it checks what the --db side
// prints, so that two equally wrong answers fail too.
func TestRulePatternsCLI(t *testing.T) {
	storeIndependent(t, "it runs on a SQLite file of its own")
	dir := t.TempDir()
	dbLocal := "sqlite:" + filepath.Join(dir, "local.db")
	dbServed := "sqlite:" + filepath.Join(dir, "served.db")
	setup := func(db string) (org, project string) {
		org, _ = runCLI(t, db, 0, "org", "create", "--name", "Acme", "--tier", "pro")
		org = strings.TrimSpace(org)
		project, _ = runCLI(t, db, 0, "project", "create", "--org", org, "--name", "www")
		return org, strings.TrimSpace(project)
	}
	_, pLocal := setup(dbLocal)
	oServed, pServed := setup(dbServed)
	token, _ := runCLI(t, dbServed, 0, "token", "create", "--org", oServed, "--role", "owner", "--name", "cli")
	token = strings.TrimSpace(token)
	addr := freeAddr(t)
	start(t, dbServed, "serve", "--addr", freeAddr(t), "--admin-addr", "", "--engine", "net/http", "--manage-addr", addr)
	api := "http://" + addr
	waitFor(t, "the management API answers", func() bool {
		res, err := http.Get(api + "/manage/v1/orgs")
		if err == nil {
			res.Body.Close()
		}
		return err == nil && res.StatusCode == 401
	})
	csvFile := filepath.Join(dir, "import.csv")
	os.WriteFile(csvFile, []byte("source,destination,statusCode,matchType,host\n"+
		"/imported,/here,302,exact,Imported.Example.com\n/imported,/there,302,exact,\n/:y/old/*,/:y/new/:splat,301,pattern,\n"), 0o644)
	badCSV := filepath.Join(dir, "bad.csv")
	os.WriteFile(badCSV, []byte("source,destination,statusCode,matchType,host\n/:a:b,/x,301,pattern,\n/a,/b,301,glob,\n/c,/d,301,exact,bad host\n"), 0o644)

	// projectFile writes project p's file for plan and apply: pattern,
	// regex and host-scoped rules, one source on two hosts.
	projectFile := func(p string) string {
		f := filepath.Join(dir, p+".json")
		os.WriteFile(f, []byte(`{"project": "`+p+`", "rules": [
			{"source": "/moved", "destination": "/a", "host": "Old.Example.COM"},
			{"source": "/moved", "destination": "/b"},
			{"source": "/:lang/docs/*", "destination": "/:lang/guide/:splat", "matchType": "pattern", "host": "*.example.org"},
			{"source": "^/p/(\\d+)$", "destination": "/posts/$1", "matchType": "regex", "statusCode": 308}], "deploy": false}`), 0o644)
		return f
	}
	norm := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)
	run := func(args ...string) (local, remote string) {
		t.Helper()
		// P is each side's project, F its project file.
		argsFor := func(p string) []string {
			out := make([]string, len(args))
			for i, a := range args {
				switch a {
				case "P":
					a = p
				case "F":
					a = projectFile(p)
				}
				out[i] = a
			}
			return out
		}
		lo, le, lc := inProcess(t, dbLocal, "", argsFor(pLocal)...)
		m := &Main{Stdin: strings.NewReader(""), Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, Getenv: func(string) string { return "" }}
		ro, re, rc := runMain(t, m, append([]string{"--api", api, "--token", token}, argsFor(pServed)...))
		what := strings.Join(args, " ")
		clean := func(s, p string) string {
			return norm.ReplaceAllString(strings.ReplaceAll(strings.ReplaceAll(s, projectFile(p), "F"), p, "P"), "T")
		}
		if lc != rc {
			t.Errorf("%s: exit %d with --db, %d through the API\n--db: %s%s\n--api: %s%s", what, lc, rc, lo, le, ro, re)
		}
		if a, b := clean(lo, pLocal), clean(ro, pServed); a != b {
			t.Errorf("%s: stdout differs\n--db:\n%s\n--api:\n%s", what, a, b)
		}
		if a, b := clean(le, pLocal), clean(re, pServed); a != b {
			t.Errorf("%s: stderr differs\n--db:\n%s\n--api:\n%s", what, a, b)
		}
		return clean(lo, pLocal), clean(le, pLocal)
	}
	want := func(what, got string, parts ...string) {
		t.Helper()
		for _, p := range parts {
			if !strings.Contains(got, p) {
				t.Errorf("%s: %q does not hold %q", what, got, p)
			}
		}
	}
	wantNot := func(what, got string, parts ...string) {
		t.Helper()
		for _, p := range parts {
			if strings.Contains(got, p) {
				t.Errorf("%s: %q holds %q", what, got, p)
			}
		}
	}

	// A project without hosts lists as it always did: no HOST column.
	run("rule", "add", "--project", "P", "--source", "/old", "--destination", "/new")
	out, _ := run("rule", "list", "--project", "P")
	wantNot("rule list of a project without hosts", out, "HOST")
	out, _ = run("rule", "list", "--project", "P", "--json")
	wantNot("rule list --json of a project without hosts", out, `"host"`)

	out, _ = run("rule", "add", "--project", "P", "--match", "pattern", "--source", "/:lang/docs/*", "--destination", "/:lang/guide/:splat", "--host", "Old.Example.COM")
	want("rule add of a pattern", out, "2\n")
	run("rule", "add", "--project", "P", "--match", "regex", "--source", `^/p/(\d+)$`, "--destination", "/posts/$1")
	run("rule", "add", "--project", "P", "--source", "/moved", "--destination", "/here", "--host", "*.example.org")
	run("rule", "add", "--project", "P", "--source", "/moved", "--destination", "/anywhere")
	run("rule", "add", "--project", "P", "--source", "/index.php?p=:id", "--destination", "/posts/:id", "--status", "308")
	_, errs := run("rule", "add", "--project", "P", "--source", "/moved", "--destination", "/again", "--host", "*.EXAMPLE.org")
	want("a rule that is there on that host", errs, "/moved")
	_, errs = run("rule", "add", "--project", "P", "--match", "pattern", "--source", "/:a:b", "--destination", "/x")
	want("a bad pattern", errs, "source", "byte")
	_, errs = run("rule", "add", "--project", "P", "--match", "regex", "--source", "^/(a", "--destination", "/x")
	want("a bad regex", errs, "source", "byte")
	_, errs = run("rule", "add", "--project", "P", "--match", "pattern", "--source", "/a/:x", "--destination", "/b/:y")
	want("an undefined capture", errs, "destination", ":y")
	_, errs = run("rule", "add", "--project", "P", "--source", "/a", "--destination", "/b", "--host", "not a host")
	want("a malformed host", errs, "host")

	out, _ = run("rule", "list", "--project", "P")
	want("rule list with hosts", out, "HOST", "old.example.com", "*.example.org", "pattern", "regex", `^/p/(\d+)$`, "/index.php?p=:id")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 7 {
		t.Errorf("rule list: %d lines, want a header and 6 rules:\n%s", len(lines), out)
	}
	out, _ = run("rule", "list", "--project", "P", "--json")
	want("rule list --json", out, `"host": "old.example.com"`, `"matchType": "regex"`)
	if n := strings.Count(out, `"host"`); n != 2 {
		t.Errorf("rule list --json: %d hosts, want 2 (the host-less rules have none):\n%s", n, out)
	}
	out, _ = run("rule", "list", "--project", "P", "--match", "pattern")
	want("rule list --match pattern", out, "/:lang/docs/*")
	wantNot("rule list --match pattern", out, "/moved", "/old")
	out, _ = run("rule", "list", "--project", "P", "--host", "OLD.example.com")
	want("rule list --host", out, "/:lang/docs/*")
	wantNot("rule list --host", out, "/moved", "/old")
	out, _ = run("rule", "list", "--project", "P", "--host=", "--search", "/moved")
	want("rule list --host=", out, "/anywhere")
	wantNot("rule list --host=", out, "/here", "HOST")
	out, _ = run("rule", "list", "--project", "P", "--host", "*.example.org", "--limit", "10", "--json")
	want("rule list --host --limit --json", out, `"host": "*.example.org"`, `"total": 1`)
	_, errs = run("rule", "list", "--project", "P", "--match", "glob")
	want("rule list --match glob", errs, "pattern, regex")

	// update: a host set, changed and taken away; a bad one refused.
	out, _ = run("rule", "update", "--project", "P", "2", "--host", "new.example.com")
	want("rule update --host", out, "2\n")
	_, errs = run("rule", "update", "--project", "P", "2", "--host", "a..b")
	want("rule update with a bad host", errs, "host")
	run("rule", "update", "--project", "P", "2", "--host=")
	out, _ = run("rule", "list", "--project", "P", "--match", "pattern", "--json")
	wantNot("after rule update --host=", out, `"host"`)
	run("rule", "update", "--project", "P", "4", "--match", "pattern", "--source", "/moved/:x", "--destination", "/here/:x")

	// The draft CSV: a host column only when a rule has one.
	out, _ = run("rule", "export", "--project", "P")
	want("rule export", out, "source,destination,statusCode,matchType,priority,id,host\r\n", ",4,*.example.org\r\n", `^/p/(\d+)$,/posts/$1,301,regex,100,3,`+"\r\n")
	// The platforms' files: each extended rule in the platform's syntax,
	// or listed on stderr as left out.
	out, errs = run("rule", "export", "--project", "P", "--to", "netlify")
	want("rule export --to netlify", out, "/:lang/docs/*  /:lang/guide/:splat  301!\n", "/index.php p=:id  /posts/:id  308!\n")
	want("rule export --to netlify's list", errs, "rule 3 (^/p/(\\d+)$): left out: a regex rule", "rule 4 (/moved/:x): left out: a pattern rule: Netlify's domain lines name one host, not its subdomains")
	out, errs = run("rule", "export", "--project", "P", "--to", "vercel")
	want("rule export --to vercel", out, `{"source":"/index.php","has":[{"type":"query","key":"p"}],"destination":"/posts/:p","permanent":true}`, `{"source":"/:lang/docs/:splat(.*)","destination":"/:lang/guide/:splat","statusCode":301}`)
	want("rule export --to vercel's list", errs, "rule 3 (^/p/(\\d+)$): left out: a regex rule")
	_, errs = run("rule", "import", "--project", "P", badCSV)
	want("an import of bad lines", errs, "line 2: source", "line 3: matchType", "line 4: host")
	run("rule", "import", "--project", "P", "--mode", "replace", csvFile)
	out, _ = run("rule", "list", "--project", "P")
	want("rule list after the import", out, "imported.example.com", "/:y/old/*")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 4 {
		t.Errorf("rule list after the import: %d lines, want a header and 3 rules:\n%s", len(lines), out)
	}
	run("rule", "delete", "--project", "P", "--all-matching", "--host", "imported.example.com", "--yes")
	out, _ = run("rule", "export", "--project", "P")
	want("rule export after the host's rules went", out, "/imported,/there,302,exact,", "/:y/old/*,/:y/new/:splat,301,pattern,")
	wantNot("rule export after the host's rules went", out, "host", "imported.example.com")

	// plan and apply with the project file: the rules as it says them.
	out, _ = run("plan", "-f", "F")
	want("plan of pattern and host rules", out, "+ pattern /:lang/docs/*", "+ regex ^/p/(\\d+)$", "+ exact /moved")
	run("apply", "-f", "F")
	out, _ = run("rule", "list", "--project", "P")
	want("rule list after apply", out, "HOST", "old.example.com", "*.example.org", `^/p/(\d+)$`)
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 5 {
		t.Errorf("rule list after apply: %d lines, want a header and 4 rules:\n%s", len(lines), out)
	}
	out, _ = run("plan", "-f", "F")
	want("plan once applied", out, "draft: 0 to add, 0 to remove, 0 to change, 4 unchanged")
}
