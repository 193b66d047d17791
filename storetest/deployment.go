package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"redirects"
	"redirects/service"
)

func testDeployVersions(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	e.rule(p.ID, "/b", "/x", redirects.StartsWith, 100)
	e.rule(p.ID, "/c", "/x", redirects.StartsWith, 100)
	var times []time.Time
	for v := 1; v <= 3; v++ {
		times = append(times, e.clock.Add(time.Minute))
		d := e.deploy(p.ID, redirects.DeployOptions{Message: fmt.Sprintf("release %d", v)})
		if d.Version != v || d.ProjectID != p.ID || d.FromVersion != 0 {
			t.Errorf("Deploy #%d = version %d of %s from %d, want version %d of %s from 0", v, d.Version, d.ProjectID, d.FromVersion, v, p.ID)
		}
		if d.ExactCount != 1 || d.PrefixCount != 2 {
			t.Errorf("Deploy #%d counts = %d exact, %d prefix; want 1, 2", v, d.ExactCount, d.PrefixCount)
		}
		if d.Report != "3 rules rendered" {
			t.Errorf("Deploy #%d Report = %q, want the builder's", v, d.Report)
		}
		wantTime(t, "Deploy CreatedAt", d.CreatedAt, times[v-1])
	}
	ds, err := e.s.FindDeployments(e.ctx, p.ID)
	if err != nil {
		t.Fatalf("FindDeployments: %v", err)
	}
	if len(ds) != 3 {
		t.Fatalf("FindDeployments = %d deployments, want 3", len(ds))
	}
	for i, d := range ds {
		if d.Version != i+1 || d.Message != fmt.Sprintf("release %d", i+1) || d.ExactCount != 1 || d.PrefixCount != 2 || d.Report != "3 rules rendered" {
			t.Errorf("FindDeployments[%d] = %+v, want version %d as deployed", i, d, i+1)
		}
		wantTime(t, "found CreatedAt", d.CreatedAt, times[i])
	}

	// Another project counts its own versions.
	q := e.project(p.OrgID, "other")
	if d := e.deploy(q.ID, redirects.DeployOptions{}); d.Version != 1 {
		t.Errorf("first deploy of another project = version %d, want 1", d.Version)
	}
}

func testDeploySnapshotImmutable(t *testing.T, e *env) {
	p := e.newProject()
	a := e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	b := e.rule(p.ID, "/b", "/x", redirects.StartsWith, 100)
	e.deploy(p.ID, redirects.DeployOptions{})

	if err := e.s.DeleteRule(e.ctx, p.ID, a.ID); err != nil {
		t.Fatalf("DeleteRule: %v", err)
	}
	e.rule(p.ID, "/c", "/x", redirects.Exact, 100)
	if _, err := e.s.ImportRules(e.ctx, p.ID, batch("/d", "/e*"), false); err != nil {
		t.Fatalf("ImportRules: %v", err)
	}
	d, rules, err := e.s.FindDeployment(e.ctx, p.ID, 1)
	if err != nil {
		t.Fatalf("FindDeployment(1): %v", err)
	}
	if d.Version != 1 {
		t.Errorf("FindDeployment(1) = version %d", d.Version)
	}
	wantRules(t, "version 1 after draft edits", rules, []redirects.Rule{*a, *b})
	_, body := e.export(p.ID, 1, "csv")
	if want := "csv 2\n/a /x\n/b /x\n"; string(body.Body) != want {
		t.Errorf("version 1 csv after draft edits = %q, want %q", body.Body, want)
	}

	if _, err := e.s.ImportRules(e.ctx, p.ID, batch("/z"), true); err != nil {
		t.Fatalf("ImportRules(replace): %v", err)
	}
	_, rules, err = e.s.FindDeployment(e.ctx, p.ID, 1)
	if err != nil {
		t.Fatalf("FindDeployment(1): %v", err)
	}
	wantRules(t, "version 1 after replacing the draft", rules, []redirects.Rule{*a, *b})
}

func (e *env) export(projectID string, version int, format string) (*redirects.Deployment, *redirects.Export) {
	e.t.Helper()
	d, x, err := e.s.FindExport(e.ctx, projectID, version, format)
	if err != nil {
		e.t.Fatalf("FindExport(%d, %s): %v", version, format, err)
	}
	return d, x
}

