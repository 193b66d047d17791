package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// optionRule is the --json shape of a rule with its options.
type optionRule struct {
	ID                             int64
	Source, Destination, MatchType string
	StatusCode, Priority           int
	Revision                       int64
	PreservePath, PreserveQuery    bool
}

// String is what the tests compare: everything a rule says.
func (r optionRule) String() string {
	return fmt.Sprintf("%s %s %d %q pp=%t pq=%t prio=%d", r.MatchType, r.Source, r.StatusCode, r.Destination, r.PreservePath, r.PreserveQuery, r.Priority)
}

// rulesBySource returns the draft rules of project by source, from rule
// list --json.
func (c *cli) rulesBySource(project string) map[string]optionRule {
	c.t.Helper()
	var rules []optionRule
	c.jsonOf(&rules, "rule", "list", "--project", project, "--json")
	out := map[string]optionRule{}
	for _, r := range rules {
		out[r.Source] = r
	}
	return out
}

// wantRules fails unless the draft holds exactly want, each as
// optionRule.String says.
func (c *cli) wantRules(project string, want ...string) map[string]optionRule {
	c.t.Helper()
	got := c.rulesBySource(project)
	if len(got) != len(want) {
		c.t.Fatalf("the draft has %d rules, want %d:\n%v", len(got), len(want), got)
	}
	for _, w := range want {
		src := strings.Fields(w)[1]
		if g, ok := got[src]; !ok || g.String() != w {
			c.t.Fatalf("rule %s = %q, want %q", src, g, w)
		}
	}
	return got
}

