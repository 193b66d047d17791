package manage

import (
	"strings"
	"testing"

	"redirects"
	"redirects/export"
	"redirects/safety"
	"redirects/service"
)

func TestDiffAndExplain(t *testing.T) { runSuite(t, testDiffAndExplain) }

// diffAnswer is the JSON of a diff answer.
type diffAnswer struct {
	From, To               string
	FromVersion, ToVersion any
	Added, Removed         []safety.RuleRef
	Changed                []safety.RuleChange
	Unchanged              int
	PathsChecked           int
	PathsChanged           int
	Impact                 []safety.PathChange
}

func testDiffAndExplain(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	o := e.newOrg("Acme") // version 1: exact /old -> /new
	viewer := o.tokens[redirects.RoleViewer]
	pbase := "/manage/v1/projects/" + o.project.ID
	add := func(r redirects.Rule) *redirects.Rule {
		t.Helper()
		r.ProjectID = o.project.ID
		if err := e.store.AddRule(e.ctx, &r); err != nil {
			t.Fatal(err)
		}
		return &r
	}

	// Nothing changed yet: the draft equals the live version.
	var d diffAnswer
	viewer.do("GET", pbase+"/diff", nil).want(t, 200).decode(t, &d)
	if d.From != "version 1 (live)" || d.To != "the draft" || d.FromVersion != float64(1) || d.ToVersion != "draft" ||
		len(d.Added)+len(d.Removed)+len(d.Changed) != 0 || d.Unchanged != 1 || d.PathsChanged != 0 || d.Impact == nil {
		t.Fatalf("diff of an unchanged draft = %+v", d)
	}

	// Draft: /old changes its destination, /blog/ is added; deploy it.
	if _, err := e.store.UpdateRule(e.ctx, o.project.ID, o.rule.ID, redirects.RuleUpdate{Destination: ptr("/newer")}); err != nil {
		t.Fatal(err)
	}
	blog := add(redirects.Rule{Source: "/blog/", Destination: "https://blog.example.com/", StatusCode: 302, MatchType: redirects.StartsWith, Priority: 10})
	viewer.do("GET", pbase+"/diff?from=live&to=draft", nil).want(t, 200).decode(t, &d)
	if len(d.Added) != 1 || d.Added[0].Source != "/blog/" || len(d.Removed) != 0 || len(d.Changed) != 1 ||
		d.Changed[0].To.Source != "/old" || len(d.Changed[0].Fields) != 1 || d.Changed[0].Fields[0] != "destination" {
		t.Fatalf("diff live -> draft = %+v", d)
	}
	// Sample paths: /old, /blog/ and /blog/example answer differently.
	if d.PathsChecked != 3 || d.PathsChanged != 3 || len(d.Impact) != 3 || d.Impact[0].Path != "/blog/" ||
		d.Impact[2].Path != "/old" || d.Impact[2].From.Destination != "/new" || d.Impact[2].To.Destination != "/newer" {
		t.Fatalf("diff impact = %+v", d)
	}
	viewer.do("GET", pbase+"/diff?maxPaths=1", nil).want(t, 200).decode(t, &d)
	if d.PathsChanged != 3 || len(d.Impact) != 1 {
		t.Fatalf("diff with maxPaths=1 = %+v", d)
	}
	if _, err := service.DeployUnchecked(e.ctx, e.store, o.project.ID, redirects.DeployOptions{}, export.Build); err != nil {
		t.Fatal(err)
	}
	// Between two versions, both ways.
	viewer.do("GET", pbase+"/diff?from=2&to=1", nil).want(t, 200).decode(t, &d)
	if d.From != "version 2" || d.To != "version 1" || len(d.Removed) != 1 || d.Removed[0].ID != blog.ID || len(d.Changed) != 1 {
		t.Fatalf("diff 2 -> 1 = %+v", d)
	}
	viewer.do("GET", pbase+"/diff?from=1&to=live", nil).want(t, 200).decode(t, &d)
	if d.To != "version 2 (live)" || len(d.Added) != 1 {
		t.Fatalf("diff 1 -> live = %+v", d)
	}

	// The answers agree with the command line's service on the same rules.
	_, r1, err := e.store.FindDeployment(e.ctx, o.project.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	_, r2, err := e.store.FindDeployment(e.ctx, o.project.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := safety.Diff(r1, r2, safety.DiffOptions{}); want.PathsChanged != d.PathsChanged || len(want.Added) != len(d.Added) {
		t.Fatalf("API diff %+v, safety.Diff %+v", d, want)
	}

	// Bad versions and limits change nothing and say what is wrong.
	viewer.do("GET", pbase+"/diff?from=0", nil).want(t, 400, codeInvalidQuery)
	viewer.do("GET", pbase+"/diff?to=latest", nil).want(t, 400, codeInvalidQuery)
	viewer.do("GET", pbase+"/diff?maxPaths=0", nil).want(t, 400, codeInvalidQuery)
	viewer.do("GET", pbase+"/diff?maxPaths=x", nil).want(t, 400, codeInvalidQuery)
	viewer.do("GET", pbase+"/diff?from=9", nil).want(t, 404, "NOT_FOUND")

	// A project with nothing deployed diffs from an empty live version.
	p2 := &redirects.Project{OrgID: o.org.ID, Name: "empty"}
	if err := e.store.CreateProject(e.ctx, p2); err != nil {
		t.Fatal(err)
	}
	if err := e.store.AddRule(e.ctx, &redirects.Rule{ProjectID: p2.ID, Source: "/x", Destination: "/y", StatusCode: 301, MatchType: redirects.Exact, Priority: 100}); err != nil {
		t.Fatal(err)
	}
	viewer.do("GET", "/manage/v1/projects/"+p2.ID+"/diff", nil).want(t, 200).decode(t, &d)
	if d.From != "nothing deployed" || d.FromVersion != nil || len(d.Added) != 1 {
		t.Fatalf("diff of a project with nothing deployed = %+v", d)
	}

	// Lookup explains: /blog/x matches the starts_with rule; another one
	// with a worse priority loses, and says why.
	add(redirects.Rule{Source: "/blog/x", Destination: "/x", StatusCode: 301, MatchType: redirects.StartsWith, Priority: 50})
	var lk struct {
		Path        string
		Version     any
		Answer      map[string]any
		Explanation safety.Explanation
	}
	viewer.do("GET", pbase+"/lookup?path=/blog/x/1&version=draft", nil).want(t, 200).decode(t, &lk)
	ex := lk.Explanation
	if lk.Version != "draft" || lk.Answer["destination"] != "https://blog.example.com/" || ex.Answer == nil || ex.Answer.ID != blog.ID ||
		len(ex.Candidates) != 2 || !ex.Candidates[0].Answers || ex.Candidates[1].Answers || ex.Candidates[1].Reason == "" {
		t.Fatalf("explained lookup = %+v", lk)
	}
	lk.Answer = nil
	viewer.do("GET", pbase+"/lookup?path=/nothing&version=live", nil).want(t, 200).decode(t, &lk)
	if lk.Version != float64(2) || lk.Answer != nil || lk.Explanation.Answer != nil || len(lk.Explanation.Candidates) != 0 {
		t.Fatalf("lookup with no answer = %+v", lk)
	}
	viewer.do("GET", pbase+"/lookup?path=/old&version=1", nil).want(t, 200).decode(t, &lk)
	if lk.Answer["destination"] != "/new" || lk.Explanation.Answer == nil || lk.Explanation.Answer.ID != o.rule.ID {
		t.Fatalf("lookup of version 1 = %+v", lk)
	}
	viewer.do("GET", pbase+"/lookup?path=/old&version=-1", nil).want(t, 400, codeInvalidQuery)

	// A host: rules without one answer it; a malformed or repeated host
	// is refused naming the parameter.
	viewer.do("GET", pbase+"/lookup?path=/old&version=1&host=WWW.Example.com:443", nil).want(t, 200).decode(t, &lk)
	if lk.Answer["destination"] != "/new" {
		t.Fatalf("lookup of version 1 on a host = %+v", lk)
	}
	for _, q := range []string{"&host=*.example.com", "&host=a_b.example", "&host=a.example&host=b.example"} {
		_, msg := viewer.do("GET", pbase+"/lookup?path=/old&version=1"+q, nil).want(t, 400, codeInvalidQuery).errBody(t)
		if !strings.Contains(msg, `"host"`) {
			t.Errorf("%s: %q, want a message naming host", q, msg)
		}
	}
	// host: the lookup's host, which host-less rules answer too; a
	// malformed or repeated one is refused.
	viewer.do("GET", pbase+"/lookup?path=/old&version=1&host=Example.com", nil).want(t, 200).decode(t, &lk)
	if lk.Answer["destination"] != "/new" || lk.Explanation.Host != "Example.com" {
		t.Fatalf("lookup on a host = %+v", lk)
	}
	viewer.do("GET", pbase+"/lookup?path=/old&host=a%20b", nil).want(t, 400, codeInvalidQuery)
	viewer.do("GET", pbase+"/lookup?path=/old&host=a.example&host=b.example", nil).want(t, 400, codeInvalidQuery)
}

func ptr[T any](v T) *T { return &v }
