package main_test

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"redirects/internal/testreport"
)

// usageCommands returns the commands of "redirects --help", each with the
// flags its usage lines show.
func usageCommands(t *testing.T, c *cli) (names []string, flags map[string][]string) {
	t.Helper()
	r := c.exec("", "--help")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("redirects --help: exit %d, stderr %q; want 0 and nothing", r.code, r.stderr)
	}
	_, list, ok := strings.Cut(r.stdout, "\nCommands, by task:\n")
	if !ok {
		t.Fatalf("redirects --help has no Commands section:\n%s", r.stdout)
	}
	list, _, _ = strings.Cut(list, "\nEvery command takes")
	word := regexp.MustCompile(`^[a-z][a-z-]*$`)
	flagRE := regexp.MustCompile(`--[a-z][a-z-]*`)
	flags = map[string][]string{}
	for _, line := range strings.Split(list, "\n") {
		if !strings.HasPrefix(line, "  ") {
			continue // a blank line or a task's heading
		}
		line, _, _ = strings.Cut(strings.TrimSpace(line), "   ") // the remark after a synopsis
		var words []string
		for _, w := range strings.Fields(line) {
			if !word.MatchString(w) || len(words) == 2 {
				break
			}
			words = append(words, w)
		}
		name := strings.Join(words, " ")
		if _, seen := flags[name]; !seen {
			names = append(names, name)
		}
		flags[name] = append(flags[name], flagRE.FindAllString(line, -1)...)
	}
	if len(names) < 30 {
		t.Fatalf("found only %d commands in redirects --help: %q", len(names), names)
	}
	return names, flags
}

// TestEveryCommandHasHelp runs "COMMAND --help" and "help COMMAND" for
// every command of the usage text: each prints on stdout what the command
// is, its flags and an example, exits 0, and touches no database.
func TestEveryCommandHasHelp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "redirects.db")
	c := &cli{t: t, db: "sqlite:" + path}
	names, flags := usageCommands(t, c)
	for _, name := range names {
		args := append(strings.Fields(name), "--help")
		r := c.exec("", args...)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("redirects %s --help: exit %d, stderr %q; want 0 and nothing", name, r.code, r.stderr)
			continue
		}
		if !strings.HasPrefix(r.stdout, "redirects "+name+": ") {
			t.Errorf("redirects %s --help does not start with what the command is:\n%s", name, r.stdout)
		}
		for _, want := range append([]string{"Usage:\n  redirects " + name, "Example:\n  "}, flags[name]...) {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("redirects %s --help does not say %q:\n%s", name, want, r.stdout)
			}
		}
		// sync is an agent for web servers: it reads the edge API, never a
		// database; login and logout keep the management API's profile.
		if name != "version" && name != "help" && name != "sync" && name != "login" && name != "logout" && !strings.Contains(r.stdout, "\n  --db URL  ") {
			t.Errorf("redirects %s --help does not list --db:\n%s", name, r.stdout)
		}
		if h := c.exec("", append([]string{"help"}, strings.Fields(name)...)...); h.code != 0 || h.stdout != r.stdout {
			t.Errorf("redirects help %s: exit %d, and its output differs from --help:\n%s", name, h.code, h.stdout)
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("help created the database %s (stat: %v)", path, err)
	}
}

// TestUsageGroupedByTask: the top-level help lists the commands under a
// heading per task, each command under its task's heading (the key
// commands under keys and tokens, not among the rule commands), and no
// command under "Other".
func TestUsageGroupedByTask(t *testing.T) {
	c := newCLI(t)
	out := c.ok("--help")
	sections := map[string]string{}
	var order []string
	heading := ""
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "  ") && heading != "":
			sections[heading] += strings.TrimSpace(line) + "\n"
		case strings.HasSuffix(line, ":") && !strings.HasPrefix(line, " "):
			heading = strings.TrimSuffix(line, ":")
			order = append(order, heading)
		case line == "":
		default:
			heading = ""
		}
	}
	want := map[string][]string{
		"Organizations and projects":       {"org create ", "project update "},
		"Rules":                            {"rule add ", "rule import ", "rule undo-import "},
		"Deploys":                          {"deploy ", "promote ", "plan ", "apply ", "deployments "},
		"Checks":                           {"lint ", "diff ", "explain ", "test ", "verify "},
		"Lookups, exports and traffic":     {"lookup ", "export ", "misses "},
		"Keys and tokens":                  {"key create ", "token create ", "login "},
		"Members, users and the audit log": {"member add ", "user create ", "audit "},
		"Delivery":                         {"sync ", "agents delete ", "webhook create "},
		"The server":                       {"serve ", "quickstart ", "version", "help "},
	}
	for title, cmds := range want {
		for _, cmd := range cmds {
			if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(cmd)).MatchString(sections[title]) {
				t.Errorf("redirects --help: %q is not under the heading %q (headings %q):\n%s", cmd, title, order, out)
			}
		}
	}
	if strings.Contains(sections["Rules"], "key ") {
		t.Errorf("redirects --help lists key commands among the rule commands:\n%s", sections["Rules"])
	}
	if s, ok := sections["Other"]; ok {
		t.Errorf("redirects --help lists commands under Other, which no task names (add them to helpGroups):\n%s", s)
	}
}