func testDeployRollback(t *testing.T, e *env) {
	p := e.newProject()
	a := e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	e.deploy(p.ID, redirects.DeployOptions{Message: "one"})
	if err := e.s.DeleteRule(e.ctx, p.ID, a.ID); err != nil {
		t.Fatalf("DeleteRule: %v", err)
	}
	b := e.rule(p.ID, "/b", "/y", redirects.StartsWith, 100)
	e.deploy(p.ID, redirects.DeployOptions{Message: "two"})

	at := e.clock.Add(time.Hour)
	var seen []redirects.Rule
	d, err := service.DeployUnchecked(e.ctx, e.s, p.ID, redirects.DeployOptions{Message: "back to one", FromVersion: 1}, func(rules []redirects.Rule, _ redirects.Settings) (*redirects.DeployContent, error) {
		seen = slices.Clone(rules)
		return build(rules, redirects.Settings{})
	})
	if err != nil {
		t.Fatalf("Deploy(FromVersion 1): %v", err)
	}
	if d.Version != 3 || d.FromVersion != 1 || d.Message != "back to one" || d.ExactCount != 1 || d.PrefixCount != 0 {
		t.Errorf("rollback = %+v, want version 3 from 1 with one exact rule", d)
	}
	wantTime(t, "rollback CreatedAt", d.CreatedAt, at)
	wantRules(t, "rules given to the builder", seen, []redirects.Rule{*a})
	got, rules, err := e.s.FindDeployment(e.ctx, p.ID, 0)
	if err != nil {
		t.Fatalf("FindDeployment(0): %v", err)
	}
	if got.Version != 3 || got.FromVersion != 1 {
		t.Errorf("latest = version %d from %d, want 3 from 1", got.Version, got.FromVersion)
	}
	wantRules(t, "version 3", rules, []redirects.Rule{*a})
	wantRules(t, "draft after a rollback", e.rules(p.ID), []redirects.Rule{*b})
}

func testDeployUnknownVersion(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	e.deploy(p.ID, redirects.DeployOptions{})
	called := false
	_, err := service.DeployUnchecked(e.ctx, e.s, p.ID, redirects.DeployOptions{FromVersion: 9}, func(rules []redirects.Rule, _ redirects.Settings) (*redirects.DeployContent, error) {
		called = true
		return build(rules, redirects.Settings{})
	})
	wantCode(t, "Deploy(FromVersion 9)", err, redirects.ENOTFOUND, "9")
	if called {
		t.Errorf("Deploy(FromVersion 9) called the builder")
	}
	if d := e.deploy(p.ID, redirects.DeployOptions{}); d.Version != 2 {
		t.Errorf("deploy after a failed rollback = version %d, want 2", d.Version)
	}
}

func testDeployBuilderError(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	last, err := e.s.LastEventID(e.ctx)
	if err != nil {
		t.Fatalf("LastEventID: %v", err)
	}
	errBuild := errors.New("renderer broke")
	_, err = service.DeployUnchecked(e.ctx, e.s, p.ID, redirects.DeployOptions{}, func(_ []redirects.Rule, _ redirects.Settings) (*redirects.DeployContent, error) {
		return nil, errBuild
	})
	if !errors.Is(err, errBuild) {
		t.Fatalf("Deploy with a failing builder = %v, want the builder's error", err)
	}
	ds, err := e.s.FindDeployments(e.ctx, p.ID)
	if err != nil || len(ds) != 0 {
		t.Errorf("FindDeployments after a failed deploy = %d, %v; want none", len(ds), err)
	}
	_, _, err = e.s.FindDeployment(e.ctx, p.ID, 1)
	wantCode(t, "FindDeployment(1) after a failed deploy", err, redirects.ENOTFOUND)
	if now, err := e.s.LastEventID(e.ctx); err != nil || now != last {
		t.Errorf("LastEventID after a failed deploy = %d, %v; want %d (no event)", now, err, last)
	}
	if d := e.deploy(p.ID, redirects.DeployOptions{}); d.Version != 1 {
		t.Errorf("deploy after a failed one = version %d, want 1", d.Version)
	}
}

