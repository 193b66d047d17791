package manage

import (
	"fmt"
	"strings"
	"testing"

	"redirects"
	"redirects/api"
	"redirects/engine"
	"redirects/internal/rulegen"
)

// importJSON is the answer of POST .../imports.
type importJSON = api.ImportReport

// draft returns the project's draft as "matchType source -> destination
// status priority" lines, in the store's order.
func (e *env) draft(projectID string) string {
	e.t.Helper()
	rules, err := e.store.FindRules(e.ctx, projectID)
	if err != nil {
		e.t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range rules {
		fmt.Fprintf(&b, "%s %s -> %s %d %d\n", r.MatchType, r.Source, r.Destination, r.StatusCode, r.Priority)
	}
	return b.String()
}

// TestImportModes imports through the API in each mode, with and without
// a dry run, and checks the reports and the draft.
func TestImportModes(t *testing.T) { runSuite(t, testImportModes) }

func testImportModes(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("Imp")
	c := a.tokens[redirects.RoleEditor]
	base := "/manage/v1/projects/" + a.project.ID + "/imports"
	// The project starts with /old -> /new.
	file := csvBody("source,destination,statusCode,matchType,priority\n/old,/newer,302,exact,\n/a,/to/a,301,starts_with,5\n")
	var rep importJSON

	c.do("POST", base+"?mode=upsert&dry_run=true", file).want(t, 200).decode(t, &rep)
	if rep.Mode != "upsert" || !rep.DryRun || rep.Added != 1 || rep.Updated != 1 || rep.Removed != 0 || rep.ErrorCount != 0 || rep.Errors == nil {
		t.Fatalf("upsert dry run = %+v", rep)
	}
	if got := e.draft(a.project.ID); got != "exact /old -> /new 301 100\n" {
		t.Fatalf("a dry run changed the draft: %q", got)
	}
	c.do("POST", base+"?mode=replace&dry_run=1", csvBody("source,destination,statusCode,matchType\n/b,/x,301,exact\n")).want(t, 200).decode(t, &rep)
	if rep.Mode != "replace" || rep.Added != 1 || rep.Removed != 1 {
		t.Fatalf("replace dry run = %+v", rep)
	}

	// Append refuses a rule the draft has, naming its line: 409.
	c.do("POST", base+"?mode=append", file).want(t, 409, "CONFLICT").decode(t, &rep)
	if rep.ErrorCount != 1 || len(rep.Errors) != 1 || rep.Errors[0].Line != 2 || !strings.Contains(rep.Errors[0].Message, `source "/old" already exists`) {
		t.Fatalf("append of a clash = %+v", rep)
	}
	if !strings.Contains(rep.Errors[0].Message, "mode upsert") || strings.Contains(rep.Error, "bad line") {
		t.Fatalf("append of a clash does not name the upsert mode, or speaks of a bad line: %+v", rep)
	}
	// The default mode is append.
	c.do("POST", base, file).want(t, 409, "CONFLICT")

	rep = importJSON{}
	c.do("POST", base+"?mode=upsert&dry_run=false", file).want(t, 200).decode(t, &rep)
	if rep.DryRun || rep.Added != 1 || rep.Updated != 1 || rep.Unchanged != 0 {
		t.Fatalf("upsert = %+v", rep)
	}
	if got := e.draft(a.project.ID); got != "exact /old -> /newer 302 100\nstarts_with /a -> /to/a 301 5\n" {
		t.Fatalf("draft after upsert: %q", got)
	}
	c.do("POST", base+"?mode=append", csvBody("source,destination,statusCode,matchType\n/c,/x,301,exact\n")).want(t, 200).decode(t, &rep)
	if rep.Mode != "append" || rep.Added != 1 {
		t.Fatalf("append = %+v", rep)
	}
	// Append of a file the draft already holds as it is: every rule
	// unchanged, no error.
	rep = importJSON{}
	c.do("POST", base+"?mode=append", file).want(t, 200).decode(t, &rep)
	if rep.Mode != "append" || rep.Added != 0 || rep.Unchanged != 2 || rep.ErrorCount != 0 {
		t.Fatalf("append of the upserted file = %+v", rep)
	}
	// Two lines that the draft holds otherwise: the summary counts them
	// as clashes, not bad lines.
	rep = importJSON{}
	c.do("POST", base+"?mode=append", csvBody("source,destination,statusCode,matchType\n/old,/x,301,exact\n/c,/y,301,exact\n")).want(t, 409, "CONFLICT").decode(t, &rep)
	if rep.ErrorCount != 2 || strings.Contains(rep.Error, "bad line") || !strings.Contains(rep.Error, "mode upsert") {
		t.Fatalf("append of two clashes = %+v", rep)
	}
	c.do("POST", base+"?mode=REPLACE", csvBody("source,destination,statusCode,matchType\n/old,/newer,302,exact\n/d,/x,301,exact\n")).want(t, 200).decode(t, &rep)
	if rep.Added != 1 || rep.Unchanged != 1 || rep.Removed != 2 {
		t.Fatalf("replace = %+v", rep)
	}
	if got := e.draft(a.project.ID); got != "exact /d -> /x 301 100\nexact /old -> /newer 302 100\n" {
		t.Fatalf("draft after replace: %q", got)
	}
}

// TestImportBadInput checks that bad lines, modes, types and sizes are
// refused with a clear answer and change nothing.
func TestImportBadInput(t *testing.T) { runSuite(t, testImportBadInput) }

func testImportBadInput(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, func(c *Config) { c.MaxImportBytes = 64 << 10 })
	a := e.newOrg("Bad")
	c := a.tokens[redirects.RoleEditor]
	base := "/manage/v1/projects/" + a.project.ID + "/imports"
	before := e.draft(a.project.ID)

	// 150 bad lines among good ones: every one counted, 100 listed.
	var b strings.Builder
	b.WriteString("source,destination,statusCode,matchType\n")
	for i := range 300 {
		if i%2 == 1 {
			fmt.Fprintf(&b, "/bad%d,/x,304,exact\n", i)
		} else {
			fmt.Fprintf(&b, "/good%d,/x,301,exact\n", i)
		}
	}
	for _, dry := range []string{"true", "false"} {
		var rep importJSON
		c.do("POST", base+"?mode=upsert&dry_run="+dry, csvBody(b.String())).want(t, 422, "INVALID_IMPORT").decode(t, &rep)
		if rep.ErrorCount != 150 || len(rep.Errors) != 100 || rep.Errors[0].Line != 3 || rep.Errors[99].Line != 201 ||
			rep.Errors[0].Message != "statusCode 304 is not one of 301, 302, 303, 307, 308, 410" || rep.Added != 0 || rep.Error != "150 bad lines; nothing imported" {
			t.Fatalf("dry run %s: report of bad lines = %+v", dry, rep)
		}
	}
	// A rule the store refuses is reported on its line too.
	var rep importJSON
	c.do("POST", base+"?mode=upsert", csvBody("source,destination,statusCode,matchType\n\n/ok,/x,301,exact\n/ok,/y,301,exact\n")).want(t, 422, "INVALID_IMPORT").decode(t, &rep)
	if rep.ErrorCount != 1 || rep.Errors[0].Line != 4 || !strings.Contains(rep.Error, "line 4: ") {
		t.Fatalf("repeated rule = %+v", rep)
	}
	c.do("POST", base+"?mode=upsert", csvBody("")).want(t, 422, "INVALID_IMPORT").decode(t, &rep)
	if rep.Errors[0].Line != 1 || !strings.Contains(rep.Errors[0].Message, "the file is empty") {
		t.Fatalf("empty file = %+v", rep)
	}
	c.do("POST", base+"?mode=upsert", csvBody("from,to\n/a,/b\n")).want(t, 422, "INVALID_IMPORT").decode(t, &rep)
	if rep.Errors[0].Line != 1 || !strings.Contains(rep.Errors[0].Message, `column "from"`) {
		t.Fatalf("bad header = %+v", rep)
	}

	good := csvBody("source,destination,statusCode,matchType\n/fine,/x,301,exact\n")
	c.do("POST", base+"?mode=merge", good).want(t, 400, codeInvalidMode)
	c.do("POST", base+"?mode=upsert&mode=append", good).want(t, 400, codeInvalidQuery)
	c.do("POST", base+"?dry_run=maybe", good).want(t, 400, codeInvalidQuery)
	c.do("POST", base, string(good)).want(t, 415, codeUnsupportedMedia)
	c.do("POST", base, "source,destination,statusCode,matchType\n", "Content-Type", "text/plain").want(t, 415, codeUnsupportedMedia)
	big := "source,destination,statusCode,matchType\n" + strings.Repeat("/a-rather-long-source-path-for-size,/x,301,exact\n", 2000)
	c.do("POST", base, csvBody(big)).want(t, 413, codeBodyTooLarge)
	a.tokens[redirects.RoleViewer].do("POST", base, good).want(t, 403, "FORBIDDEN")

	// A full URL source is refused unless its host is the project's.
	c.do("POST", base, csvBody("source,destination,statusCode,matchType\nhttps://www.example.com/old,/x,301,exact\n")).want(t, 422, "INVALID_IMPORT").decode(t, &rep)
	if !strings.Contains(rep.Errors[0].Message, "host www.example.com") || !strings.Contains(rep.Errors[0].Message, "declares no hosts") {
		t.Fatalf("URL source without hosts = %+v", rep)
	}

	if got := e.draft(a.project.ID); got != before {
		t.Fatalf("refused imports changed the draft:\n%s\nwant\n%s", got, before)
	}
}