// TestGroupHelp lists a group's subcommands, one line each, for every
// way of asking.
func TestGroupHelp(t *testing.T) {
	c := newCLI(t)
	names, _ := usageCommands(t, c)
	subs := map[string][]string{}
	for _, name := range names {
		if group, sub, ok := strings.Cut(name, " "); ok {
			subs[group] = append(subs[group], sub)
		}
	}
	if len(subs) < 7 {
		t.Fatalf("found only the groups %v in redirects --help", subs)
	}
	for group, cmds := range subs {
		r := c.exec("", group, "--help")
		if r.code != 0 || r.stderr != "" {
			t.Fatalf("redirects %s --help: exit %d, stderr %q", group, r.code, r.stderr)
		}
		for _, sub := range cmds {
			if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(sub) + ` +[a-z]\S* `).MatchString(r.stdout) {
				t.Errorf("redirects %s --help does not describe %q on a line of its own:\n%s", group, sub, r.stdout)
			}
		}
		for _, args := range [][]string{{group, "-h"}, {group, "help"}, {"help", group}} {
			if again := c.exec("", args...); again.code != 0 || again.stdout != r.stdout {
				t.Errorf("redirects %s: exit %d, output differs from %s --help:\n%s", strings.Join(args, " "), again.code, group, again.stdout)
			}
		}
	}
	// A group without its subcommand is a usage error that shows the list.
	r := c.exec("", "rule")
	if r.code != 2 || !strings.Contains(r.stderr, "rule needs a subcommand") || !strings.Contains(r.stderr, "  import  ") {
		t.Errorf("redirects rule: exit %d, stderr %q; want 2, the error and the subcommands", r.code, r.stderr)
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		if r := c.exec("", args...); r.code != 0 || !strings.Contains(r.stdout, "rule import --project P") {
			t.Errorf("redirects %s: exit %d, stdout lacks the usage:\n%s", args[0], r.code, r.stdout)
		}
	}
}

// TestRuleImportHelpDescribesCSV checks that the help of rule import is
// enough to write a file: header, columns, priority, quoting, all or
// nothing.
func TestRuleImportHelpDescribesCSV(t *testing.T) {
	c := newCLI(t)
	out := c.ok("rule", "import", "--help")
	for _, want := range []string{
		"source,destination,statusCode,matchType,priority",
		"301, 302, 303, 307, 308, or 410 (Gone: no destination)", "exact, starts_with, pattern", "regex", "optional column", "host",
		"preservePath", "preserveQuery", "#fragment", "empty for a 410",
		`double quotes`, `"/a,b"`, "all or nothing", "--errors-file", "--replace", "in any order",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("rule import --help does not say %q:\n%s", want, out)
		}
	}
	// The reader takes the columns in any order, as docs/cli.md says.
	if strings.Contains(out, "in this order") {
		t.Errorf("rule import --help says the columns come in one order; the reader takes any:\n%s", out)
	}
}

// TestTestHelpDescribesTheFile checks that test --help names every column
// and every status the test file takes (safety.ParseCases).
func TestTestHelpDescribesTheFile(t *testing.T) {
	c := newCLI(t)
	out := c.ok("test", "--help")
	for _, want := range []string{
		"path,status,destination[,final_destination][,host]", "in either order",
		"301, 302, 303, 307 or 308", "410", "none (or 204)", "host is the host", "query",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("test --help does not say %q:\n%s", want, out)
		}
	}
}