// testDeployStreamedExports deploys with a builder that hands its files
// over one at a time (DeployContent.Each, as export.Stream does): the store
// writes each before it asks for the next, so a file's bytes overwritten
// after it was handed over do not reach the store; a failure of Each, or
// a file repeated in it, stores nothing, as a builder error does.
func testDeployStreamedExports(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	formats := []string{"csv", "nginx", "haproxy"}
	stream := func(fail error, repeat bool) redirects.Builder {
		return func(_ []redirects.Rule, _ redirects.Settings) (*redirects.DeployContent, error) {
			return &redirects.DeployContent{Report: "streamed", Each: func(yield func(*redirects.Export) error) error {
				for i, f := range formats {
					if fail != nil && i == 2 {
						return fail
					}
					if repeat && i == 2 {
						f = formats[0]
					}
					body := []byte("file " + f)
					if err := yield(&redirects.Export{Format: f, Body: body, ETag: etag(body)}); err != nil {
						return err
					}
					// Handed over: a store that kept it to write later
					// would write these bytes instead.
					for j := range body {
						body[j] = 'X'
					}
				}
				return nil
			}}, nil
		}
	}
	last, err := e.s.LastEventID(e.ctx)
	if err != nil {
		t.Fatalf("LastEventID: %v", err)
	}
	errStream := errors.New("the third file broke")
	if _, err := service.DeployUnchecked(e.ctx, e.s, p.ID, redirects.DeployOptions{}, stream(errStream, false)); !errors.Is(err, errStream) {
		t.Fatalf("Deploy with a failing Each = %v, want its error", err)
	}
	if _, err := service.DeployUnchecked(e.ctx, e.s, p.ID, redirects.DeployOptions{}, stream(nil, true)); redirects.ErrorCode(err) != redirects.EINTERNAL {
		t.Fatalf("Deploy with a file repeated in Each = %v, want EINTERNAL", err)
	}
	if ds, err := e.s.FindDeployments(e.ctx, p.ID); err != nil || len(ds) != 0 {
		t.Fatalf("FindDeployments after failed streamed deploys = %d, %v; want none", len(ds), err)
	}
	_, _, err = e.s.FindExport(e.ctx, p.ID, 1, "csv")
	wantCode(t, "FindExport(1, csv) after failed streamed deploys", err, redirects.ENOTFOUND)
	if now, err := e.s.LastEventID(e.ctx); err != nil || now != last {
		t.Errorf("LastEventID after failed streamed deploys = %d, %v; want %d (no event)", now, err, last)
	}

	d, err := service.DeployUnchecked(e.ctx, e.s, p.ID, redirects.DeployOptions{}, stream(nil, false))
	if err != nil {
		t.Fatalf("Deploy with a streaming builder: %v", err)
	}
	if d.Version != 1 || d.Report != "streamed" {
		t.Fatalf("deployment %+v: want version 1 with the builder's report", d)
	}
	for _, f := range formats {
		_, x, err := e.s.FindExport(e.ctx, p.ID, 1, f)
		if err != nil {
			t.Fatalf("FindExport(1, %s): %v", f, err)
		}
		if want := "file " + f; string(x.Body) != want || x.ETag != etag([]byte(want)) {
			t.Errorf("export %s = %q %s; want %q as handed over (written before the next was asked for)", f, x.Body, x.ETag, want)
		}
	}
	if _, _, err := e.s.FindExport(e.ctx, p.ID, 1, "nginx-map-exact"); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Errorf("FindExport of a format the builder did not render = %v, want ENOTFOUND", err)
	}
}

func testDeployBuilderSeesSortedRules(t *testing.T, e *env) {
	p := e.newProject()
	if _, err := e.s.ImportRules(e.ctx, p.ID, batch("/z", "/b*", "/a", "/bb*", "/m*"), false); err != nil {
		t.Fatalf("ImportRules: %v", err)
	}
	e.rule(p.ID, "/first", "/x", redirects.StartsWith, 0)
	draft := e.rules(p.ID)
	var seen []redirects.Rule
	d, err := service.DeployUnchecked(e.ctx, e.s, p.ID, redirects.DeployOptions{}, func(rules []redirects.Rule, _ redirects.Settings) (*redirects.DeployContent, error) {
		seen = slices.Clone(rules)
		return build(rules, redirects.Settings{})
	})
	if err != nil {
		t.Fatalf("Deploy: %v", err)
	}
	wantRules(t, "rules given to the builder", seen, sorted(draft...))
	wantRules(t, "rules given to the builder", seen, draft)
	_, rules, err := e.s.FindDeployment(e.ctx, p.ID, d.Version)
	if err != nil {
		t.Fatalf("FindDeployment: %v", err)
	}
	wantRules(t, "deployed rules", rules, draft)
}

func testDeployBuilderCannotChangeSnapshot(t *testing.T, e *env) {
	p := e.newProject()
	a := e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	b := e.rule(p.ID, "/b", "/y", redirects.StartsWith, 100)
	d, err := service.DeployUnchecked(e.ctx, e.s, p.ID, redirects.DeployOptions{}, func(rules []redirects.Rule, _ redirects.Settings) (*redirects.DeployContent, error) {
		c, err := build(rules, redirects.Settings{})
		rules[0].Destination = "/changed"
		rules[0], rules[1] = rules[1], rules[0]
		return c, err
	})
	if err != nil {
		t.Fatalf("Deploy: %v", err)
	}
	if d.ExactCount != 1 || d.PrefixCount != 1 {
		t.Errorf("counts = %d exact, %d prefix; want 1, 1", d.ExactCount, d.PrefixCount)
	}
	wantRules(t, "snapshot after the builder edited its rules", mustRules(t, e, p.ID, 1), []redirects.Rule{*a, *b})
}