// TestImportQuirks imports files as spreadsheets write them.
func TestImportQuirks(t *testing.T) { runSuite(t, testImportQuirks) }

func testImportQuirks(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("Quirks")
	c := a.tokens[redirects.RoleEditor]
	base := "/manage/v1/projects/" + a.project.ID + "/imports?mode=replace"
	want := "exact /a -> /to/a 301 100\nexact /b -> https://x.example/b?q=1 302 100\nstarts_with /c -> /to/c 301 7\n"
	for name, file := range map[string]string{
		"excel semicolons": "\uFEFFSource;Destination;Status Code;Match Type;Priority\r\n/a;/to/a;301;Exact;\r\n/b;https://x.example/b?q=1;302;EXACT;\r\n/c;/to/c;301;Starts With;7\r\n;;;;\r\n",
		"tabs":             "source\tdestination\tstatus_code\tmatch_type\tpriority\tid\n /a \t /to/a \t 301 \t exact \t \t 1\n/b\thttps://x.example/b?q=1\t302\texact\t100\t2\n/c\t/to/c\t301\tstarts_with\t7\t3\n",
		"commas":           "matchType,source,destination,statusCode,Priority\nexact,/a,/to/a,301,\nexact,/b,https://x.example/b?q=1,302,\nprefix,/c,/to/c,301,7\n",
	} {
		var rep importJSON
		c.do("POST", base, csvBody(file), "Content-Type", "application/octet-stream").want(t, 200).decode(t, &rep)
		if rep.Added+rep.Updated+rep.Unchanged != 3 {
			t.Errorf("%s: report %+v", name, rep)
		}
		if got := e.draft(a.project.ID); got != want {
			t.Errorf("%s: draft %q, want %q", name, got, want)
		}
	}
}

