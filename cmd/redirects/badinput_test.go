package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBadInputChangesNothing(t *testing.T) {
	c := newCLI(t)
	org, p := c.setup()
	c.ok("rule", "add", "--project", p, "--source", "/taken", "--destination", "/x")
	c.ok("deploy", "--project", p)
	before := c.ok("rule", "list", "--project", p, "--json")
	orgsBefore := c.ok("org", "list", "--json")
	deploysBefore := c.ok("deployments", "--project", p, "--json")
	long := "/" + strings.Repeat("a", 2048)

	for _, tc := range []struct {
		want string
		args []string
	}{
		{"statusCode 304 is not one of 301, 302, 303, 307, 308, 410", []string{"rule", "add", "--project", p, "--source", "/a", "--destination", "/b", "--status", "304"}},
		{`matchType "glob" is not one of exact, starts_with, pattern, regex`, []string{"rule", "add", "--project", p, "--source", "/a", "--destination", "/b", "--match", "glob"}},
		{"priority 1000001 is outside 0..1000000", []string{"rule", "add", "--project", p, "--source", "/a", "--destination", "/b", "--priority", "1000001"}},
		{"priority -1 is outside", []string{"rule", "add", "--project", p, "--source", "/a", "--destination", "/b", "--priority", "-1"}},
		{`forbidden character ';'`, []string{"rule", "add", "--project", p, "--source", "/a;b", "--destination", "/b"}},
		{`forbidden character '{'`, []string{"rule", "add", "--project", p, "--source", "/a", "--destination", "/b{c}"}},
		{`forbidden character '?'`, []string{"rule", "add", "--project", p, "--source", "/a%3Fb", "--destination", "/b"}},
		{"whitespace or a control character", []string{"rule", "add", "--project", p, "--source", "/a b", "--destination", "/b"}},
		{"must start with '/'", []string{"rule", "add", "--project", p, "--source", "a", "--destination", "/b"}},
		{"must be a path starting with '/' or an http:// or https:// URL", []string{"rule", "add", "--project", p, "--source", "/a", "--destination", "ftp://x"}},
		{"source is 2049 bytes long, more than the 2048 allowed", []string{"rule", "add", "--project", p, "--source", long, "--destination", "/b"}},
		{`rule for source "/taken" already exists`, []string{"rule", "add", "--project", p, "--source", "/taken", "--destination", "/y"}},
		{`project "prj_nope" not found`, []string{"rule", "add", "--project", "prj_nope", "--source", "/a", "--destination", "/b"}},
		{`organization "org_nope" not found`, []string{"project", "create", "--org", "org_nope", "--name", "x"}},
		{`tier "gold" is not one of free, pro, enterprise`, []string{"org", "create", "--name", "x", "--tier", "gold"}},
		{`organization name "a\ab" holds a control character (U+0007)`, []string{"org", "create", "--name", "a\ab", "--tier", "free"}},
		{`key name "\x1b[31m" holds a control character`, []string{"key", "create", "--project", p, "--name", "\x1b[31m"}},
		{`organization "org_nope" not found`, []string{"org", "update", "org_nope", "--tier", "pro"}},
		{`project "prj_nope" not found`, []string{"key", "create", "--project", "prj_nope"}},
		{`key "key_nope" is not a key of project`, []string{"key", "revoke", "--project", p, "key_nope"}},
		{`project "prj_nope" not found`, []string{"deploy", "--project", "prj_nope"}},
		{`version 99`, []string{"deploy", "--project", p, "--from-version", "99"}},
		{`version 99`, []string{"lookup", "--project", p, "--path", "/taken", "--version", "99"}},
		{`--path "taken" must start with /`, []string{"lookup", "--project", p, "--path", "taken"}},
		{`--host "a_b.example" is not a host name`, []string{"lookup", "--project", p, "--path", "/taken", "--host", "a_b.example"}},
		{`format "apache" is not one of csv, nginx`, []string{"export", "--project", p, "--format", "apache"}},
		{`rule 999 not found in project`, []string{"rule", "delete", "--project", p, "999"}},
	} {
		c.fail(1, tc.want, tc.args...)
	}

	for _, tc := range []struct {
		want string
		args []string
	}{
		{"no command given", nil},
		{`unknown command "frobnicate"`, []string{"frobnicate"}},
		{`unknown command "rule frob"`, []string{"rule", "frob"}},
		{"flag provided but not defined: --bogus", []string{"org", "list", "--bogus"}},
		{"rule add needs --project", []string{"rule", "add", "--source", "/a", "--destination", "/b"}},
		{"invalid value", []string{"rule", "add", "--project", p, "--source", "/a", "--destination", "/b", "--priority", "high"}},
		{"rule delete takes RULE_ID", []string{"rule", "delete", "--project", p}},
		{"org list takes no arguments", []string{"org", "list", "extra"}},
		{"org update needs at least one of", []string{"org", "update", org}},
	} {
		c.fail(2, tc.want, tc.args...)
	}

	if after := c.ok("rule", "list", "--project", p, "--json"); after != before {
		t.Fatalf("bad input changed the rules:\nbefore %s\nafter %s", before, after)
	}
	if after := c.ok("org", "list", "--json"); after != orgsBefore {
		t.Fatalf("bad input changed the organizations:\nbefore %s\nafter %s", orgsBefore, after)
	}
	if after := c.ok("deployments", "--project", p, "--json"); after != deploysBefore {
		t.Fatalf("bad input changed the deployments:\nbefore %s\nafter %s", deploysBefore, after)
	}
}

