package manage

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"redirects"
)

// optionRule is a rule answer with the options' keys, which a client
// written before them would not read.
type optionRule struct {
	ID            int64
	Source        string
	Destination   string
	StatusCode    int
	MatchType     string
	Priority      int
	Revision      int64
	PreservePath  *bool
	PreserveQuery *bool
}

// String shows the options' values, or <absent>.
func (r optionRule) String() string {
	b := func(p *bool) string {
		if p == nil {
			return "<absent>"
		}
		return fmt.Sprint(*p)
	}
	return fmt.Sprintf("{ID:%d Source:%s Destination:%s StatusCode:%d MatchType:%s Priority:%d Revision:%d PreservePath:%s PreserveQuery:%s}",
		r.ID, r.Source, r.Destination, r.StatusCode, r.MatchType, r.Priority, r.Revision, b(r.PreservePath), b(r.PreserveQuery))
}

// TestRuleOptions: the rule routes take every status, a fragment and the
// two options, answer them on every rule, and a PATCH keeps what it does
// not name (docs/contract.md#rule-options).
func TestRuleOptions(t *testing.T) { runSuite(t, testRuleOptions) }

func testRuleOptions(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("A")
	c := a.tokens[redirects.RoleEditor]
	rules := "/manage/v1/projects/" + a.project.ID + "/rules"

	// A rule without options answers both keys, false.
	var old optionRule
	c.do("GET", fmt.Sprintf("%s/%d", rules, a.rule.ID), nil).want(t, 200).decode(t, &old)
	if old.PreservePath == nil || old.PreserveQuery == nil || *old.PreservePath || *old.PreserveQuery {
		t.Fatalf("a rule without options = %+v, want preservePath and preserveQuery false", old)
	}

	// Every status, a fragment, both options; read back as stored.
	var moved optionRule
	c.do("POST", rules, map[string]any{"source": "/docs/", "destination": "/manual/#top", "statusCode": 308,
		"matchType": "starts_with", "preservePath": true, "preserveQuery": true}).want(t, 201).decode(t, &moved)
	if moved.StatusCode != 308 || moved.Destination != "/manual/#top" || !*moved.PreservePath || !*moved.PreserveQuery {
		t.Fatalf("created = %+v", moved)
	}
	for _, code := range []int{302, 303, 307} {
		var r optionRule
		c.do("POST", rules, map[string]any{"source": fmt.Sprintf("/s%d", code), "destination": "/x", "statusCode": code, "preserveQuery": true}).want(t, 201).decode(t, &r)
		if r.StatusCode != code || !*r.PreserveQuery || *r.PreservePath {
			t.Fatalf("created with %d = %+v", code, r)
		}
	}
	var gone optionRule
	c.do("POST", rules, map[string]any{"source": "/retired", "statusCode": 410}).want(t, 201).decode(t, &gone)
	if gone.StatusCode != 410 || gone.Destination != "" {
		t.Fatalf("created 410 = %+v", gone)
	}
	stored, err := e.store.FindRule(e.ctx, a.project.ID, moved.ID)
	if err != nil || !stored.PreservePath || !stored.PreserveQuery || stored.StatusCode != 308 {
		t.Fatalf("stored = %+v (%v), want 308 with both options", stored, err)
	}

	// A PATCH of other fields keeps the options; one option changes alone.
	one := fmt.Sprintf("%s/%d", rules, moved.ID)
	var got optionRule
	c.do("PATCH", one, map[string]any{"destination": "/handbook/"}).want(t, 200).decode(t, &got)
	if got.Destination != "/handbook/" || !*got.PreservePath || !*got.PreserveQuery || got.StatusCode != 308 {
		t.Fatalf("after a PATCH of the destination = %+v, want both options kept", got)
	}
	c.do("PATCH", one, map[string]any{"preserveQuery": false}).want(t, 200).decode(t, &got)
	if got.Destination != "/handbook/" || !*got.PreservePath || *got.PreserveQuery {
		t.Fatalf("after a PATCH of preserveQuery = %+v", got)
	}
	// A change of match type that would leave preservePath on an exact
	// rule is refused, and changes nothing.
	r := c.do("PATCH", one, map[string]any{"matchType": "exact"}).want(t, 400, "INVALID_INPUT")
	if _, msg := r.errBody(t); !strings.Contains(msg, "preservePath") {
		t.Fatalf("the refusal of matchType exact under preservePath says %q", msg)
	}
	c.do("PATCH", one, map[string]any{"matchType": "exact", "preservePath": false}).want(t, 200).decode(t, &got)
	if got.MatchType != "exact" || *got.PreservePath {
		t.Fatalf("after exact without preservePath = %+v", got)
	}
	// A 410 made of a redirect drops its destination with it.
	c.do("PATCH", one, map[string]any{"statusCode": 410}).want(t, 400, "INVALID_INPUT")
	c.do("PATCH", one, map[string]any{"statusCode": 410, "destination": ""}).want(t, 200).decode(t, &got)
	if got.StatusCode != 410 || got.Destination != "" {
		t.Fatalf("after a PATCH to 410 = %+v", got)
	}

	// The list and the status filter carry them too.
	var page struct {
		Rules []optionRule
		Total int
	}
	c.do("GET", rules+"?status=410", nil).want(t, 200).decode(t, &page)
	if page.Total != 2 || page.Rules[0].PreservePath == nil {
		t.Fatalf("410 rules = %+v", page)
	}

	// queryAfterFragment: absent from a rule without it (the answer reads
	// as before the option), true on one with it, kept by a PATCH that does
	// not name it, refused where it does not apply, naming it.
	var raw map[string]any
	c.do("GET", fmt.Sprintf("%s/%d", rules, a.rule.ID), nil).want(t, 200).decode(t, &raw)
	if _, ok := raw["queryAfterFragment"]; ok {
		t.Fatalf("a rule without queryAfterFragment shows it: %v", raw)
	}
	var design struct {
		ID                 int64
		Destination        string
		PreserveQuery      bool
		QueryAfterFragment *bool
	}
	c.do("POST", rules, map[string]any{"source": "/design.html", "destination": "/documentation#design", "preserveQuery": true,
		"queryAfterFragment": true}).want(t, 201).decode(t, &design)
	if design.QueryAfterFragment == nil || !*design.QueryAfterFragment || !design.PreserveQuery {
		t.Fatalf("created with queryAfterFragment = %+v", design)
	}
	qaf := fmt.Sprintf("%s/%d", rules, design.ID)
	c.do("PATCH", qaf, map[string]any{"destination": "/documentation?v=2#design"}).want(t, 200).decode(t, &design)
	if design.QueryAfterFragment == nil || !*design.QueryAfterFragment || design.Destination != "/documentation?v=2#design" {
		t.Fatalf("after a PATCH of the destination = %+v, want queryAfterFragment kept", design)
	}
	for _, body := range []map[string]any{{"preserveQuery": false}, {"destination": "/documentation"}} {
		r := c.do("PATCH", qaf, body).want(t, 400, "INVALID_INPUT")
		if _, msg := r.errBody(t); !strings.Contains(msg, "queryAfterFragment") {
			t.Fatalf("the refusal of %v under queryAfterFragment says %q", body, msg)
		}
	}
	r = c.do("POST", rules, map[string]any{"source": "/q", "destination": "/d#f", "queryAfterFragment": true}).want(t, 400, "INVALID_INPUT")
	if _, msg := r.errBody(t); !strings.Contains(msg, "queryAfterFragment") {
		t.Fatalf("the refusal of queryAfterFragment without preserveQuery says %q", msg)
	}
	c.do("PATCH", qaf, map[string]any{"queryAfterFragment": false}).want(t, 200).decode(t, &raw)
	if _, ok := raw["queryAfterFragment"]; ok {
		t.Fatalf("after a PATCH of queryAfterFragment false the rule shows it: %v", raw)
	}
	if stored, err := e.store.FindRule(e.ctx, a.project.ID, design.ID); err != nil || stored.QueryAfterFragment || !stored.PreserveQuery {
		t.Fatalf("stored = %+v (%v), want preserveQuery without queryAfterFragment", stored, err)
	}

	// mergeQuery: absent from a rule without it, true on one with it, kept
	// by a PATCH that does not name it, refused where it does not apply,
	// naming it; a refused PATCH changes nothing.
	if _, ok := raw["mergeQuery"]; ok {
		t.Fatalf("a rule without mergeQuery shows it: %v", raw)
	}
	var vscode struct {
		ID            int64
		Destination   string
		PreserveQuery bool
		MergeQuery    *bool
	}
	c.do("POST", rules, map[string]any{"source": "/vscode", "destination": "https://m.example/items?itemName=p.e", "statusCode": 308,
		"preserveQuery": true, "mergeQuery": true}).want(t, 201).decode(t, &vscode)
	if vscode.MergeQuery == nil || !*vscode.MergeQuery || !vscode.PreserveQuery {
		t.Fatalf("created with mergeQuery = %+v", vscode)
	}
	mq := fmt.Sprintf("%s/%d", rules, vscode.ID)
	c.do("PATCH", mq, map[string]any{"destination": "https://m.example/items?itemName=q#top"}).want(t, 200).decode(t, &vscode)
	if vscode.MergeQuery == nil || !*vscode.MergeQuery || vscode.Destination != "https://m.example/items?itemName=q#top" {
		t.Fatalf("after a PATCH of the destination = %+v, want mergeQuery kept", vscode)
	}
	for _, body := range []map[string]any{{"preserveQuery": false}, {"destination": "https://m.example/items"}, {"destination": "/i?#f"},
		{"queryAfterFragment": true}} {
		r := c.do("PATCH", mq, body).want(t, 400, "INVALID_INPUT")
		if _, msg := r.errBody(t); !strings.Contains(msg, "mergeQuery") {
			t.Fatalf("the refusal of %v under mergeQuery says %q", body, msg)
		}
	}
	for _, body := range []map[string]any{{"source": "/m1", "destination": "/d?x=1", "mergeQuery": true},
		{"source": "/m2", "destination": "/d", "preserveQuery": true, "mergeQuery": true},
		{"source": "/m3", "statusCode": 410, "mergeQuery": true}} {
		r = c.do("POST", rules, body).want(t, 400, "INVALID_INPUT")
		if _, msg := r.errBody(t); !strings.Contains(msg, "mergeQuery") {
			t.Fatalf("the refusal of %v says %q", body, msg)
		}
	}
	if stored, err := e.store.FindRule(e.ctx, a.project.ID, vscode.ID); err != nil || !stored.MergeQuery || stored.Destination != "https://m.example/items?itemName=q#top" {
		t.Fatalf("a refused PATCH changed the rule: %+v (%v)", stored, err)
	}
	c.do("PATCH", mq, map[string]any{"mergeQuery": false}).want(t, 200).decode(t, &raw)
	if _, ok := raw["mergeQuery"]; ok {
		t.Fatalf("after a PATCH of mergeQuery false the rule shows it: %v", raw)
	}
	if stored, err := e.store.FindRule(e.ctx, a.project.ID, vscode.ID); err != nil || stored.MergeQuery || !stored.PreserveQuery {
		t.Fatalf("stored = %+v (%v), want preserveQuery without mergeQuery", stored, err)
	}

	// exceptHosts: absent from a rule without them, stored as host keys,
	// kept by a PATCH that does not name them, cleared by [], refused on a
	// rule with a host (a PATCH that gives one a host too), naming them.
	if _, ok := raw["exceptHosts"]; ok {
		t.Fatalf("a rule without exceptHosts shows them: %v", raw)
	}
	var def struct {
		ID          int64
		ExceptHosts []string
	}
	c.do("POST", rules, map[string]any{"source": "/", "matchType": "starts_with", "destination": "https://example.com/",
		"exceptHosts": []string{"Example.COM", "*.example.com"}}).want(t, 201).decode(t, &def)
	if want := []string{"example.com", "*.example.com"}; !slices.Equal(def.ExceptHosts, want) {
		t.Fatalf("created with exceptHosts = %+v, want %q", def, want)
	}
	one = fmt.Sprintf("%s/%d", rules, def.ID)
	c.do("PATCH", one, map[string]any{"destination": "https://example.com/x"}).want(t, 200).decode(t, &def)
	if len(def.ExceptHosts) != 2 {
		t.Fatalf("after a PATCH of the destination = %+v, want exceptHosts kept", def)
	}
	for _, body := range []map[string]any{{"host": "www.example.com"}, {"exceptHosts": []string{"a.example", "A.example."}}, {"exceptHosts": []string{"not a host"}}} {
		r := c.do("PATCH", one, body).want(t, 400, "INVALID_INPUT")
		if _, msg := r.errBody(t); !strings.Contains(msg, "exceptHosts") {
			t.Fatalf("the refusal of %v says %q, want it to name exceptHosts", body, msg)
		}
	}
	r = c.do("POST", rules, map[string]any{"source": "/h", "destination": "/d", "host": "example.org", "exceptHosts": []string{"example.com"}}).want(t, 400, "INVALID_INPUT")
	if _, msg := r.errBody(t); !strings.Contains(msg, "exceptHosts") {
		t.Fatalf("the refusal of exceptHosts on a rule with a host says %q", msg)
	}
	c.do("PATCH", one, map[string]any{"exceptHosts": []string{}}).want(t, 200).decode(t, &raw)
	if _, ok := raw["exceptHosts"]; ok {
		t.Fatalf("after a PATCH of exceptHosts [] the rule shows them: %v", raw)
	}
}

