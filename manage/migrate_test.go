package manage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"redirects"
	"redirects/api"
	"redirects/importer"
)

// A writer for the tests of GET .../rules-export while the platforms'
// writers are still to come (the tests also run every registered one): a
// line "source destination" per exact rule; every starts_with rule is left
// out as unexpressed.
func init() {
	importer.RegisterWriter(&importer.Writer{Name: "testlines", FileName: "redirects.txt", ContentType: "text/plain; charset=utf-8",
		Write: func(w io.Writer, rules []redirects.Rule, _ redirects.Settings, _ []string) ([]importer.Unexpressed, error) {
			var un []importer.Unexpressed
			for _, r := range rules {
				if r.MatchType != redirects.Exact {
					un = append(un, importer.Unexpressed{RuleID: r.ID, Source: r.Source, Dropped: true, Reason: "only exact rules"})
					continue
				}
				fmt.Fprintf(w, "%s %s\n", r.Source, r.Destination)
			}
			return un, nil
		}})
}

// newImportUndo imports one new rule into the project through the store
// and returns the import's undoId.
func newImportUndo(t *testing.T, e *env, projectID string) int64 {
	t.Helper()
	importUndoSeq++
	rep, err := e.store.Import(e.ctx, projectID, []redirects.Rule{{Source: fmt.Sprintf("/undo%d", importUndoSeq), Destination: "/x",
		StatusCode: 301, MatchType: redirects.Exact, Priority: redirects.DefaultPriority}}, redirects.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return rep.UndoID
}

var importUndoSeq int

// migrationJSON is the answer of POST .../imports?from=.
type migrationJSON struct {
	importJSON
	Migration json.RawMessage `json:"migration"`
	UndoID    int64           `json:"undoId"`
}

// TestImportFromEveryFormat imports the Example of every registered format
// through the API, as auto and by name: the migration report is
// importer.Read's, byte for byte; a dry run writes nothing; the applied
// import answers an undoId, and the undo puts the draft back.
func TestImportFromEveryFormat(t *testing.T) { runSuite(t, testImportFromEveryFormat) }

func testImportFromEveryFormat(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("Mig")
	c := a.tokens[redirects.RoleEditor]
	base := "/manage/v1/projects/" + a.project.ID + "/imports"
	if len(importer.Formats()) == 0 {
		t.Fatal("no format is registered")
	}
	for _, f := range importer.Formats() {
		p, err := e.store.FindProjectByID(e.ctx, a.project.ID)
		if err != nil {
			t.Fatal(err)
		}
		want, err := importer.Read(context.Background(), strings.NewReader(f.Example), f.Name, importer.Options{Settings: p.Settings, Hosts: p.Hosts})
		if err != nil {
			t.Fatalf("%s: importer.Read of its Example: %v", f.Name, err)
		}
		wantJSON, _ := json.Marshal(want)
		before := e.draft(a.project.ID)
		for _, from := range []string{f.Name, "auto"} {
			var rep migrationJSON
			c.do("POST", base+"?mode=upsert&dry_run=true&from="+from, csvBody(f.Example)).want(t, 200).decode(t, &rep)
			var got importer.Result
			if err := json.Unmarshal(rep.Migration, &got); err != nil {
				t.Fatalf("%s from=%s: migration %s: %v", f.Name, from, rep.Migration, err)
			}
			if from == "auto" {
				if got.Format != f.Name || got.Detected == "" {
					t.Errorf("%s: from=auto read it as %q (%q)", f.Name, got.Format, got.Detected)
				}
				got.Detected = ""
			}
			gotJSON, _ := json.Marshal(&got)
			if !bytes.Equal(gotJSON, wantJSON) {
				t.Errorf("%s from=%s: migration\n%s\nwant importer.Read's\n%s", f.Name, from, gotJSON, wantJSON)
			}
			if rep.UndoID != 0 || rep.Added+rep.Updated+rep.Unchanged != len(want.Rules) {
				t.Errorf("%s from=%s dry run: %+v, want the counts of %d rules and no undoId", f.Name, from, rep, len(want.Rules))
			}
		}
		if got := e.draft(a.project.ID); got != before {
			t.Fatalf("%s: dry runs changed the draft", f.Name)
		}
		var rep migrationJSON
		c.do("POST", base+"?mode=replace&from="+f.Name, csvBody(f.Example)).want(t, 200).decode(t, &rep)
		if rep.UndoID == 0 {
			t.Fatalf("%s: an applied import answered no undoId: %+v", f.Name, rep)
		}
		if got := e.draft(a.project.ID); got == before && len(want.Rules) > 0 {
			t.Fatalf("%s: the import changed nothing", f.Name)
		}
		var undo api.ImportUndo
		c.do("POST", fmt.Sprintf("%s/%d/undo", base, rep.UndoID), nil).want(t, 200).decode(t, &undo)
		if got := e.draft(a.project.ID); got != before {
			t.Fatalf("%s: after the undo the draft is\n%s\nwant\n%s", f.Name, got, before)
		}
		if undo.UndoID != rep.UndoID || undo.Rules != strings.Count(before, "\n") {
			t.Errorf("%s: undo answered %+v", f.Name, undo)
		}
	}
}

// TestImportWithoutFromUnchanged: without ?from= the import answers the
// fields it always has, and nothing else (no migration, no undoId).
func TestImportWithoutFromUnchanged(t *testing.T) { runSuite(t, testImportWithoutFromUnchanged) }

func testImportWithoutFromUnchanged(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("Old")
	c := a.tokens[redirects.RoleEditor]
	base := "/manage/v1/projects/" + a.project.ID + "/imports"
	for _, q := range []string{"?mode=upsert&dry_run=true", "?mode=upsert"} {
		r := c.do("POST", base+q, csvBody("source,destination,statusCode,matchType\n/x,/y,301,exact\n")).want(t, 200)
		var m map[string]any
		if err := json.Unmarshal(r.body, &m); err != nil {
			t.Fatal(err)
		}
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if want := []string{"added", "dryRun", "errorCount", "errors", "mode", "removed", "unchanged", "updated"}; !slices.Equal(keys, want) {
			t.Errorf("POST %s answered the fields %v, want today's %v: %s", q, keys, want, r.body)
		}
		if want := `{"mode":"upsert","dryRun":` + fmt.Sprint(q == "?mode=upsert&dry_run=true"); !strings.HasPrefix(string(r.body), want) {
			t.Errorf("POST %s answered %s, want it to start %s", q, r.body, want)
		}
	}
}

// TestRulesExport downloads the draft through every writer: the file is
// what the writer writes of the draft, Redirects-Unexpressed counts what it
// reported, and the JSON variant lists it.
func TestRulesExport(t *testing.T) { runSuite(t, testRulesExport) }

func testRulesExport(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("Exp")
	c := a.tokens[redirects.RoleViewer]
	if err := e.store.AddRule(e.ctx, &redirects.Rule{ProjectID: a.project.ID, Source: "/docs/", Destination: "/guide/", StatusCode: 308,
		MatchType: redirects.StartsWith, Priority: 5, PreservePath: true}); err != nil {
		t.Fatal(err)
	}
	p, _ := e.store.FindProjectByID(e.ctx, a.project.ID)
	rules, _ := e.store.FindRules(e.ctx, a.project.ID)
	base := "/manage/v1/projects/" + a.project.ID + "/rules-export?to="
	for _, wr := range importer.Writers() {
		var want bytes.Buffer
		un, err := wr.Write(&want, rules, p.Settings, p.Hosts)
		if err != nil {
			t.Fatal(err)
		}
		r := c.do("GET", base+wr.Name, nil).want(t, 200)
		if string(r.body) != want.String() || r.header.Get("Content-Type") != wr.ContentType ||
			r.header.Get("Redirects-Unexpressed") != fmt.Sprint(len(un)) ||
			r.header.Get("Content-Disposition") != `attachment; filename="`+wr.FileName+`"` {
			t.Errorf("to=%s: %v\n%s\nwant\n%s", wr.Name, r.header, r.body, want.String())
		}
		var rep api.RulesExport
		c.do("GET", base+wr.Name, nil, "Accept", "application/json").want(t, 200).decode(t, &rep)
		if un == nil {
			un = []importer.Unexpressed{}
		}
		if rep.Content != want.String() || !reflect.DeepEqual(rep.Unexpressed, un) || rep.To != wr.Name || rep.Rules != len(rules) {
			t.Errorf("to=%s as JSON: %+v, want unexpressed %+v", wr.Name, rep, un)
		}
	}
	var rep api.RulesExport
	c.do("GET", base+"testlines", nil, "Accept", "application/json").want(t, 200).decode(t, &rep)
	if len(rep.Unexpressed) != 1 || rep.Unexpressed[0].Source != "/docs/" || !strings.Contains(rep.Content, "/old /new") {
		t.Errorf("to=testlines: %+v", rep)
	}
	r := c.do("GET", base+"nope", nil).want(t, 400, codeInvalidQuery)
	if !strings.Contains(string(r.body), "testlines") {
		t.Errorf("an unknown writer's 400 does not name the writers: %s", r.body)
	}
}

// TestImportHostSuggestion: an import with ?from= whose rules are scoped
// to hosts the project does not declare answers migration.hostSuggestion
// (the hosts, the list to declare, the command), beside the fields the
// report always has; once PATCH declares that list, it is gone.
func TestImportHostSuggestion(t *testing.T) { runSuite(t, testImportHostSuggestion) }

func testImportHostSuggestion(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("Hosts")
	owner := a.tokens[redirects.RoleOwner]
	pbase := "/manage/v1/projects/" + a.project.ID
	owner.do("PATCH", pbase, map[string]any{"hosts": []string{"www.example.org"}}).want(t, 200)
	file := csvBody("https://old.example.org/* https://www.example.org/:splat 301!\n" +
		"https://Blog.Example.net/a /b 301\n" +
		"https://*.example.com/w /b 301\n" +
		"/plain /elsewhere 301\n")
	var rep struct {
		Migration map[string]json.RawMessage `json:"migration"`
	}
	owner.do("POST", pbase+"/imports?from=netlify&dry_run=true", file).want(t, 200).decode(t, &rep)
	for _, k := range []string{"format", "asIs", "changed", "skipped", "asIsLines", "lines", "suggestion"} {
		if _, ok := rep.Migration[k]; !ok {
			t.Errorf("migration lacks %q: %v", k, rep.Migration)
		}
	}
	const want = `{"hosts":["old.example.org","blog.example.net"],"declare":["www.example.org","old.example.org","blog.example.net"],` +
		`"why":"the file's rules answer on 2 hosts the project does not declare (old.example.org, blog.example.net): ` +
		`\"redirects project update --host www.example.org --host old.example.org --host blog.example.net\" would declare them"}`
	if got := string(rep.Migration["hostSuggestion"]); got != want {
		t.Fatalf("hostSuggestion\n%s\nwant\n%s", got, want)
	}
	var hs importer.HostSuggestion
	if err := json.Unmarshal(rep.Migration["hostSuggestion"], &hs); err != nil {
		t.Fatal(err)
	}
	owner.do("PATCH", pbase, map[string]any{"hosts": hs.Declare}).want(t, 200)
	rep.Migration = nil
	owner.do("POST", pbase+"/imports?from=netlify&dry_run=true", file).want(t, 200).decode(t, &rep)
	if got, ok := rep.Migration["hostSuggestion"]; ok || rep.Migration["format"] == nil {
		t.Fatalf("after declaring the hosts: hostSuggestion %s in %v", got, rep.Migration)
	}
}