// TestImportAudited checks the audit entry of an import by a token and by
// a session user, and that a dry run records none.
func TestImportAudited(t *testing.T) { runSuite(t, testImportAudited) }

func testImportAudited(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("Aud")
	base := "/manage/v1/projects/" + a.project.ID + "/imports"
	file := csvBody("source,destination,statusCode,matchType\n/x,/y,301,exact\n")
	entries := func() []*redirects.AuditEntry {
		es, err := e.store.FindAudit(e.ctx, redirects.AuditFilter{ProjectID: a.project.ID, Action: redirects.AuditRuleImport})
		if err != nil {
			t.Fatal(err)
		}
		return es
	}
	a.tokens[redirects.RoleEditor].do("POST", base+"?mode=upsert&dry_run=true", file).want(t, 200)
	if n := len(entries()); n != 0 {
		t.Fatalf("a dry run recorded %d entries", n)
	}
	a.tokens[redirects.RoleEditor].do("POST", base+"?mode=upsert", file).want(t, 200)
	a.sessions[redirects.RoleOwner].do("POST", base+"?mode=replace", file).want(t, 200)
	es := entries()
	if len(es) != 2 {
		t.Fatalf("import entries = %d, want 2", len(es))
	}
	user, tok := es[0], es[1]
	if tok.Actor.Kind != redirects.ActorToken || tok.Actor.Label != "Aud editor token" || tok.Actor.ID != a.tokenIDs[redirects.RoleEditor] || tok.Actor.RemoteAddr == "" {
		t.Errorf("token's import: actor %+v", tok.Actor)
	}
	if user.Actor.Kind != redirects.ActorUser || user.Actor.Label != a.users[redirects.RoleOwner].Email {
		t.Errorf("session's import: actor %+v", user.Actor)
	}
	if !strings.Contains(string(tok.After), `"mode":"upsert"`) || !strings.Contains(string(user.After), `"removed":1`) {
		t.Errorf("entries record %s and %s", tok.After, user.After)
	}
}

