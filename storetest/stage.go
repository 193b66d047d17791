package storetest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"redirects"
	"redirects/service"
)

// Staged deploys (docs/contract.md#staged-deploys): a staged version is
// stored and numbered, but the project's live pointer stays where it was
// until a promote moves it.

// stageState is what a test checks of a project's versions at once: which
// one is live (0: none), which are staged, in order.
type stageState struct {
	live   int
	staged []int
	all    []int
}

func (e *env) stageState(projectID string) stageState {
	e.t.Helper()
	ds, err := e.s.FindDeployments(e.ctx, projectID)
	if err != nil {
		e.t.Fatalf("FindDeployments: %v", err)
	}
	var st stageState
	for _, d := range ds {
		st.all = append(st.all, d.Version)
		if d.Live {
			if st.live != 0 {
				e.t.Fatalf("FindDeployments: versions %d and %d both live", st.live, d.Version)
			}
			st.live = d.Version
		}
		if d.Staged {
			st.staged = append(st.staged, d.Version)
		}
	}
	p, err := e.s.FindProjectByID(e.ctx, projectID)
	if err != nil {
		e.t.Fatalf("FindProjectByID: %v", err)
	}
	if p.LiveVersion != st.live {
		e.t.Fatalf("project's LiveVersion = %d, FindDeployments says %d is live", p.LiveVersion, st.live)
	}
	// The live version is what every read without a version answers.
	d, rules, err := e.s.FindDeployment(e.ctx, projectID, 0)
	switch {
	case st.live == 0:
		wantCode(e.t, "FindDeployment(0) with no live version", err, redirects.ENOTFOUND, "has no deployment")
		_, _, err := e.s.FindExport(e.ctx, projectID, 0, "csv")
		wantCode(e.t, "FindExport(0) with no live version", err, redirects.ENOTFOUND)
	case err != nil:
		e.t.Fatalf("FindDeployment(0): %v", err)
	default:
		if d.Version != st.live || !d.Live || d.Staged {
			e.t.Fatalf("FindDeployment(0) = version %d live %v staged %v, want live version %d", d.Version, d.Live, d.Staged, st.live)
		}
		// The live version's file, or, past the export retention, word
		// that the live version's files were pruned.
		dx, x, err := e.s.FindExport(e.ctx, projectID, 0, "csv")
		if redirects.IsExportsPruned(err) {
			if dx == nil || dx.Version != st.live {
				e.t.Fatalf("FindExport(0) pruned: %+v, want live version %d", dx, st.live)
			}
		} else if err != nil {
			e.t.Fatalf("FindExport(0): %v", err)
		} else if _, want := e.export(projectID, st.live, "csv"); dx.Version != st.live || string(x.Body) != string(want.Body) {
			e.t.Fatalf("FindExport(0) = version %d %q, want version %d's %q", dx.Version, x.Body, st.live, want.Body)
		}
		err = e.s.WithDeployTx(e.ctx, func(tx redirects.DeployTx) error {
			live, err := tx.FindLiveRules(e.ctx, projectID)
			if err == nil && !slices.Equal(sources(live), sources(rules)) {
				e.t.Errorf("FindLiveRules = %v, want the live version's %v", sources(live), sources(rules))
			}
			return err
		})
		if err != nil {
			e.t.Fatalf("FindLiveRules: %v", err)
		}
	}
	return st
}

func wantStage(t *testing.T, what string, got stageState, live int, staged, all []int) {
	t.Helper()
	if got.live != live || !slices.Equal(got.staged, staged) || !slices.Equal(got.all, all) {
		t.Fatalf("%s: live %d, staged %v, versions %v; want live %d, staged %v, versions %v", what, got.live, got.staged, got.all, live, staged, all)
	}
}

// deployEvents returns the versions of the project's deploy events.
func (e *env) deployEvents(projectID string) []int {
	e.t.Helper()
	var out []int
	for _, ev := range e.events() {
		if ev.Kind == redirects.EventDeploy && ev.ProjectID == projectID {
			out = append(out, ev.Version)
		}
	}
	return out
}