// TestRuleOptionsAddListUpdate adds a rule of every status, with each
// option and a fragment; refuses the options that do not apply, naming the
// field; lists them in the table and in JSON (the old columns and fields as
// they were); and updates them: =false clears, a flag left out keeps.
func TestRuleOptionsAddListUpdate(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	add := func(args ...string) string {
		t.Helper()
		id := c.ok(append([]string{"rule", "add", "--project", p}, args...)...)
		mustMatch(t, "rule ID", `^[1-9][0-9]*$`, id)
		return id
	}
	add("--source", "/s301", "--destination", "/d301")
	s302 := add("--source", "/s302", "--destination", "/d302", "--status", "302")
	add("--source", "/s303", "--destination", "/d303?x=1", "--status", "303", "--preserve-query")
	add("--source", "/s307", "--destination", "https://ex.com", "--status", "307", "--match", "starts_with", "--preserve-path")
	docs := add("--source", "/docs/", "--destination", "https://docs.example.com/x?a=1#top", "--status", "308",
		"--match", "starts_with", "--preserve-path", "--preserve-query", "--priority", "5")
	gone := add("--source", "/gone", "--status", "410")
	add("--source", "/gone-tree", "--status", "410", "--match", "starts_with")

	all := []string{
		`exact /s301 301 "/d301" pp=false pq=false prio=100`,
		`exact /s302 302 "/d302" pp=false pq=false prio=100`,
		`exact /s303 303 "/d303?x=1" pp=false pq=true prio=100`,
		`starts_with /s307 307 "https://ex.com" pp=true pq=false prio=100`,
		`starts_with /docs/ 308 "https://docs.example.com/x?a=1#top" pp=true pq=true prio=5`,
		`exact /gone 410 "" pp=false pq=false prio=100`,
		`starts_with /gone-tree 410 "" pp=false pq=false prio=100`,
	}
	c.wantRules(p, all...)

	// Refused, each naming the field, and nothing stored.
	for _, tc := range []struct {
		code int
		want string
		args []string
	}{
		{1, "statusCode 304 is not one of 301, 302, 303, 307, 308, 410", []string{"--source", "/a", "--destination", "/b", "--status", "304"}},
		{1, `destination must be empty for statusCode 410 (Gone), got "/b"`, []string{"--source", "/a", "--destination", "/b", "--status", "410"}},
		{1, "preserveQuery does not apply to statusCode 410", []string{"--source", "/a", "--status", "410", "--preserve-query"}},
		{1, "preservePath does not apply to statusCode 410", []string{"--source", "/a", "--status", "410", "--match", "starts_with", "--preserve-path"}},
		{1, "preservePath applies to starts_with rules only", []string{"--source", "/a", "--destination", "/b", "--preserve-path"}},
		{1, "destination \"/b#c#d\" holds a second '#'", []string{"--source", "/a", "--destination", "/b#c#d"}},
		{2, "rule add needs --destination", []string{"--source", "/a", "--status", "308"}},
		{2, "invalid boolean value", []string{"--source", "/a", "--destination", "/b", "--preserve-query=maybe"}},
	} {
		c.fail(tc.code, tc.want, append([]string{"rule", "add", "--project", p}, tc.args...)...)
	}
	c.wantRules(p, all...)

	// The table: the old columns as they were, the options at the end, and
	// "-" for no destination and no option.
	table := strings.Split(c.ok("rule", "list", "--project", p), "\n")
	if fields := strings.Fields(table[0]); strings.Join(fields, " ") != "ID MATCH PRIORITY STATUS SOURCE DESTINATION OPTIONS" {
		t.Fatalf("rule list header = %q", table[0])
	}
	rows := map[string]string{}
	for _, line := range table[1:] {
		f := strings.Fields(line)
		if len(f) != 7 {
			t.Fatalf("rule list row %q has %d words, want 7", line, len(f))
		}
		rows[f[4]] = strings.Join(f[1:], " ")
	}
	for src, want := range map[string]string{
		"/docs/": "starts_with 5 308 /docs/ https://docs.example.com/x?a=1#top preservePath,preserveQuery",
		"/s303":  "exact 100 303 /s303 /d303?x=1 preserveQuery",
		"/s307":  "starts_with 100 307 /s307 https://ex.com preservePath",
		"/s301":  "exact 100 301 /s301 /d301 -",
		"/gone":  "exact 100 410 /gone - -",
	} {
		if rows[src] != want {
			t.Errorf("rule list row of %s = %q, want %q", src, rows[src], want)
		}
	}
	// The paged listing: --status takes every status, and the JSON has the
	// new keys beside the old ones.
	var page struct{ Rules []map[string]any }
	c.jsonOf(&page, "rule", "list", "--project", p, "--status", "410", "--json")
	if len(page.Rules) != 2 {
		t.Fatalf("rule list --status 410 = %v, want /gone and /gone-tree", page.Rules)
	}
	for _, key := range []string{"id", "source", "destination", "statusCode", "matchType", "priority", "revision", "createdAt", "preservePath", "preserveQuery"} {
		if _, ok := page.Rules[0][key]; !ok {
			t.Errorf("rule list --status 410 --json lacks %q: %v", key, page.Rules[0])
		}
	}
	paged := c.ok("rule", "list", "--project", p, "--status", "308", "--limit", "10")
	if lines := strings.Split(paged, "\n"); len(lines) != 2 ||
		strings.Join(strings.Fields(lines[0]), " ") != "ID MATCH PRIORITY STATUS REVISION SOURCE DESTINATION OPTIONS" ||
		!strings.HasSuffix(lines[1], "preservePath,preserveQuery") {
		t.Fatalf("rule list --status 308 --limit 10 =\n%s", paged)
	}

	// Updates: a flag left out keeps, =false clears.
	update := func(id string, args ...string) {
		t.Helper()
		c.ok(append([]string{"rule", "update", "--project", p, id}, args...)...)
	}
	update(docs, "--preserve-path=false")
	got := c.rulesBySource(p)
	if g := got["/docs/"].String(); g != `starts_with /docs/ 308 "https://docs.example.com/x?a=1#top" pp=false pq=true prio=5` {
		t.Fatalf("after --preserve-path=false: %s", g)
	}
	update(docs, "--preserve-path", "--preserve-query=false", "--destination", "/d#sec")
	if g := c.rulesBySource(p)["/docs/"].String(); g != `starts_with /docs/ 308 "/d#sec" pp=true pq=false prio=5` {
		t.Fatalf("after --preserve-path --preserve-query=false: %s", g)
	}
	update(docs, "--priority", "7")
	if g := c.rulesBySource(p)["/docs/"]; g.String() != `starts_with /docs/ 308 "/d#sec" pp=true pq=false prio=7` {
		t.Fatalf("--priority alone changed the options: %s", g)
	}
	// --status 410 empties the destination and turns the options off.
	update(s302, "--status", "410")
	if g := c.rulesBySource(p)["/s302"].String(); g != `exact /s302 410 "" pp=false pq=false prio=100` {
		t.Fatalf("after --status 410: %s", g)
	}
	// Back from 410 a destination is needed.
	c.fail(1, "destination", "rule", "update", "--project", p, gone, "--status", "301")
	update(gone, "--status", "307", "--destination", "/back", "--preserve-query")
	if g := c.rulesBySource(p)["/gone"].String(); g != `exact /gone 307 "/back" pp=false pq=true prio=100` {
		t.Fatalf("after 410 -> 307: %s", g)
	}
	before := c.ok("rule", "list", "--project", p, "--json")
	c.fail(1, "preservePath applies to starts_with rules only", "rule", "update", "--project", p, docs, "--match", "exact")
	c.fail(1, "preservePath applies to starts_with rules only", "rule", "update", "--project", p, gone, "--preserve-path")
	c.fail(1, "preserveQuery does not apply to statusCode 410", "rule", "update", "--project", p, s302, "--preserve-query")
	c.fail(1, "destination must be empty for statusCode 410", "rule", "update", "--project", p, docs, "--status", "410", "--destination", "/x")
	c.fail(2, "--preserve-path, --preserve-query", "rule", "update", "--project", p, docs)
	if after := c.ok("rule", "list", "--project", p, "--json"); after != before {
		t.Fatalf("refused updates changed the draft:\nbefore %s\nafter %s", before, after)
	}
}