func testDeployExports(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	d1 := e.deploy(p.ID, redirects.DeployOptions{})
	e.rule(p.ID, "/b", "/y", redirects.Exact, 100)
	d2 := e.deploy(p.ID, redirects.DeployOptions{})

	want1, _ := build(mustRules(t, e, p.ID, 1), redirects.Settings{})
	want2, _ := build(e.rules(p.ID), redirects.Settings{})
	for _, tc := range []struct {
		version int
		want    *redirects.DeployContent
		d       *redirects.Deployment
	}{{1, want1, d1}, {2, want2, d2}, {0, want2, d2}} {
		for _, w := range tc.want.Exports {
			d, x := e.export(p.ID, tc.version, w.Format)
			if d.Version != tc.d.Version || d.ProjectID != p.ID {
				t.Errorf("FindExport(%d, %s) deployment = version %d of %s, want %d of %s", tc.version, w.Format, d.Version, d.ProjectID, tc.d.Version, p.ID)
			}
			wantTime(t, "export's deployment CreatedAt", d.CreatedAt, tc.d.CreatedAt)
			if x.Format != w.Format || string(x.Body) != string(w.Body) || x.ETag != w.ETag {
				t.Errorf("FindExport(%d, %s) = %s %q %s, want %s %q %s", tc.version, w.Format, x.Format, x.Body, x.ETag, w.Format, w.Body, w.ETag)
			}
		}
	}
	_, _, err := e.s.FindExport(e.ctx, p.ID, 1, "apache")
	wantCode(t, "FindExport(unknown format)", err, redirects.ENOTFOUND, "apache")
	_, _, err = e.s.FindExport(e.ctx, p.ID, 3, "csv")
	wantCode(t, "FindExport(unknown version)", err, redirects.ENOTFOUND, "3")
	_, _, err = e.s.FindExport(e.ctx, "prj_nope", 0, "csv")
	wantCode(t, "FindExport(unknown project)", err, redirects.ENOTFOUND, "prj_nope")
}

func mustRules(t *testing.T, e *env, projectID string, version int) []redirects.Rule {
	t.Helper()
	_, rules, err := e.s.FindDeployment(e.ctx, projectID, version)
	if err != nil {
		t.Fatalf("FindDeployment(%d): %v", version, err)
	}
	return rules
}

func testDeployNotFound(t *testing.T, e *env) {
	p := e.newProject()
	_, _, err := e.s.FindDeployment(e.ctx, p.ID, 0)
	wantCode(t, "FindDeployment(latest, none deployed)", err, redirects.ENOTFOUND, p.ID)
	_, _, err = e.s.FindExport(e.ctx, p.ID, 0, "csv")
	wantCode(t, "FindExport(latest, none deployed)", err, redirects.ENOTFOUND, p.ID)
	ds, err := e.s.FindDeployments(e.ctx, p.ID)
	if err != nil || len(ds) != 0 {
		t.Errorf("FindDeployments(none deployed) = %d, %v; want none", len(ds), err)
	}

	e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	e.deploy(p.ID, redirects.DeployOptions{})
	d, _, err := e.s.FindDeployment(e.ctx, p.ID, 0)
	if err != nil || d.Version != 1 {
		t.Errorf("FindDeployment(latest) = %v, %v; want version 1", d, err)
	}
	_, _, err = e.s.FindDeployment(e.ctx, p.ID, 2)
	wantCode(t, "FindDeployment(2)", err, redirects.ENOTFOUND, p.ID, "2")

	_, _, err = e.s.FindDeployment(e.ctx, "prj_nope", 0)
	wantCode(t, "FindDeployment(unknown project)", err, redirects.ENOTFOUND, "prj_nope")
	_, err = e.s.FindDeployments(e.ctx, "prj_nope")
	wantCode(t, "FindDeployments(unknown project)", err, redirects.ENOTFOUND, "prj_nope")
	called := false
	_, err = service.DeployUnchecked(e.ctx, e.s, "prj_nope", redirects.DeployOptions{}, func(rules []redirects.Rule, _ redirects.Settings) (*redirects.DeployContent, error) {
		called = true
		return build(rules, redirects.Settings{})
	})
	wantCode(t, "Deploy(unknown project)", err, redirects.ENOTFOUND, "prj_nope")
	if called {
		t.Errorf("Deploy(unknown project) called the builder")
	}
}