func testStageNotLive(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/a", "/one", redirects.Exact, 100)
	e.deploy(p.ID, redirects.DeployOptions{Message: "live"})
	e.rule(p.ID, "/b", "/two", redirects.Exact, 100)
	d := e.deploy(p.ID, redirects.DeployOptions{Message: "staged", Stage: true})
	if d.Version != 2 || !d.Staged || d.Live {
		t.Fatalf("staged deploy = version %d staged %v live %v, want 2, staged, not live", d.Version, d.Staged, d.Live)
	}
	wantStage(t, "after staging v2", e.stageState(p.ID), 1, []int{2}, []int{1, 2})
	// The staged version is there when asked for by number.
	got, rules, err := e.s.FindDeployment(e.ctx, p.ID, 2)
	if err != nil || !got.Staged || got.Live || len(rules) != 2 {
		t.Fatalf("FindDeployment(2) = %+v, %d rules, %v; want the staged version with 2 rules", got, len(rules), err)
	}
	if dx, x := e.export(p.ID, 2, "csv"); dx.Version != 2 || string(x.Body) != "csv 2\n/a /one\n/b /two\n" {
		t.Fatalf("FindExport(2) = version %d %q", dx.Version, x.Body)
	}
	// No event: edge nodes have nothing new to answer from.
	if evs := e.deployEvents(p.ID); !slices.Equal(evs, []int{1}) {
		t.Errorf("deploy events = %v, want [1] (a staged deploy records none)", evs)
	}
	entries := e.audit(redirects.AuditFilter{ProjectID: p.ID, Action: "deployment.*"})
	if got := auditActions(entries); !slices.Equal(got, []string{redirects.AuditStage, redirects.AuditDeploy}) {
		t.Errorf("audit actions = %v, want stage then create, newest first", got)
	}
	// The next deploy is numbered after the staged one, and goes live.
	d3 := e.deploy(p.ID, redirects.DeployOptions{})
	if d3.Version != 3 || !d3.Live {
		t.Fatalf("deploy after a staged one = version %d live %v, want 3 live", d3.Version, d3.Live)
	}
	wantStage(t, "after deploying v3", e.stageState(p.ID), 3, []int{2}, []int{1, 2, 3})
}

func testStageOnlyStaged(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/a", "/one", redirects.Exact, 100)
	e.deploy(p.ID, redirects.DeployOptions{Stage: true})
	// A project whose only version is staged answers as one with none.
	wantStage(t, "only staged", e.stageState(p.ID), 0, []int{1}, []int{1})
	if _, _, err := e.s.FindDeployment(e.ctx, p.ID, 1); err != nil {
		t.Fatalf("FindDeployment(1) of the staged version: %v", err)
	}
	err := e.s.WithDeployTx(e.ctx, func(tx redirects.DeployTx) error {
		_, err := tx.FindLiveRules(e.ctx, p.ID)
		return err
	})
	wantCode(t, "FindLiveRules with only a staged version", err, redirects.ENOTFOUND)
	if _, err := e.s.PromoteDeployment(e.ctx, p.ID, 1); err != nil {
		t.Fatalf("PromoteDeployment(1): %v", err)
	}
	wantStage(t, "promoted", e.stageState(p.ID), 1, nil, []int{1})
}