// TestRuleQueryAfterFragmentCLI: rule add and rule update take
// --query-after-fragment, the list shows it in its options cell and its
// JSON, and a rule it does not apply to is refused naming the field.
func TestRuleQueryAfterFragmentCLI(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	id := c.ok("rule", "add", "--project", p, "--source", "/design.html", "--destination", "/documentation#design",
		"--preserve-query", "--query-after-fragment")
	mustMatch(t, "rule ID", `^[1-9][0-9]*$`, id)
	row := func() string {
		t.Helper()
		for _, line := range strings.Split(c.ok("rule", "list", "--project", p), "\n")[1:] {
			if f := strings.Fields(line); len(f) == 7 && f[4] == "/design.html" {
				return f[6]
			}
		}
		t.Fatalf("rule list lacks /design.html")
		return ""
	}
	if got := row(); got != "preserveQuery,queryAfterFragment" {
		t.Fatalf("options cell = %q, want preserveQuery,queryAfterFragment", got)
	}
	var rules []map[string]any
	c.jsonOf(&rules, "rule", "list", "--project", p, "--json")
	for _, r := range rules {
		if r["source"] == "/design.html" && r["queryAfterFragment"] != true {
			t.Fatalf("rule list --json = %v, want queryAfterFragment true", r)
		}
	}
	c.fail(1, "queryAfterFragment applies with preserveQuery only", "rule", "add", "--project", p, "--source", "/a", "--destination", "/b#f", "--query-after-fragment")
	c.fail(1, "queryAfterFragment applies to a destination with a fragment only", "rule", "add", "--project", p, "--source", "/a", "--destination", "/b", "--preserve-query", "--query-after-fragment")
	c.fail(1, "queryAfterFragment applies with preserveQuery only", "rule", "update", "--project", p, id, "--preserve-query=false")
	c.ok("rule", "update", "--project", p, id, "--query-after-fragment=false")
	if got := row(); got != "preserveQuery" {
		t.Fatalf("after --query-after-fragment=false the options cell = %q", got)
	}
	c.ok("rule", "update", "--project", p, id, "--query-after-fragment")
	if got := row(); got != "preserveQuery,queryAfterFragment" {
		t.Fatalf("after --query-after-fragment the options cell = %q", got)
	}
}

