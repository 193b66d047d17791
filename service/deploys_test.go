package service_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"redirects"
	"redirects/safety"
	"redirects/service"
	"redirects/sqlite"
)

// deployEnv is the deploy service over a real SQLite file: an
// organization with a project and its draft, and another organization
// with a project of its own.
type deployEnv struct {
	t       *testing.T
	db      *sqlite.DB
	svc     redirects.DeployService
	org     *redirects.Org
	project *redirects.Project
	other   *redirects.Project
}

func newDeployEnv(t *testing.T) *deployEnv {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "redirects.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := &deployEnv{t: t, db: db, svc: service.New(service.Deps{Store: db, Accounts: db}).Services().Deploys}
	var otherOrg *redirects.Org
	for _, o := range []**redirects.Org{&e.org, &otherOrg} {
		*o = &redirects.Org{Name: "Acme", Tier: redirects.TierFree}
		if err := db.CreateOrg(ctx, *o); err != nil {
			t.Fatal(err)
		}
	}
	e.project = &redirects.Project{OrgID: e.org.ID, Name: "site"}
	e.other = &redirects.Project{OrgID: otherOrg.ID, Name: "theirs"}
	for _, p := range []*redirects.Project{e.project, e.other} {
		if err := db.CreateProject(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	e.rule(e.project.ID, "/old", "/new")
	e.rule(e.other.ID, "/x", "/y")
	return e
}

func (e *deployEnv) rule(projectID, source, dest string) *redirects.Rule {
	e.t.Helper()
	r := &redirects.Rule{ProjectID: projectID, Source: source, Destination: dest, StatusCode: 301, MatchType: redirects.Exact, Priority: 100}
	if err := e.db.AddRule(context.Background(), r); err != nil {
		e.t.Fatal(err)
	}
	return r
}

// as is a context with a principal of role in the environment's
// organization ("" for none at all).
func (e *deployEnv) as(role redirects.Role) context.Context {
	p := redirects.Principal{Roles: map[string]redirects.Role{}}
	if role != "" {
		p.Roles[e.org.ID] = role
	}
	return redirects.WithPrincipal(context.Background(), p)
}

func wantDeployCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if redirects.ErrorCode(err) != code {
		t.Fatalf("%s: error %v (code %q); want code %s", what, err, redirects.ErrorCode(err), code)
	}
}

// TestDeployAuthorization holds each operation to its action: a viewer
// reads, an editor deploys and changes the test file, and a caller with
// no role in the project's organization hears it does not exist, in the
// store's words.
func TestDeployAuthorization(t *testing.T) {
	e := newDeployEnv(t)
	id := e.project.ID
	viewer, editor, stranger := e.as(redirects.RoleViewer), e.as(redirects.RoleEditor), e.as("")

	writes := map[string]func(ctx context.Context) error{
		"Deploy": func(ctx context.Context) error {
			_, _, err := e.svc.Deploy(ctx, id, redirects.DeployOptions{Stage: true})
			return err
		},
		"SetTests": func(ctx context.Context) error {
			_, err := e.svc.SetTests(ctx, id, "path,status,destination\n/old,301,/new\n")
			return err
		},
		"DeleteTests": func(ctx context.Context) error { return e.svc.DeleteTests(ctx, id) },
		"Promote": func(ctx context.Context) error {
			_, err := e.svc.Promote(ctx, id, 1)
			return err
		},
		"Discard": func(ctx context.Context) error { return e.svc.Discard(ctx, id, 1) },
	}
	reads := map[string]func(ctx context.Context) error{
		"CheckDeploy": func(ctx context.Context) error {
			_, err := e.svc.CheckDeploy(ctx, id, redirects.DeployOptions{})
			return err
		},
		"Deployments": func(ctx context.Context) error {
			_, err := e.svc.Deployments(ctx, id)
			return err
		},
		"RuleSet": func(ctx context.Context) error {
			_, err := e.svc.RuleSet(ctx, id, "draft", false)
			return err
		},
		"Lookup": func(ctx context.Context) error {
			_, err := e.svc.Lookup(ctx, id, "draft", "", "/old")
			return err
		},
		"Tests": func(ctx context.Context) error {
			_, err := e.svc.Tests(ctx, id)
			return err
		},
	}
	for name, op := range writes {
		wantDeployCode(t, name+" by a viewer", op(viewer), redirects.EFORBIDDEN)
		err := op(stranger)
		wantDeployCode(t, name+" by a stranger", err, redirects.ENOTFOUND)
		if want := `project "` + id + `" not found`; redirects.ErrorMessage(err) != want {
			t.Fatalf("%s by a stranger: %q; want the store's words %q", name, redirects.ErrorMessage(err), want)
		}
		wantDeployCode(t, name+" with no principal", op(context.Background()), redirects.ENOTFOUND)
	}
	for name, op := range reads {
		if err := op(viewer); err != nil {
			t.Fatalf("%s by a viewer: %v", name, err)
		}
		wantDeployCode(t, name+" by a stranger", op(stranger), redirects.ENOTFOUND)
	}
	// An editor stages version 1, promotes it, and a second staged
	// version is discarded.
	for _, name := range []string{"SetTests", "Deploy", "Promote", "DeleteTests"} {
		if err := writes[name](editor); err != nil {
			t.Fatalf("%s by an editor: %v", name, err)
		}
	}
	if _, _, err := e.svc.Deploy(editor, id, redirects.DeployOptions{Stage: true}); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.Discard(editor, id, 2); err != nil {
		t.Fatalf("Discard by an editor: %v", err)
	}
	// Another organization's project is missing to this editor.
	_, _, err := e.svc.Deploy(editor, e.other.ID, redirects.DeployOptions{})
	wantDeployCode(t, "Deploy of another organization's project", err, redirects.ENOTFOUND)
	_, _, err = e.svc.Version(editor, e.other.ID, 0)
	wantDeployCode(t, "Version of another organization's project", err, redirects.ENOTFOUND)
	_, _, err = e.svc.Export(editor, e.other.ID, 0, "csv")
	wantDeployCode(t, "Export of another organization's project", err, redirects.ENOTFOUND)
}

// TestDeployGate deploys through the gate: a loop blocks the deploy with
// the report and nothing written, a forced deploy goes past it and
// records only the override it needed.
func TestDeployGate(t *testing.T) {
	e := newDeployEnv(t)
	ctx, id := e.as(redirects.RoleEditor), e.project.ID
	d, g, err := e.svc.Deploy(ctx, id, redirects.DeployOptions{Message: "first", Override: redirects.DeployOverride{AllowShrink: true}})
	if err != nil || d.Version != 1 || !d.Live || g == nil || g.Target != "the draft" || len(g.Blocked) != 0 {
		t.Fatalf("Deploy = %+v, %+v, %v; want version 1 live with a clean report", d, g, err)
	}
	if d.Override.AllowShrink {
		t.Fatal("the deploy records allowShrink, which it did not need")
	}
	e.rule(id, "/new", "/old")
	g, err = e.svc.CheckDeploy(ctx, id, redirects.DeployOptions{})
	if err != nil || g.Errors == 0 || len(g.Blocked) != 1 {
		t.Fatalf("CheckDeploy = %+v, %v; want the loop, blocking", g, err)
	}
	_, g, err = e.svc.Deploy(ctx, id, redirects.DeployOptions{})
	var be *redirects.DeployBlockedError
	if !errors.As(err, &be) || redirects.ErrorCode(err) != redirects.ECONFLICT || g == nil || be.Result != g {
		t.Fatalf("Deploy of a loop = %+v, %v; want it blocked with the report", g, err)
	}
	if ds, _ := e.svc.Deployments(ctx, id); len(ds) != 1 {
		t.Fatalf("%d deployments after the blocked deploy; want the 1 before it", len(ds))
	}
	d, g, err = e.svc.Deploy(ctx, id, redirects.DeployOptions{Override: redirects.DeployOverride{Force: true, Reason: "fixed upstream"}})
	if err != nil || d.Version != 2 || !g.Forced || !d.Override.Force || d.Override.Reason != "fixed upstream" {
		t.Fatalf("forced Deploy = %+v, %+v, %v; want version 2 forced with its reason", d, g, err)
	}
	// A rollback deploys version 1's rules again.
	d, g, err = e.svc.Deploy(ctx, id, redirects.DeployOptions{FromVersion: 1})
	if err != nil || d.FromVersion != 1 || g.Target != "version 1" {
		t.Fatalf("rollback = %+v, %+v, %v", d, g, err)
	}
}

// TestDeployReads reads what deploys wrote: versions with their rules,
// export files, the rule sets the checks read, and the test file.
func TestDeployReads(t *testing.T) {
	e := newDeployEnv(t)
	ctx, id := e.as(redirects.RoleViewer), e.project.ID
	editor := e.as(redirects.RoleEditor)

	if _, _, err := e.svc.Version(ctx, id, 0); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Fatalf("Version of nothing deployed: %v; want ENOTFOUND", err)
	}
	rs, err := e.svc.RuleSet(ctx, id, "live", true)
	if err != nil || rs.Name != "nothing deployed" || len(rs.Rules) != 0 {
		t.Fatalf("RuleSet(live) of nothing deployed = %+v, %v", rs, err)
	}
	if _, _, err := e.svc.Deploy(editor, id, redirects.DeployOptions{}); err != nil {
		t.Fatal(err)
	}
	d, rules, err := e.svc.Version(ctx, id, 0)
	if err != nil || d.Version != 1 || len(rules) != 1 || rules[0].Source != "/old" {
		t.Fatalf("Version(0) = %+v, %+v, %v; want version 1 and its rule", d, rules, err)
	}
	_, x, err := e.svc.Export(ctx, id, 1, "csv")
	if err != nil || !strings.Contains(string(x.Body), "/old") {
		t.Fatalf("Export(csv) = %+v, %v", x, err)
	}
	for spec, name := range map[string]string{"draft": "the draft", "live": "version 1 (live)", "1": "version 1"} {
		rs, err := e.svc.RuleSet(ctx, id, spec, false)
		if err != nil || rs.Name != name || len(rs.Rules) != 1 {
			t.Fatalf("RuleSet(%s) = %+v, %v; want %q with one rule", spec, rs, err, name)
		}
	}
	_, err = e.svc.RuleSet(ctx, id, "0", false)
	wantDeployCode(t, "RuleSet(0)", err, redirects.EINVALID)

	// Lookup answers with the edge's engine and body; a bad path, host or
	// version is refused naming it.
	if res, err := e.svc.Lookup(ctx, id, "live", "WWW.Example.com:443", "/old?x=1"); err != nil || res.Version != 1 || res.Draft ||
		string(res.Body) != `{"destination":"/new","statusCode":301,"matchType":"exact"}` {
		t.Fatalf("Lookup(live, /old) = %+v, %v", res, err)
	}
	if res, err := e.svc.Lookup(ctx, id, "draft", "", "/nothing"); err != nil || !res.Draft || res.Body != nil {
		t.Fatalf("Lookup(draft, /nothing) = %+v, %v; want no answer", res, err)
	}
	for _, c := range []struct{ spec, host, path, want string }{
		{"live", "*.example.com", "/old", "host"},
		{"live", "a_b", "/old", "host"},
		{"live", "", "old", "path"},
		{"live", "", "/a%zz", "%"},
		{"0", "", "/old", "0"},
	} {
		_, err := e.svc.Lookup(ctx, id, c.spec, c.host, c.path)
		wantDeployCode(t, "Lookup("+c.spec+", "+c.host+", "+c.path+")", err, redirects.EINVALID)
		if err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("Lookup(%s, %q, %q): %v, want it to name %s", c.spec, c.host, c.path, err, c.want)
		}
	}
	if _, err := e.svc.Lookup(ctx, id, "9", "", "/old"); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Errorf("Lookup of version 9: %v, want ENOTFOUND", err)
	}
	if _, err := e.db.SetProjectHosts(context.Background(), id, []string{"www.example.com"}); err != nil {
		t.Fatal(err)
	}
	if rs, err := e.svc.RuleSet(ctx, id, "1", false); err != nil || len(rs.Hosts) != 1 || rs.Hosts[0] != "www.example.com" {
		t.Fatalf("RuleSet(1) = %+v, %v; want the project's hosts with it", rs, err)
	}

	if csv, err := e.svc.Tests(ctx, id); err != nil || csv != "" {
		t.Fatalf("Tests of a project without = %q, %v", csv, err)
	}
	file := "path,status,destination\n/old,301,/new\n/gone,none,\n"
	if n, err := e.svc.SetTests(editor, id, file); err != nil || n != 2 {
		t.Fatalf("SetTests = %d, %v; want 2 cases", n, err)
	}
	if csv, err := e.svc.Tests(ctx, id); err != nil || csv != file {
		t.Fatalf("Tests = %q, %v; want the file byte for byte", csv, err)
	}
	_, err = e.svc.SetTests(editor, id, "path,status,destination\n/a,999,/b\n")
	wantDeployCode(t, "SetTests(bad)", err, redirects.EINVALID)
	_, err = e.svc.SetTests(editor, id, "")
	wantDeployCode(t, "SetTests(empty)", err, redirects.EINVALID)
	// A failing case of the stored file blocks the next deploy.
	if _, err := e.svc.SetTests(editor, id, "path,status,destination\n/old,301,/elsewhere\n"); err != nil {
		t.Fatal(err)
	}
	_, g, err := e.svc.Deploy(editor, id, redirects.DeployOptions{})
	if redirects.ErrorCode(err) != redirects.ECONFLICT || g == nil || len(g.FailingCases) != 1 {
		t.Fatalf("Deploy with a failing case = %+v, %v; want it blocked", g, err)
	}
	if err := e.svc.DeleteTests(editor, id); err != nil {
		t.Fatal(err)
	}
	if csv, _ := e.svc.Tests(ctx, id); csv != "" {
		t.Fatalf("Tests after DeleteTests = %q", csv)
	}
}