// TestSuggestions names the closest command or flag to a typo, and none
// when nothing is close.
func TestSuggestions(t *testing.T) {
	c := newCLI(t)
	for _, tc := range []struct {
		want string
		args []string
	}{
		{`unknown command "deplyo" (did you mean "deploy"?)`, []string{"deplyo"}},
		{`unknown command "rules" (did you mean "rule"?)`, []string{"rules", "list"}},
		{`unknown command "rule lsit" (did you mean "rule list"?)`, []string{"rule", "lsit"}},
		{`unknown command "user reset-pasword" (did you mean "user reset-password"?)`, []string{"user", "reset-pasword"}},
		// The flag is echoed as it was typed, with its one or two dashes.
		{`flag provided but not defined: --jsno (did you mean "--json"?)`, []string{"org", "list", "--jsno"}},
		{`flag provided but not defined: --projcet (did you mean "--project"?)`, []string{"rule", "list", "--projcet", "x"}},
		{`flag provided but not defined: -projct (did you mean "--project"?)`, []string{"rule", "list", "-projct", "x"}},
		{`flag provided but not defined: --projct (did you mean "--project"?)`, []string{"rule", "list", "--projct=x"}},
		{`flag provided but not defined: --dbb (did you mean "--db"?)`, []string{"--dbb", "x", "org", "list"}},
		{`flag provided but not defined: -dbb (did you mean "--db"?)`, []string{"-dbb", "x", "org", "list"}},
		{`unknown command "frob"`, []string{"help", "frob"}},
	} {
		c.fail(2, tc.want, tc.args...)
	}
	// The hint after a usage error points to the help that answers it.
	for _, tc := range []struct {
		help string
		args []string
	}{
		{"redirects --help", []string{"deplyo"}},
		{"redirects rule --help", []string{"rule", "lsit"}},
		{"redirects rule list --help", []string{"rule", "list", "--projcet", "x"}},
		{"redirects rule add --help", []string{"rule", "add", "--source", "/a", "--destination", "/b"}},
	} {
		c.fail(2, fmt.Sprintf("\nRun %q for usage.\n", tc.help), tc.args...)
	}
	for _, args := range [][]string{{"frobnicate"}, {"rule", "frob"}, {"org", "list", "--bogus"}} {
		r := c.exec("", args...)
		if r.code != 2 || strings.Contains(r.stderr, "did you mean") {
			t.Errorf("redirects %s: exit %d, stderr %q; want 2 and no suggestion", strings.Join(args, " "), r.code, r.stderr)
		}
	}
}

// TestReadingCommandsNeedTheDatabase runs every command that only reads
// against a SQLite file that does not exist: each says so, exits 1, and
// leaves no file; a command that writes then creates it.
func TestReadingCommandsNeedTheDatabase(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "typo.db")
	c := &cli{t: t, db: "sqlite:" + path}
	cases := filepath.Join(t.TempDir(), "cases.csv")
	if err := os.WriteFile(cases, []byte("path,status,destination\n/a,301,/b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(`database file %s does not exist (create it with a command that writes, e.g. "redirects org create", or check --db / REDIRECTS_DB)`, path)
	for _, args := range [][]string{
		{"org", "list"}, {"project", "list"}, {"rule", "list", "--project", "prj_x"}, {"key", "list", "--project", "prj_x"},
		{"user", "list"}, {"member", "list", "--org", "org_x"}, {"token", "list", "--org", "org_x"},
		{"deployments", "--project", "prj_x"}, {"lookup", "--project", "prj_x", "--path", "/a"},
		{"export", "--project", "prj_x", "--format", "csv"}, {"audit"},
		{"lint", "--project", "prj_x"}, {"diff", "--project", "prj_x"}, {"explain", "--project", "prj_x", "--path", "/a"},
		{"test", "--project", "prj_x", cases}, {"verify", "--base-url", "http://127.0.0.1:1", "--project", "prj_x"},
		{"serve", "--addr", "127.0.0.1:0", "--admin-addr", ""},
	} {
		c.fail(1, "redirects: "+want+"\n", args...)
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Fatalf("redirects %s created %s", strings.Join(args, " "), entries[0].Name())
		}
	}
	// --db names the file as REDIRECTS_DB does.
	other := filepath.Join(dir, "other.db")
	c.fail(1, "database file "+other+" does not exist", "org", "list", "--db", "sqlite:"+other)

	org := c.ok("org", "create", "--name", "Acme", "--tier", "free")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("org create did not create the database: %v", err)
	}
	if out := c.ok("org", "list"); !strings.Contains(out, org) {
		t.Fatalf("org list after org create lacks %s:\n%s", org, out)
	}
}