// TestProjectSettings: the project's PATCH sets caseSensitive and
// trailingSlash; a change under which rules would clash is 409 listing
// them and changes nothing; a rule that would clash under the settings
// is refused naming both.
func TestProjectSettings(t *testing.T) { runSuite(t, testProjectSettings) }

func testProjectSettings(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("A")
	owner := a.tokens[redirects.RoleOwner]
	editor := a.tokens[redirects.RoleEditor]
	pbase := "/manage/v1/projects/" + a.project.ID
	rules := pbase + "/rules"

	var p projectJSON
	owner.do("GET", pbase, nil).want(t, 200).decode(t, &p)
	if !p.CaseSensitive || p.TrailingSlash != "exact" {
		t.Fatalf("a new project's settings = %+v, want caseSensitive true, trailingSlash exact", p)
	}
	// An editor may not change them.
	editor.do("PATCH", pbase, map[string]any{"caseSensitive": false}).want(t, 403, "FORBIDDEN")

	// /old and /OLD, /old and /old/: no clash under the defaults.
	var upper, slash optionRule
	editor.do("POST", rules, map[string]any{"source": "/OLD", "destination": "/x"}).want(t, 201).decode(t, &upper)
	editor.do("POST", rules, map[string]any{"source": "/old/", "destination": "/y"}).want(t, 201).decode(t, &slash)

	r := owner.do("PATCH", pbase, map[string]any{"caseSensitive": false, "name": "renamed"}).want(t, 409, "CONFLICT")
	_, msg := r.errBody(t)
	for _, want := range []string{"caseSensitive=false", fmt.Sprintf("rule %d \"/old\"", a.rule.ID), fmt.Sprintf("rule %d \"/OLD\"", upper.ID)} {
		if !strings.Contains(msg, want) {
			t.Fatalf("the 409 of caseSensitive false says %q, without %q", msg, want)
		}
	}
	r = owner.do("PATCH", pbase, map[string]any{"trailingSlash": "ignore"}).want(t, 409, "CONFLICT")
	if _, msg := r.errBody(t); !strings.Contains(msg, fmt.Sprintf("rule %d \"/old/\"", slash.ID)) {
		t.Fatalf("the 409 of trailingSlash ignore says %q", msg)
	}
	owner.do("GET", pbase, nil).want(t, 200).decode(t, &p)
	if !p.CaseSensitive || p.TrailingSlash != "exact" || p.Name != a.project.Name {
		t.Fatalf("after refused changes the project is %+v, want it unchanged", p)
	}

	// Without the clashing rules the change is made; a clashing rule is
	// then refused, naming both.
	editor.do("DELETE", fmt.Sprintf("%s/%d", rules, upper.ID), nil).want(t, 204)
	editor.do("DELETE", fmt.Sprintf("%s/%d", rules, slash.ID), nil).want(t, 204)
	owner.do("PATCH", pbase, map[string]any{"caseSensitive": false, "trailingSlash": "ignore"}).want(t, 200).decode(t, &p)
	if p.CaseSensitive || p.TrailingSlash != "ignore" {
		t.Fatalf("after the PATCH = %+v", p)
	}
	r = editor.do("POST", rules, map[string]any{"source": "/Old/", "destination": "/z"}).want(t, 409, "CONFLICT")
	if _, msg := r.errBody(t); !strings.Contains(msg, "/old") || !strings.Contains(msg, "/Old/") {
		t.Fatalf("the 409 of a clashing rule says %q, want both sources", msg)
	}
	// Another match type does not clash.
	editor.do("POST", rules, map[string]any{"source": "/Old/", "destination": "/z", "matchType": "starts_with"}).want(t, 201)

	// The diff names the settings' change and the paths it changes; the
	// explanation compares with the draft's settings.
	var diff struct {
		Settings *struct {
			From, To struct {
				CaseSensitive bool
				TrailingSlash string
			}
			Fields []string
		}
		PathsChanged int
	}
	owner.do("GET", pbase+"/diff?from=draft&to=draft", nil).want(t, 200).decode(t, &diff)
	if diff.Settings != nil {
		t.Fatalf("the draft against itself: settings %+v", diff.Settings)
	}
	var lk struct {
		Explanation struct {
			Settings *struct{ CaseSensitive bool }
			Answer   *struct{ Source string }
		}
	}
	owner.do("GET", pbase+"/lookup?version=draft&path=/OLD/", nil).want(t, 200).decode(t, &lk)
	if ex := lk.Explanation; ex.Settings == nil || ex.Settings.CaseSensitive || ex.Answer == nil || ex.Answer.Source != "/old" {
		t.Fatalf("the explanation of /OLD/ in the draft = %+v", lk)
	}

	// The next deploy freezes them.
	var d deploymentJSON
	owner.do("POST", pbase+"/deployments", map[string]any{"message": "settings"}).want(t, 201).decode(t, &d)
	if d.CaseSensitive || d.TrailingSlash != "ignore" {
		t.Fatalf("the deployment = %+v, want the settings it froze", d)
	}
	owner.do("PATCH", pbase, map[string]any{"caseSensitive": true}).want(t, 200)
	owner.do("GET", pbase+"/diff", nil).want(t, 200).decode(t, &diff)
	if diff.Settings == nil || diff.Settings.From.CaseSensitive || !diff.Settings.To.CaseSensitive || strings.Join(diff.Settings.Fields, ",") != "caseSensitive" || diff.PathsChanged == 0 {
		t.Fatalf("the diff of caseSensitive false to true = %+v", diff)
	}
	var list struct{ Projects []projectJSON }
	owner.do("GET", "/manage/v1/orgs/"+a.org.ID+"/projects", nil).want(t, 200).decode(t, &list)
	if len(list.Projects) != 1 || !list.Projects[0].CaseSensitive || list.Projects[0].TrailingSlash != "ignore" {
		t.Fatalf("the project list = %+v", list)
	}
}