// TestRuleMergeQueryCLI: rule add and rule update take --merge-query, the
// list shows it in its options cell and its JSON, and a rule it does not
// apply to is refused naming the field.
func TestRuleMergeQueryCLI(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	id := c.ok("rule", "add", "--project", p, "--source", "/vscode", "--destination", "https://m.example/items?itemName=p.e",
		"--status", "308", "--preserve-query", "--merge-query")
	mustMatch(t, "rule ID", `^[1-9][0-9]*$`, id)
	row := func() string {
		t.Helper()
		for _, line := range strings.Split(c.ok("rule", "list", "--project", p), "\n")[1:] {
			if f := strings.Fields(line); len(f) == 7 && f[4] == "/vscode" {
				return f[6]
			}
		}
		t.Fatalf("rule list lacks /vscode")
		return ""
	}
	if got := row(); got != "preserveQuery,mergeQuery" {
		t.Fatalf("options cell = %q, want preserveQuery,mergeQuery", got)
	}
	var rules []map[string]any
	c.jsonOf(&rules, "rule", "list", "--project", p, "--json")
	for _, r := range rules {
		if r["source"] == "/vscode" && r["mergeQuery"] != true {
			t.Fatalf("rule list --json = %v, want mergeQuery true", r)
		}
	}
	c.fail(1, "mergeQuery applies with preserveQuery only", "rule", "add", "--project", p, "--source", "/a", "--destination", "/b?x=1", "--merge-query")
	c.fail(1, "mergeQuery applies to a destination with a query parameter only", "rule", "add", "--project", p, "--source", "/a", "--destination", "/b", "--preserve-query", "--merge-query")
	c.fail(1, "mergeQuery and queryAfterFragment do not go together", "rule", "add", "--project", p, "--source", "/a", "--destination", "/b?x=1#f", "--preserve-query", "--merge-query", "--query-after-fragment")
	c.fail(1, "mergeQuery applies with preserveQuery only", "rule", "update", "--project", p, id, "--preserve-query=false")
	c.fail(1, "mergeQuery applies to a destination with a query parameter only", "rule", "update", "--project", p, id, "--destination", "https://m.example/items")
	c.ok("rule", "update", "--project", p, id, "--merge-query=false")
	if got := row(); got != "preserveQuery" {
		t.Fatalf("after --merge-query=false the options cell = %q", got)
	}
	c.ok("rule", "update", "--project", p, id, "--merge-query")
	if got := row(); got != "preserveQuery,mergeQuery" {
		t.Fatalf("after --merge-query the options cell = %q", got)
	}
}