func TestImportIsAllOrNothing(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	c.ok("rule", "add", "--project", p, "--source", "/existing", "--destination", "/x")
	before := c.ok("rule", "list", "--project", p, "--json")
	dir := t.TempDir()
	write := func(name, body string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}

	bad := write("bad.csv", strings.Join([]string{
		"source,destination,statusCode,matchType,priority",
		"/fine,/ok,301,exact,",
		"/two,/ok,304,exact,",            // line 3: status
		"/three,/ok,301,fuzzy,",          // line 4: match type
		"four,/ok,301,exact,",            // line 5: source
		"/five,/ok,301,starts_with,lots", // line 6: priority
		"/six,/ok;rm,301,exact,",         // line 7: forbidden character
		"/fine,/again,302,exact,",        // line 8: duplicate of line 2
		"/eight,/ok,301",                 // line 9: field count
		"/fine,/prefix-is-fine,301,starts_with,1",
	}, "\n")+"\n")
	r := c.exec("", "rule", "import", "--project", p, bad)
	if r.code != 1 || r.stdout != "" {
		t.Fatalf("import of a bad file: exit %d stdout %q, want exit 1 and nothing on stdout", r.code, r.stdout)
	}
	for _, want := range []string{"nothing imported", "line 3: statusCode", "line 4: matchType \"fuzzy\"", "line 5: source", "line 6: priority \"lots\"",
		"line 7: destination", "line 8: a exact rule for source \"/fine\" already appears on line 2", "line 9: "} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("import error does not say %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "line 2:") || strings.Contains(r.stderr, "line 10:") {
		t.Errorf("import error blames a good line:\n%s", r.stderr)
	}

	conflict := write("conflict.csv", "source,destination,statusCode,matchType\n/new,/ok,301,exact\n/existing,/y,301,exact\n")
	c.fail(1, "line 3", "rule", "import", "--project", p, conflict)
	c.fail(1, "header", "rule", "import", "--project", p, write("header.csv", "from,to\n/a,/b\n"))
	c.fail(1, "empty", "rule", "import", "--project", p, write("empty.csv", ""))
	c.fail(1, "line 2", "rule", "import", "--project", p, write("quote.csv", "source,destination,statusCode,matchType\n\"/a,/b,301,exact\n"))
	c.fail(1, "cannot read", "rule", "import", "--project", p, filepath.Join(dir, "missing.csv"))

	if after := c.ok("rule", "list", "--project", p, "--json"); after != before {
		t.Fatalf("a failed import changed the rules:\nbefore %s\nafter %s", before, after)
	}

	// --replace swaps the whole draft set in one step.
	if n := c.ok("rule", "import", "--project", p, "--replace", conflict); n != "2" {
		t.Fatalf("import --replace printed %q, want 2", n)
	}
	var rules []struct{ Source, Destination string }
	c.jsonOf(&rules, "rule", "list", "--project", p, "--json")
	if len(rules) != 2 || rules[0].Source != "/existing" || rules[0].Destination != "/y" || rules[1].Source != "/new" {
		t.Fatalf("rules after --replace: %+v", rules)
	}
}

func TestImportReportsEveryBadLine(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	var b strings.Builder
	b.WriteString("source,destination,statusCode,matchType\n")
	for i := 0; i < 250; i++ {
		b.WriteString("/ok,/x,999,exact\n")
	}
	// The terminal shows the first 100 and the count; --errors-file
	// holds every one.
	file := filepath.Join(t.TempDir(), "errors.txt")
	r := c.exec(b.String(), "rule", "import", "--project", p, "--errors-file", file, "-")
	if r.code != 1 {
		t.Fatalf("import of 250 bad lines: exit %d", r.code)
	}
	if n := strings.Count(r.stderr, "statusCode 999 is not one of 301, 302"); n != 100 {
		t.Fatalf("%d of 250 bad lines shown on the terminal, want 100", n)
	}
	if !strings.Contains(r.stderr, "... and 150 more (250 bad lines in all; every one is in "+file+")") {
		t.Fatalf("the terminal does not count the bad lines:\n%.500s", r.stderr[max(0, len(r.stderr)-500):])
	}
	all, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("--errors-file: %v", err)
	}
	if n := strings.Count(string(all), "statusCode 999 is not one of 301, 302"); n != 250 {
		t.Fatalf("%d of 250 bad lines in --errors-file", n)
	}
	if !strings.Contains(string(all), "line 251: statusCode") {
		t.Fatalf("the last bad line is not named:\n%.500s", all)
	}
}