func testStagePromote(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/a", "/one", redirects.Exact, 100)
	e.deploy(p.ID, redirects.DeployOptions{})
	e.rule(p.ID, "/b", "/two", redirects.Exact, 100)
	e.deploy(p.ID, redirects.DeployOptions{Stage: true})
	_, before, err := e.s.FindDeployment(e.ctx, p.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	_, xBefore := e.export(p.ID, 2, "nginx")

	// Bad input changes nothing.
	for _, v := range []int{0, -1} {
		_, err := e.s.PromoteDeployment(e.ctx, p.ID, v)
		wantCode(t, "PromoteDeployment(bad version)", err, redirects.EINVALID, "positive")
	}
	_, err = e.s.PromoteDeployment(e.ctx, p.ID, 9)
	wantCode(t, "PromoteDeployment(unknown version)", err, redirects.ENOTFOUND, "version 9")
	_, err = e.s.PromoteDeployment(e.ctx, "prj_nope", 1)
	wantCode(t, "PromoteDeployment(unknown project)", err, redirects.ENOTFOUND, "prj_nope")
	wantStage(t, "after refused promotes", e.stageState(p.ID), 1, []int{2}, []int{1, 2})

	at := e.clock.Add(time.Minute)
	d, err := e.s.PromoteDeployment(e.ctx, p.ID, 2)
	if err != nil {
		t.Fatalf("PromoteDeployment(2): %v", err)
	}
	if d.Version != 2 || !d.Live || d.Staged {
		t.Fatalf("PromoteDeployment(2) = %+v, want version 2 live", d)
	}
	wantTime(t, "PromotedAt", d.PromotedAt, at)
	wantStage(t, "after promoting v2", e.stageState(p.ID), 2, nil, []int{1, 2})
	// The content stays as it was staged.
	_, after, err := e.s.FindDeployment(e.ctx, p.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantRules(t, "v2 after promote", after, before)
	if _, x := e.export(p.ID, 0, "nginx"); string(x.Body) != string(xBefore.Body) || x.ETag != xBefore.ETag {
		t.Fatalf("live nginx export after promote = %q %s, want the staged %q %s", x.Body, x.ETag, xBefore.Body, xBefore.ETag)
	}
	ds, err := e.s.FindDeployments(e.ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	wantTime(t, "listed PromotedAt", ds[1].PromotedAt, at)
	if !ds[0].PromotedAt.IsZero() {
		t.Errorf("v1 PromotedAt = %v, want zero (never promoted)", ds[0].PromotedAt)
	}

	// Promoting the previous live version undoes it.
	if _, err := e.s.PromoteDeployment(e.ctx, p.ID, 1); err != nil {
		t.Fatalf("PromoteDeployment(1): %v", err)
	}
	wantStage(t, "after promoting v1 back", e.stageState(p.ID), 1, nil, []int{1, 2})
	// Promoting the live version changes nothing and records nothing.
	evs := e.deployEvents(p.ID)
	if d, err := e.s.PromoteDeployment(e.ctx, p.ID, 1); err != nil || d.Version != 1 || !d.Live {
		t.Fatalf("PromoteDeployment(live) = %+v, %v", d, err)
	}
	if got := e.deployEvents(p.ID); !slices.Equal(got, evs) || !slices.Equal(got, []int{1, 2, 1}) {
		t.Errorf("deploy events = %v (before the no-op promote %v), want [1 2 1]", got, evs)
	}
	entries := e.audit(redirects.AuditFilter{ProjectID: p.ID, Action: redirects.AuditPromote})
	if len(entries) != 2 || entries[0].ObjectID != p.ID+"@1" || entries[1].ObjectID != p.ID+"@2" ||
		string(entries[1].Before) != `{"liveVersion":1,"staged":true}` || string(entries[1].After) != `{"liveVersion":2}` ||
		string(entries[0].Before) != `{"liveVersion":2}` || string(entries[0].After) != `{"liveVersion":1}` {
		for _, x := range entries {
			t.Logf("%s %s %s -> %s", x.Action, x.ObjectID, x.Before, x.After)
		}
		t.Fatalf("promote audit entries = %d, want v2's then v1's with the pointer moves", len(entries))
	}
	// A rollback stays a new live version.
	d3 := e.deploy(p.ID, redirects.DeployOptions{FromVersion: 2})
	if d3.Version != 3 || !d3.Live || d3.FromVersion != 2 {
		t.Fatalf("rollback = %+v, want version 3 live from 2", d3)
	}
	wantStage(t, "after a rollback", e.stageState(p.ID), 3, nil, []int{1, 2, 3})
}

func testStageDiscard(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/a", "/one", redirects.Exact, 100)
	e.deploy(p.ID, redirects.DeployOptions{})
	e.rule(p.ID, "/b", "/two", redirects.Exact, 100)
	e.deploy(p.ID, redirects.DeployOptions{Stage: true})

	err := e.s.DiscardDeployment(e.ctx, p.ID, 1)
	wantCode(t, "DiscardDeployment(live)", err, redirects.ECONFLICT, "live")
	err = e.s.DiscardDeployment(e.ctx, p.ID, 0)
	wantCode(t, "DiscardDeployment(0)", err, redirects.EINVALID, "positive")
	err = e.s.DiscardDeployment(e.ctx, p.ID, 7)
	wantCode(t, "DiscardDeployment(unknown)", err, redirects.ENOTFOUND, "version 7")
	wantStage(t, "after refused discards", e.stageState(p.ID), 1, []int{2}, []int{1, 2})

	if err := e.s.DiscardDeployment(e.ctx, p.ID, 2); err != nil {
		t.Fatalf("DiscardDeployment(2): %v", err)
	}
	wantStage(t, "after discarding v2", e.stageState(p.ID), 1, nil, []int{1})
	_, _, err = e.s.FindDeployment(e.ctx, p.ID, 2)
	wantCode(t, "FindDeployment(discarded)", err, redirects.ENOTFOUND, "version 2")
	_, _, err = e.s.FindExport(e.ctx, p.ID, 2, "csv")
	wantCode(t, "FindExport(discarded)", err, redirects.ENOTFOUND, "version 2")
	_, err = e.s.PromoteDeployment(e.ctx, p.ID, 2)
	wantCode(t, "PromoteDeployment(discarded)", err, redirects.ENOTFOUND, "version 2")
	err = e.s.DiscardDeployment(e.ctx, p.ID, 2)
	wantCode(t, "DiscardDeployment(twice)", err, redirects.ENOTFOUND, "version 2")
	_, err = deployErr(e, p.ID, redirects.DeployOptions{FromVersion: 2})
	wantCode(t, "rollback to a discarded version", err, redirects.ENOTFOUND, "version 2")
	// The discard's event makes edge nodes forget the version.
	if evs := e.deployEvents(p.ID); !slices.Equal(evs, []int{1, 2}) {
		t.Errorf("deploy events = %v, want [1 2] (the deploy, the discard)", evs)
	}
	entries := e.audit(redirects.AuditFilter{ProjectID: p.ID, Action: redirects.AuditDiscard})
	if len(entries) != 1 || entries[0].ObjectID != p.ID+"@2" || entries[0].After != nil {
		t.Fatalf("discard audit entries = %+v", entries)
	}
	// Its number is never handed out again, and the project says so.
	if got, err := e.s.FindProjectByID(e.ctx, p.ID); err != nil || got.NewestVersion != 2 || got.LiveVersion != 1 {
		t.Fatalf("project after the discard = %+v, %v; want newest version 2, live 1", got, err)
	}
	if d := e.deploy(p.ID, redirects.DeployOptions{Stage: true}); d.Version != 3 {
		t.Fatalf("deploy after a discard = version %d, want 3", d.Version)
	}
	// A promoted version is no longer staged: it cannot be discarded.
	if _, err := e.s.PromoteDeployment(e.ctx, p.ID, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.PromoteDeployment(e.ctx, p.ID, 1); err != nil {
		t.Fatal(err)
	}
	err = e.s.DiscardDeployment(e.ctx, p.ID, 3)
	wantCode(t, "DiscardDeployment(promoted once)", err, redirects.ECONFLICT, "not staged")
	err = e.s.DiscardDeployment(e.ctx, "prj_nope", 3)
	wantCode(t, "DiscardDeployment(unknown project)", err, redirects.ENOTFOUND, "prj_nope")
	wantStage(t, "at the end", e.stageState(p.ID), 1, nil, []int{1, 3})
}

// deployErr deploys without failing the test: for deploys that must be
// refused.
func deployErr(e *env, projectID string, opts redirects.DeployOptions) (*redirects.Deployment, error) {
	return service.DeployUnchecked(e.ctx, e.s, projectID, opts, build)
}

// testStageRetention: retention counts staged versions as any others.
func testStageRetention(t *testing.T, e *env) {
	p := e.newProject()
	if _, err := e.s.SetExportRetention(e.ctx, p.ID, 1); err != nil {
		t.Fatal(err)
	}
	e.rule(p.ID, "/a", "/one", redirects.Exact, 100)
	e.deploy(p.ID, redirects.DeployOptions{})
	e.deploy(p.ID, redirects.DeployOptions{Stage: true})
	// The staged v2 is the latest: the live v1 lost its files, not its
	// rules, and FindExport says so, for redirects.FindExport to render
	// them again.
	d, x, err := e.s.FindExport(e.ctx, p.ID, 0, "csv")
	if !redirects.IsExportsPruned(err) || x != nil || d == nil || d.Version != 1 {
		t.Fatalf("FindExport(0) after staging past the retention = %+v, %+v, %v; want v1 pruned", d, x, err)
	}
	if _, x := e.export(p.ID, 2, "csv"); string(x.Body) != "csv 1\n/a /one\n" {
		t.Fatalf("staged v2 csv = %q", x.Body)
	}
	e.deploy(p.ID, redirects.DeployOptions{Stage: true})
	_, _, err = e.s.FindExport(e.ctx, p.ID, 2, "csv")
	if !redirects.IsExportsPruned(err) {
		t.Fatalf("FindExport(2) after a newer staged version = %v, want pruned", err)
	}
	if _, rules, err := e.s.FindDeployment(e.ctx, p.ID, 2); err != nil || len(rules) != 1 {
		t.Fatalf("FindDeployment(2) after pruning = %d rules, %v", len(rules), err)
	}
}

func testStageRequireStage(t *testing.T, e *env) {
	p := e.newProject()
	if p.RequireStage {
		t.Fatal("a new project requires staged deploys")
	}
	e.rule(p.ID, "/a", "/one", redirects.Exact, 100)
	e.deploy(p.ID, redirects.DeployOptions{})
	got, err := e.s.SetProjectRequireStage(e.ctx, p.ID, true)
	if err != nil || !got.RequireStage {
		t.Fatalf("SetProjectRequireStage(true) = %+v, %v", got, err)
	}
	if got, err := e.s.FindProjectByID(e.ctx, p.ID); err != nil || !got.RequireStage {
		t.Fatalf("FindProjectByID after SetProjectRequireStage = %+v, %v", got, err)
	}
	_, err = e.s.SetProjectRequireStage(e.ctx, "prj_nope", true)
	wantCode(t, "SetProjectRequireStage(unknown)", err, redirects.ENOTFOUND, "prj_nope")

	// A plain deploy, and a plain rollback, are refused and change nothing.
	for _, opts := range []redirects.DeployOptions{{}, {FromVersion: 1}} {
		_, err := deployErr(e, p.ID, opts)
		wantCode(t, "plain deploy of a project that requires staging", err, redirects.ECONFLICT, "requires staged deploys", "--stage")
	}
	wantStage(t, "after refused deploys", e.stageState(p.ID), 1, nil, []int{1})
	if d := e.deploy(p.ID, redirects.DeployOptions{Stage: true}); d.Version != 2 || !d.Staged {
		t.Fatalf("staged deploy = %+v", d)
	}
	wantStage(t, "after a staged deploy", e.stageState(p.ID), 1, []int{2}, []int{1, 2})
	// Setting it again changes nothing and records nothing.
	if _, err := e.s.SetProjectRequireStage(e.ctx, p.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := e.s.SetProjectRequireStage(e.ctx, p.ID, false); err != nil {
		t.Fatal(err)
	}
	entries := e.audit(redirects.AuditFilter{ProjectID: p.ID, Action: redirects.AuditProjectUpdate})
	if len(entries) != 2 || string(entries[0].After) != `{"requireStage":false}` || string(entries[1].After) != `{"requireStage":true}` {
		t.Fatalf("project.update entries = %d, want 2 with requireStage", len(entries))
	}
	if d := e.deploy(p.ID, redirects.DeployOptions{}); d.Version != 3 || !d.Live {
		t.Fatalf("plain deploy once no longer required = %+v", d)
	}
}

// testStageModel runs random staged-deploy operations against the store
// and against a brute-force model written from docs/contract.md ("Staged
// deploys"), and compares after every one: the error's code, the live
// version, the staged and listed versions, the newest number handed out,
// and the live version's rules.
func testStageModel(t *testing.T, e *env) {
	type version struct {
		rules             int
		staged, discarded bool
	}
	var (
		model   = map[int]*version{}
		live    int
		newest  int
		require bool
		draft   int
	)
	p := e.newProject()
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 7))
	t.Logf("seed %d", seed)
	pick := func() int { return rng.IntN(newest+3) - 1 } // -1 .. newest+1
	for step := 0; step < 80; step++ {
		var what string
		var err error
		var wantCode string
		switch op := rng.IntN(6); op {
		case 0, 1: // a deploy, staged or plain; the draft grows first
			e.rule(p.ID, fmt.Sprintf("/r%d", draft), "/x", redirects.Exact, 100)
			draft++
			stage := op == 1
			what = fmt.Sprintf("deploy stage=%v", stage)
			_, err = deployErr(e, p.ID, redirects.DeployOptions{Stage: stage})
			if !stage && require {
				wantCode = redirects.ECONFLICT
				break
			}
			newest++
			model[newest] = &version{rules: draft, staged: stage}
			if !stage {
				live = newest
			}
		case 2, 3:
			v := pick()
			what = fmt.Sprintf("promote %d", v)
			_, err = e.s.PromoteDeployment(e.ctx, p.ID, v)
			m := model[v]
			switch {
			case v <= 0:
				wantCode = redirects.EINVALID
			case m == nil || m.discarded:
				wantCode = redirects.ENOTFOUND
			case live != v:
				live, m.staged = v, false
			}
		case 4:
			v := pick()
			what = fmt.Sprintf("discard %d", v)
			err = e.s.DiscardDeployment(e.ctx, p.ID, v)
			m := model[v]
			switch {
			case v <= 0:
				wantCode = redirects.EINVALID
			case m == nil || m.discarded:
				wantCode = redirects.ENOTFOUND
			case live == v || !m.staged:
				wantCode = redirects.ECONFLICT
			default:
				m.discarded = true
			}
		case 5:
			require = rng.IntN(2) == 0
			what = fmt.Sprintf("require stage %v", require)
			_, err = e.s.SetProjectRequireStage(e.ctx, p.ID, require)
		}
		if got := redirects.ErrorCode(err); got != wantCode {
			t.Fatalf("step %d, %s: error %q (%v), the model says %q", step, what, got, err, wantCode)
		}
		var staged, all []int
		for v := 1; v <= newest; v++ {
			if m := model[v]; m != nil && !m.discarded {
				all = append(all, v)
				if m.staged {
					staged = append(staged, v)
				}
			}
		}
		wantStage(t, fmt.Sprintf("step %d, %s", step, what), e.stageState(p.ID), live, staged, all)
		got, err := e.s.FindProjectByID(e.ctx, p.ID)
		if err != nil || got.NewestVersion != newest || got.RequireStage != require {
			t.Fatalf("step %d, %s: project %+v, %v; the model says newest %d, require %v", step, what, got, err, newest, require)
		}
		if live > 0 {
			if _, rules, err := e.s.FindDeployment(e.ctx, p.ID, 0); err != nil || len(rules) != model[live].rules {
				t.Fatalf("step %d, %s: the live version has %d rules (%v), the model says %d", step, what, len(rules), err, model[live].rules)
			}
		}
	}
}