// TestImportOptions: an import takes the option columns and every status,
// and under the project's settings refuses sources that clash, naming
// the lines, with nothing imported.
func TestImportOptions(t *testing.T) { runSuite(t, testImportOptions) }

func testImportOptions(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("A")
	owner := a.tokens[redirects.RoleOwner]
	pbase := "/manage/v1/projects/" + a.project.ID
	var rep importJSON
	owner.do("POST", pbase+"/imports?mode=append", csvBody("source,destination,statusCode,matchType,preservePath,preserveQuery\n"+
		"/docs/,/manual/#top,308,starts_with,true,true\n/retired,,410,exact,,\n")).want(t, 200).decode(t, &rep)
	if rep.Added != 2 {
		t.Fatalf("import with options = %+v", rep)
	}
	var page struct{ Rules []optionRule }
	owner.do("GET", pbase+"/rules?q=/docs/", nil).want(t, 200).decode(t, &page)
	if len(page.Rules) != 1 || page.Rules[0].StatusCode != 308 || !*page.Rules[0].PreservePath || !*page.Rules[0].PreserveQuery {
		t.Fatalf("imported /docs/ = %+v", page.Rules)
	}
	owner.do("PATCH", pbase, map[string]any{"caseSensitive": false}).want(t, 200)
	r := owner.do("POST", pbase+"/imports?mode=append", csvBody("source,destination,statusCode,matchType\n/new,/x,301,exact\n/OLD,/y,301,exact\n")).want(t, 409, "CONFLICT")
	r.decode(t, &rep)
	if rep.ErrorCount != 1 || rep.Errors[0].Line != 3 || !strings.Contains(rep.Errors[0].Message, "/OLD") || !strings.Contains(rep.Errors[0].Message, "/old") {
		t.Fatalf("an import of /OLD beside /old, ignoring case = %+v", rep)
	}
	owner.do("GET", pbase+"/rules?q=/new*", nil).want(t, 200).decode(t, &page)
	if len(page.Rules) != 0 {
		t.Fatalf("a refused import added %+v", page.Rules)
	}
}