// TestRuleOptionsImport imports a file with the option columns in another
// order, every status and a 410 without a destination; today's
// four-column file as it always was; reports a bad file's lines naming the
// field, importing nothing; and upserts a change of an option alone.
func TestRuleOptionsImport(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	write := func(body string) string {
		t.Helper()
		f := filepath.Join(t.TempDir(), "rules.csv")
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	file := write("preserveQuery,source,destination,statusCode,matchType,Preserve Path,priority\n" +
		"true,/docs/,https://docs.example.com/#top,308,starts_with,TRUE,5\n" +
		",/old,/new,301,exact,,\n" +
		"false,/t,/u,302,exact,false,\n" +
		"TRUE,/see,/other?a=1,303,exact,,\n" +
		",/tmp,/temp,307,starts_with,,\n" +
		",/gone,,410,exact,,\n")
	if n := c.ok("rule", "import", "--project", p, file); n != "6" {
		t.Fatalf("rule import printed %q, want 6", n)
	}
	if r := c.exec("source,destination,statusCode,matchType\n/four,/cols,301,exact\n", "rule", "import", "--project", p, "-"); r.code != 0 || strings.TrimSpace(r.stdout) != "1" {
		t.Fatalf("four-column import: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	want := []string{
		`starts_with /docs/ 308 "https://docs.example.com/#top" pp=true pq=true prio=5`,
		`exact /old 301 "/new" pp=false pq=false prio=100`,
		`exact /t 302 "/u" pp=false pq=false prio=100`,
		`exact /see 303 "/other?a=1" pp=false pq=true prio=100`,
		`starts_with /tmp 307 "/temp" pp=false pq=false prio=100`,
		`exact /gone 410 "" pp=false pq=false prio=100`,
		`exact /four 301 "/cols" pp=false pq=false prio=100`,
	}
	c.wantRules(p, want...)

	before := c.ok("rule", "list", "--project", p, "--json")
	bad := write("source,destination,statusCode,matchType,preservePath,preserveQuery\n" +
		"/fine,/ok,308,exact,,\n" +
		"/a,/b,304,exact,,\n" +
		"/c,/d,301,exact,true,\n" +
		"/e,/f,410,exact,,\n" +
		"/g,,410,starts_with,true,\n" +
		"/h,/i,301,exact,,yes\n" +
		"/j,,301,exact,,\n")
	r := c.exec("", "rule", "import", "--project", p, bad)
	if r.code != 1 || r.stdout != "" {
		t.Fatalf("import of a bad file: exit %d, stdout %q", r.code, r.stdout)
	}
	for _, w := range []string{
		"nothing imported",
		"line 3: statusCode 304 is not one of 301, 302, 303, 307, 308, 410",
		"line 4: preservePath applies to starts_with rules only",
		"line 5: destination must be empty for statusCode 410",
		"line 6: preservePath does not apply to statusCode 410",
		`line 7: preserveQuery "yes" is not true or false`,
		"line 8: destination",
	} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("the import's errors do not say %q:\n%s", w, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "line 2:") {
		t.Errorf("the import's errors blame the good line 2:\n%s", r.stderr)
	}
	if after := c.ok("rule", "list", "--project", p, "--json"); after != before {
		t.Fatalf("a failed import changed the draft")
	}

	// An upsert that changes an option alone updates the rule.
	var rep struct{ Added, Updated, Unchanged int }
	c.jsonOf(&rep, "rule", "import", "--project", p, "--mode", "upsert", "--json",
		write("source,destination,statusCode,matchType,priority,preservePath,preserveQuery\n"+
			"/docs/,https://docs.example.com/#top,308,starts_with,5,true,false\n"+
			"/old,/new,301,exact,,,\n"))
	if rep.Added != 0 || rep.Updated != 1 || rep.Unchanged != 1 {
		t.Fatalf("upsert of a changed preserveQuery: %+v, want 1 updated and 1 unchanged", rep)
	}
	want[0] = `starts_with /docs/ 308 "https://docs.example.com/#top" pp=true pq=false prio=5`
	c.wantRules(p, want...)
}

// projectSettings returns the caseSensitive and trailingSlash of project p
// from project list --json.
func (c *cli) projectSettings(p string) string {
	c.t.Helper()
	var projects []map[string]any
	c.jsonOf(&projects, "project", "list", "--json")
	for _, pr := range projects {
		if pr["id"] == p {
			return fmt.Sprintf("caseSensitive=%v trailingSlash=%v", pr["caseSensitive"], pr["trailingSlash"])
		}
	}
	c.t.Fatalf("project list --json lacks %s", p)
	return ""
}

// TestProjectSettingsCLI sets a project's case and trailing-slash settings
// through project update; project list shows them; a change under which
// draft rules would clash is refused by the real binary, exit 1, with every
// pair listed and nothing changed; rules that clash under the settings are
// refused on add and on import.
func TestProjectSettingsCLI(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	if got := c.projectSettings(p); got != "caseSensitive=true trailingSlash=exact" {
		t.Fatalf("a new project's settings: %s", got)
	}
	table := c.ok("project", "list")
	if header := strings.Fields(strings.Split(table, "\n")[0]); strings.Join(header, " ") != "ID ORG NAME CREATED CASE_SENSITIVE TRAILING_SLASH" ||
		!strings.HasSuffix(strings.Split(table, "\n")[1], "true            exact") {
		t.Fatalf("project list =\n%s", table)
	}

	c.ok("rule", "add", "--project", p, "--source", "/Docs", "--destination", "/a")
	c.ok("rule", "add", "--project", p, "--source", "/docs", "--destination", "/b")
	c.ok("rule", "add", "--project", p, "--source", "/x/", "--destination", "/c")
	c.ok("rule", "add", "--project", p, "--source", "/x", "--destination", "/d")
	c.ok("rule", "add", "--project", p, "--source", "/DOCS", "--destination", "/e", "--match", "starts_with")

	// Refused by the binary: both pairs listed, the name not changed either.
	r := c.execProcess("", "project", "update", "--project", p, "--case-sensitive=false", "--trailing-slash", "ignore", "--name", "renamed")
	if r.code != 1 || r.stdout != "" {
		t.Fatalf("a clashing settings change: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	for _, w := range []string{"caseSensitive=false trailingSlash=ignore", "2 pairs", "nothing changed",
		`exact rule 1 "/Docs" and rule 2 "/docs"`, `exact rule 4 "/x" and rule 3 "/x/"`} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("the refusal does not say %q:\n%s", w, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "/DOCS") {
		t.Errorf("the refusal lists the starts_with rule, which clashes with no rule of its match type:\n%s", r.stderr)
	}
	if got := c.projectSettings(p); got != "caseSensitive=true trailingSlash=exact" || !strings.Contains(c.ok("project", "list"), " www ") {
		t.Fatalf("a refused change changed the project: %s\n%s", got, c.ok("project", "list"))
	}
	c.fail(1, `trailingSlash "maybe" is not one of exact, ignore`, "project", "update", "--project", p, "--trailing-slash", "maybe")
	c.fail(2, "--case-sensitive, --trailing-slash", "project", "update", "--project", p)

	// Without the clashing rules the change goes through.
	ids := c.rulesBySource(p)
	c.ok("rule", "delete", "--project", p, fmt.Sprint(ids["/docs"].ID))
	c.fail(1, `exact rule 4 "/x" and rule 3 "/x/"`, "project", "update", "--project", p, "--case-sensitive=false", "--trailing-slash", "ignore")
	r = c.exec("", "project", "update", "--project", p, "--case-sensitive=false")
	if r.code != 0 || !strings.Contains(r.stdout, "caseSensitive=false trailingSlash=exact") || r.stderr != "" {
		t.Fatalf("project update --case-sensitive=false: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if got := c.projectSettings(p); got != "caseSensitive=false trailingSlash=exact" {
		t.Fatalf("after --case-sensitive=false: %s", got)
	}
	if !strings.Contains(c.ok("project", "list"), "false           exact") {
		t.Fatalf("project list does not show the setting:\n%s", c.ok("project", "list"))
	}

	// Under the settings a clash is refused on add, naming both rules...
	r = c.exec("", "rule", "add", "--project", p, "--source", "/DOCS", "--destination", "/f")
	if r.code != 1 || !strings.Contains(r.stderr, "/Docs") || !strings.Contains(r.stderr, "/DOCS") {
		t.Fatalf("adding /DOCS beside /Docs under caseSensitive=false: exit %d, stderr %q", r.code, r.stderr)
	}
	// ...and on import, naming both lines.
	r = c.exec("source,destination,statusCode,matchType\n/New,/a,301,exact\n/NEW,/b,301,exact\n", "rule", "import", "--project", p, "-")
	if r.code != 1 || !strings.Contains(r.stderr, `line 3: source "/NEW" clashes with the exact rule for source "/New" on line 2`) {
		t.Fatalf("importing /New and /NEW under caseSensitive=false: exit %d, stderr %q", r.code, r.stderr)
	}

	// Back to the defaults: nothing can clash.
	c.ok("project", "update", "--project", p, "--case-sensitive", "--trailing-slash", "exact")
	if got := c.projectSettings(p); got != "caseSensitive=true trailingSlash=exact" {
		t.Fatalf("back to the defaults: %s", got)
	}
	var raw []json.RawMessage
	c.jsonOf(&raw, "project", "list", "--json")
	if !strings.Contains(string(raw[0]), `"keepExports"`) || !strings.Contains(string(raw[0]), `"hosts"`) {
		t.Fatalf("project list --json lost its old keys: %s", raw[0])
	}
}

// TestSettingsChangeInDiffExplainLookup: a settings change of the draft
// shows in diff (with the paths it changes), explain answers with the
// draft's settings and the computed destination, and lookup answers each
// version with its own settings.
func TestSettingsChangeInDiffExplainLookup(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	c.ok("rule", "add", "--project", p, "--source", "/Docs", "--destination", "/d", "--match", "starts_with", "--preserve-path", "--preserve-query")
	c.ok("deploy", "--project", p)
	c.ok("project", "update", "--project", p, "--case-sensitive=false")
	diff := c.ok("diff", "--project", p)
	if !strings.Contains(diff, "~ settings: caseSensitive=true trailingSlash=exact -> caseSensitive=false trailingSlash=exact") {
		t.Fatalf("diff does not show the settings change:\n%s", diff)
	}
	if !strings.Contains(diff, "path /dOCS: no redirect -> 301 /d") {
		t.Fatalf("diff lists no path the settings change answers otherwise:\n%s", diff)
	}
	explain := c.ok("explain", "--project", p, "--path", "/DOCS/a?x=1")
	if !strings.Contains(explain, "/DOCS/a?x=1: 301 /d/a?x=1") || !strings.Contains(explain, "compared with caseSensitive=false") {
		t.Fatalf("explain of the draft:\n%s", explain)
	}
	if got := c.ok("lookup", "--project", p, "--path", "/DOCS/a"); got != "" {
		t.Fatalf("version 1 (case-sensitive) answers /DOCS/a: %s", got)
	}
	c.ok("deploy", "--project", p)
	if got, want := c.ok("lookup", "--project", p, "--path", "/DOCS/a?x=1"), `{"destination":"/d/a?x=1","statusCode":301,"matchType":"starts_with"}`; got != want {
		t.Fatalf("version 2 answers %s, want %s", got, want)
	}
	if got := c.ok("lookup", "--project", p, "--path", "/DOCS/a", "--version", "1"); got != "" {
		t.Fatalf("version 1 answers /DOCS/a after version 2: %s", got)
	}
}

// TestRuleExceptHostsCLI: rule add and rule update take --except-hosts,
// the list shows them in its options cell and its JSON, --except-hosts=
// clears them, and a rule with a host is refused naming the field.
func TestRuleExceptHostsCLI(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	id := c.ok("rule", "add", "--project", p, "--source", "/", "--match", "starts_with", "--destination", "https://example.com/",
		"--except-hosts", "Example.COM, *.example.com")
	mustMatch(t, "rule ID", `^[1-9][0-9]*$`, id)
	row := func() string {
		t.Helper()
		for _, line := range strings.Split(c.ok("rule", "list", "--project", p), "\n")[1:] {
			if f := strings.Fields(line); len(f) == 7 && f[4] == "/" {
				return f[6]
			}
		}
		t.Fatalf("rule list lacks /")
		return ""
	}
	if got := row(); got != "exceptHosts=example.com|*.example.com" {
		t.Fatalf("options cell = %q, want exceptHosts=example.com|*.example.com", got)
	}
	var rules []map[string]any
	c.jsonOf(&rules, "rule", "list", "--project", p, "--json")
	if len(rules) != 1 || fmt.Sprint(rules[0]["exceptHosts"]) != "[example.com *.example.com]" {
		t.Fatalf("rule list --json = %v, want exceptHosts [example.com *.example.com]", rules)
	}
	c.fail(1, "exceptHosts applies to a rule without a host only", "rule", "add", "--project", p, "--source", "/a", "--destination", "/b",
		"--host", "example.org", "--except-hosts", "example.com")
	c.fail(1, "exceptHosts applies to a rule without a host only", "rule", "update", "--project", p, id, "--host", "example.org")
	c.fail(1, "exceptHosts[1]", "rule", "update", "--project", p, id, "--except-hosts", "a.example,a.example.")
	c.ok("rule", "update", "--project", p, id, "--except-hosts", "other.example")
	if got := row(); got != "exceptHosts=other.example" {
		t.Fatalf("after --except-hosts other.example the options cell = %q", got)
	}
	c.ok("rule", "update", "--project", p, id, "--except-hosts=")
	if got := row(); got != "-" {
		t.Fatalf("after --except-hosts= the options cell = %q", got)
	}
}