// TestDraftCSVRoundTrip exports a draft of 10,000 generated rules as
// rules.csv and imports it with replace into another project: both drafts
// give the same answer for every source and for a path beneath every
// prefix.
func TestDraftCSVRoundTrip(t *testing.T) { runSuite(t, testDraftCSVRoundTrip) }

func testDraftCSVRoundTrip(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("Trip")
	c := a.tokens[redirects.RoleEditor]
	rules := rulegen.Rules(10_000, 0.4, 7)
	rules[0].Destination = "/with,comma"
	if _, err := e.store.ImportRules(e.ctx, a.project.ID, rules, true); err != nil {
		t.Fatal(err)
	}
	csvFile := c.do("GET", "/manage/v1/projects/"+a.project.ID+"/rules.csv", nil).want(t, 200).body

	other := &redirects.Project{OrgID: a.org.ID, Name: "copy"}
	if err := e.store.CreateProject(e.ctx, other); err != nil {
		t.Fatal(err)
	}
	e.store.AddRule(e.ctx, &redirects.Rule{ProjectID: other.ID, Source: "/stale", Destination: "/x", StatusCode: 301, MatchType: redirects.Exact, Priority: 100})
	var rep importJSON
	c.do("POST", "/manage/v1/projects/"+other.ID+"/imports?mode=replace", csvBody(csvFile)).want(t, 200).decode(t, &rep)
	if rep.Added != len(rules) || rep.Removed != 1 {
		t.Fatalf("replace = %+v", rep)
	}
	from, err := e.store.FindRules(e.ctx, a.project.ID)
	if err != nil {
		t.Fatal(err)
	}
	to, err := e.store.FindRules(e.ctx, other.ID)
	if err != nil {
		t.Fatal(err)
	}
	want, got := engine.Compile(from), engine.Compile(to)
	for _, r := range rules {
		paths := []string{r.Source}
		if r.MatchType == redirects.StartsWith {
			paths = append(paths, strings.TrimSuffix(r.Source, "/")+"/beneath/x")
		}
		for _, p := range paths {
			w, wok := want.Lookup(p)
			g, gok := got.Lookup(p)
			if wok != gok || string(w.JSON()) != string(g.JSON()) {
				t.Fatalf("lookup %q: %v %s after the round trip, %v %s before", p, gok, g.JSON(), wok, w.JSON())
			}
		}
	}
	// Exported again, the copy's file differs only in its IDs.
	again := c.do("GET", "/manage/v1/projects/"+other.ID+"/rules.csv", nil).want(t, 200).body
	if stripIDs(string(again)) != stripIDs(string(csvFile)) {
		t.Fatalf("the copy exports another draft")
	}
}