// TestDeployGatePatterns: the gate of a deploy read from a real store
// follows pattern rules: a loop through :lang blocks the deploy; the test
// file's host column is run on the rules' hosts.
func TestDeployGatePatterns(t *testing.T) {
	e := newDeployEnv(t)
	ctx, id := e.as(redirects.RoleEditor), e.project.ID
	for _, r := range []redirects.Rule{
		{Source: "/:lang/guide/*", Destination: "/:lang/docs/:splat", MatchType: redirects.Pattern},
		{Source: "/:lang/docs/*", Destination: "/:lang/guide/:splat", MatchType: redirects.Pattern},
	} {
		r.ProjectID, r.StatusCode, r.Priority = id, 301, 100
		if err := e.db.AddRule(context.Background(), &r); err != nil {
			t.Fatal(err)
		}
	}
	_, g, err := e.svc.Deploy(ctx, id, redirects.DeployOptions{})
	if redirects.ErrorCode(err) != redirects.ECONFLICT || g == nil || g.Errors != 1 || g.Findings[0].Kind != "loop" {
		t.Fatalf("Deploy of a loop through :lang = %+v, %v; want it blocked by the loop", g, err)
	}
	hosted := redirects.Rule{ProjectID: id, Source: "/*", Destination: "https://example.com/:splat", MatchType: redirects.Pattern, Host: "old.example.com", StatusCode: 301, Priority: 100}
	if err := e.db.AddRule(context.Background(), &hosted); err != nil {
		t.Fatal(err)
	}
	rs, err := e.svc.RuleSet(ctx, id, "draft", false)
	if err != nil || len(rs.Rules) != 4 || !slices.ContainsFunc(rs.Rules, func(r redirects.Rule) bool { return r.ID == hosted.ID && r.Host == "old.example.com" }) {
		t.Fatalf("RuleSet(draft) = %+v, %v; want 4 rules, one of them on old.example.com", rs, err)
	}
	cases := []safety.Case{{Line: 2, Host: "old.example.com", Path: "/a/b", StatusCode: 301, Destination: "https://example.com/a/b"},
		{Line: 3, Path: "/a/b"}} // no host: the host-scoped rule does not answer
	for _, r := range safety.TargetOf(rs).RunCases(cases, safety.LintOptions{}) {
		if !r.Pass {
			t.Errorf("case %+v on a rule's host: %v", r.Case, r.Problems)
		}
	}
}