// TestImportCapsErrorsOnTheTerminal shows the first 100 bad lines and the
// count, and writes every one to --errors-file.
func TestImportCapsErrorsOnTheTerminal(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	csv := func(bad int) string {
		var b strings.Builder
		b.WriteString("source,destination,statusCode,matchType\n/fine,/x,301,exact\n")
		for i := 0; i < bad; i++ {
			fmt.Fprintf(&b, "/bad%d,/x,999,exact\n", i)
		}
		return b.String()
	}

	r := c.exec(csv(250), "rule", "import", "--project", p, "-")
	if r.code != 1 || r.stdout != "" {
		t.Fatalf("import of 250 bad lines: exit %d, stdout %q", r.code, r.stdout)
	}
	if n := strings.Count(r.stderr, "statusCode 999 is not one of 301, 302, 303, 307, 308, 410"); n != 100 {
		t.Errorf("%d bad lines shown on the terminal, want the first 100", n)
	}
	if !strings.Contains(r.stderr, "line 3: statusCode") || !strings.Contains(r.stderr, "line 102: statusCode") || strings.Contains(r.stderr, "line 103:") {
		t.Errorf("the terminal does not show lines 3 to 102, and only them:\n%s", r.stderr)
	}
	if !strings.HasSuffix(r.stderr, "\n... and 150 more (250 bad lines in all; --errors-file FILE writes every one)\n") {
		t.Errorf("the terminal does not end with the count:\n%.300s", r.stderr[max(0, len(r.stderr)-300):])
	}

	file := filepath.Join(t.TempDir(), "errors.txt")
	r = c.exec(csv(250), "rule", "import", "--project", p, "--errors-file", file, "-")
	if r.code != 1 || !strings.HasSuffix(r.stderr, "\n... and 150 more (250 bad lines in all; every one is in "+file+")\n") {
		t.Fatalf("import with --errors-file: exit %d, stderr ends %q", r.code, r.stderr[max(0, len(r.stderr)-200):])
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("--errors-file: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 250 || lines[0] != "line 3: statusCode 999 is not one of 301, 302, 303, 307, 308, 410" || !strings.HasPrefix(lines[249], "line 252: statusCode") {
		t.Fatalf("--errors-file holds %d lines, first %q, last %q; want 250, lines 3 to 252", len(lines), lines[0], lines[len(lines)-1])
	}

	// Up to 100 bad lines, the terminal shows them all, as it always did.
	r = c.exec(csv(100), "rule", "import", "--project", p, "-")
	if r.code != 1 || strings.Count(r.stderr, "statusCode 999") != 100 || strings.Contains(r.stderr, "... and") {
		t.Errorf("import of 100 bad lines: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	// A good import leaves --errors-file empty.
	r = c.exec(csv(0), "rule", "import", "--project", p, "--errors-file", file, "-")
	if b, err := os.ReadFile(file); r.code != 0 || err != nil || len(b) != 0 {
		t.Errorf("good import with --errors-file: exit %d, file %q (%v); want 0 and an empty file", r.code, b, err)
	}
	if out := c.ok("rule", "list", "--project", p); strings.Count(out, "/fine") != 1 || strings.Contains(out, "/bad") {
		t.Errorf("after the imports the draft holds:\n%s\nwant /fine once and no bad rule", out)
	}
}

// TestRevokeTwiceSaysSo revokes a key and a token a second time: exit 0,
// nothing changed, and a line saying when they were revoked.
func TestRevokeTwiceSaysSo(t *testing.T) {
	c := newCLI(t)
	org, p := c.setup()
	key := c.ok("key", "create", "--project", p)
	var keys []struct{ ID, RevokedAt string }
	c.jsonOf(&keys, "key", "list", "--project", p, "--json")
	id := keys[0].ID

	r := c.exec("", "key", "revoke", "--project", p, id)
	if r.code != 0 || !strings.Contains(r.stderr, "revoked key "+id) || strings.Contains(r.stderr, "already") {
		t.Fatalf("first key revoke: exit %d, stderr %q", r.code, r.stderr)
	}
	c.jsonOf(&keys, "key", "list", "--project", p, "--json")
	revokedAt := keys[0].RevokedAt
	for _, ref := range []string{id, key} {
		r = c.exec("", "key", "revoke", "--project", p, ref)
		if want := fmt.Sprintf("redirects: key %s was already revoked on %s\n", id, revokedAt); r.code != 0 || r.stderr != want || r.stdout != "" {
			t.Errorf("key revoke of a revoked key: exit %d, stdout %q, stderr %q; want 0 and %q", r.code, r.stdout, r.stderr, want)
		}
	}
	c.jsonOf(&keys, "key", "list", "--project", p, "--json")
	if keys[0].RevokedAt != revokedAt {
		t.Errorf("revoking again moved the revocation from %s to %s", revokedAt, keys[0].RevokedAt)
	}

	c.ok("token", "create", "--org", org, "--role", "viewer")
	type token struct{ ID, RevokedAt string }
	var tokens []token
	tokenID := func(t token) string { return t.ID }
	c.jsonOf(&tokens, "token", "list", "--org", org, "--json")
	tokens = withoutOwnTokens(c, tokens, tokenID)
	tid := tokens[0].ID
	if r := c.exec("", "token", "revoke", "--org", org, tid); r.code != 0 || strings.Contains(r.stderr, "already") {
		t.Fatalf("first token revoke: exit %d, stderr %q", r.code, r.stderr)
	}
	c.jsonOf(&tokens, "token", "list", "--org", org, "--json")
	tokens = withoutOwnTokens(c, tokens, tokenID)
	r = c.exec("", "token", "revoke", "--org", org, tid)
	if want := fmt.Sprintf("redirects: management token %s was already revoked on %s\n", tid, tokens[0].RevokedAt); r.code != 0 || r.stderr != want {
		t.Errorf("token revoke of a revoked token: exit %d, stderr %q; want 0 and %q", r.code, r.stderr, want)
	}
}

// TestUnknownPostgresDatabase names a database the server does not have.
func TestUnknownPostgresDatabase(t *testing.T) {
	admin := os.Getenv("REDIRECTS_TEST_POSTGRES")
	if admin == "" {
		testreport.Skip(t, testreport.Postgres, "REDIRECTS_TEST_POSTGRES is not set; run with REDIRECTS_TEST_POSTGRES='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable'")
	}
	testreport.Ran(t, testreport.Postgres)
	cfg, err := pgx.ParseConfig(admin)
	if err != nil {
		t.Fatalf("REDIRECTS_TEST_POSTGRES: %v", err)
	}
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("REDIRECTS_TEST_POSTGRES: %v", err)
	}
	u.Path = "/redirects_nosuchdb"
	c := &cli{t: t, db: u.String()}
	want := fmt.Sprintf("redirects: PostgreSQL database \"redirects_nosuchdb\" does not exist on %s:%d\n", cfg.Host, cfg.Port)
	c.fail(1, want, "org", "list")
	c.fail(1, want, "org", "create", "--name", "Acme", "--tier", "free")
}

// TestLookupMissSaysSo: a path no rule answers is said in one line on
// standard error, exit 0, nothing on standard output; with --json,
// standard output is null. A hit prints the rule as it always has.
func TestLookupMissSaysSo(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	c.ok("rule", "add", "--project", p, "--source", "/old", "--destination", "/new")
	c.ok("deploy", "--project", p)
	r := c.exec("", "lookup", "--project", p, "--path", "/nothing")
	if want := fmt.Sprintf("no rule answers \"/nothing\" in version 1 of project %s\n", p); r.code != 0 || r.stdout != "" || r.stderr != want {
		t.Errorf("lookup of a miss: exit %d, stdout %q, stderr %q; want 0, nothing and %q", r.code, r.stdout, r.stderr, want)
	}
	r = c.exec("", "lookup", "--project", p, "--path", "/nothing", "--json")
	if r.code != 0 || r.stdout != "null\n" || r.stderr != "" {
		t.Errorf("lookup --json of a miss: exit %d, stdout %q, stderr %q; want 0, null and nothing", r.code, r.stdout, r.stderr)
	}
	want := `{"destination":"/new","statusCode":301,"matchType":"exact"}` + "\n"
	for _, args := range [][]string{{"lookup", "--project", p, "--path", "/old"}, {"lookup", "--project", p, "--path", "/old", "--json"}} {
		if r := c.exec("", args...); r.code != 0 || r.stdout != want || r.stderr != "" {
			t.Errorf("redirects %s: exit %d, stdout %q, stderr %q; want 0, %q and nothing", strings.Join(args, " "), r.code, r.stdout, r.stderr, want)
		}
	}
}