// stripIDs drops the last column of each line.
func stripIDs(s string) string {
	lines := strings.Split(s, "\r\n")
	for i, l := range lines {
		if j := strings.LastIndexByte(l, ','); j >= 0 {
			lines[i] = l[:j]
		}
	}
	return strings.Join(lines, "\n")
}

// TestProjectHostsAndURLSources declares a project's hosts through PATCH
// and imports full-URL sources on them.
func TestProjectHostsAndURLSources(t *testing.T) { runSuite(t, testProjectHostsAndURLSources) }

func testProjectHostsAndURLSources(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("Hosts")
	owner := a.sessions[redirects.RoleOwner]
	pbase := "/manage/v1/projects/" + a.project.ID
	var p struct {
		Name  string   `json:"name"`
		Hosts []string `json:"hosts"`
	}
	owner.do("GET", pbase, nil).want(t, 200).decode(t, &p)
	if p.Hosts == nil || len(p.Hosts) != 0 {
		t.Fatalf("hosts of a new project = %#v, want []", p.Hosts)
	}
	owner.do("PATCH", pbase, map[string]any{"hosts": []string{"WWW.Example.com", "example.com"}}).want(t, 200).decode(t, &p)
	if strings.Join(p.Hosts, " ") != "www.example.com example.com" || p.Name != "Hosts-site" {
		t.Fatalf("PATCH hosts = %+v", p)
	}
	owner.do("PATCH", pbase, map[string]any{"name": "renamed", "hosts": []string{"https://bad"}}).want(t, 400, "INVALID_INPUT")
	owner.do("PATCH", pbase, map[string]any{}).want(t, 400, codeMissingField)
	a.tokens[redirects.RoleEditor].do("PATCH", pbase, map[string]any{"hosts": []string{}}).want(t, 403, "FORBIDDEN")
	owner.do("GET", pbase, nil).want(t, 200).decode(t, &p)
	if p.Name != "Hosts-site" || len(p.Hosts) != 2 {
		t.Fatalf("a refused PATCH changed the project: %+v", p)
	}

	var rep importJSON
	file := "source,destination,statusCode,matchType\nhttps://www.example.com/from-url,/x,301,exact\nhttp://EXAMPLE.com/shop/,/y,301,starts_with\n"
	a.tokens[redirects.RoleEditor].do("POST", pbase+"/imports?mode=upsert", csvBody(file)).want(t, 200).decode(t, &rep)
	if rep.Added != 2 {
		t.Fatalf("import of URL sources = %+v", rep)
	}
	if got := e.draft(a.project.ID); !strings.Contains(got, "exact /from-url -> /x") || !strings.Contains(got, "starts_with /shop/ -> /y") {
		t.Fatalf("draft after URL sources: %q", got)
	}
	a.tokens[redirects.RoleEditor].do("POST", pbase+"/imports?mode=upsert", csvBody("source,destination,statusCode,matchType\nhttps://elsewhere.example/x,/y,301,exact\n")).
		want(t, 422, "INVALID_IMPORT").decode(t, &rep)
	if msg := rep.Errors[0].Message; !strings.Contains(msg, "host elsewhere.example") || !strings.Contains(msg, "not one of the hosts the project declares") {
		t.Fatalf("URL on an undeclared host: %q", msg)
	}

	owner.do("PATCH", pbase, map[string]any{"hosts": []string{}}).want(t, 200).decode(t, &p)
	if len(p.Hosts) != 0 {
		t.Fatalf("cleared hosts = %q", p.Hosts)
	}
	es, err := e.store.FindAudit(e.ctx, redirects.AuditFilter{ProjectID: a.project.ID, Action: redirects.AuditProjectUpdate})
	if err != nil || len(es) != 2 || !strings.Contains(string(es[1].After), "www.example.com") {
		t.Fatalf("audit of hosts changes = %d entries, %v", len(es), err)
	}
}
