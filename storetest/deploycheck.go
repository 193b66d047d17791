package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"redirects"
	"redirects/safety"
	"redirects/service"
)

// editFirst is a store whose deploy transaction starts only after edit has
// run: the moment between a deploy being asked for and its write, where a
// gate that read the rules before the transaction missed an edit.
type editFirst struct {
	redirects.Store
	edit  func()
	edits int
}

func (s *editFirst) WithDeployTx(ctx context.Context, fn func(redirects.DeployTx) error) error {
	s.edits++
	s.edit()
	return s.Store.WithDeployTx(ctx, fn)
}

// gated is the deploy service over s with the suite's builder: the deploy
// through the gate that every front door calls. The suite's context is
// the local principal's, which may do anything.
func gated(s redirects.Store) redirects.DeployService {
	return service.New(service.Deps{Store: s, Builder: build})
}

// asLocal is ctx with the local principal, as the command line's with
// the database.
func asLocal(ctx context.Context) context.Context {
	return redirects.WithPrincipal(ctx, redirects.LocalPrincipal())
}

// hostLoopProject makes a project on www.example.com whose draft has the
// one rule /a -> https://www.example.com/b, and deploys it.
func (e *env) hostLoopProject() *redirects.Project {
	e.t.Helper()
	p := e.newProject()
	if _, err := e.s.SetProjectHosts(e.ctx, p.ID, []string{"www.example.com"}); err != nil {
		e.t.Fatalf("SetProjectHosts: %v", err)
	}
	e.rule(p.ID, "/a", "https://www.example.com/b", redirects.Exact, 100)
	e.deploy(p.ID, redirects.DeployOptions{})
	return p
}

// testDeployChecksWhatItWrites: a rule added after a deploy was asked for
// and before its write transaction is checked by the gate, which sees the
// project's hosts: /b -> /a closes a loop through www.example.com, and the
// deploy is refused with nothing written.
func testDeployChecksWhatItWrites(t *testing.T, e *env) {
	p := e.hostLoopProject()
	s := &editFirst{Store: e.s, edit: func() { e.rule(p.ID, "/b", "/a", redirects.Exact, 100) }}
	d, g, err := gated(s).Deploy(asLocal(e.ctx), p.ID, redirects.DeployOptions{Message: "with /b"})
	var be *safety.BlockedError
	if !errors.As(err, &be) || redirects.ErrorCode(err) != redirects.ECONFLICT || d != nil {
		t.Fatalf("deploy with a loop added before its transaction = %v, %v; want it blocked", d, err)
	}
	if s.edits != 1 || g == nil || g.Errors != 1 || g.Findings[0].Kind != safety.KindLoop {
		t.Fatalf("%d edits, gate report %+v; want the one edit and its loop reported", s.edits, g)
	}
	if ds, err := e.s.FindDeployments(e.ctx, p.ID); err != nil || len(ds) != 1 {
		t.Fatalf("deployments after the blocked deploy: %d, %v; want the 1 before it", len(ds), err)
	}
	// The dry run sees the project's hosts too.
	if g, err := gated(e.s).CheckDeploy(asLocal(e.ctx), p.ID, redirects.DeployOptions{}); err != nil || g.Errors != 1 || len(g.Blocked) != 1 {
		t.Fatalf("CheckDeploy = %+v, %v; want the loop, blocking", g, err)
	}
}

// testDeployRacesEdits: deploys through the gate while another goroutine
// keeps turning a rule into a loop through the project's host and back.
// Whatever the interleaving, no deployment holds a loop: each was checked
// in the transaction that wrote it.
func testDeployRacesEdits(t *testing.T, e *env) {
	p := e.hostLoopProject()
	r := e.rule(p.ID, "/b", "/c", redirects.Exact, 100)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			dest := "/c"
			if i%2 == 0 {
				dest = "/a" // /a -> https://www.example.com/b -> /a
			}
			if _, err := e.s.UpdateRule(e.ctx, p.ID, r.ID, redirects.RuleUpdate{Destination: &dest}); err != nil {
				t.Errorf("UpdateRule: %v", err)
				return
			}
		}
	})
	var deployed, blocked int
	for range 40 {
		_, _, err := gated(e.s).Deploy(asLocal(e.ctx), p.ID, redirects.DeployOptions{})
		var be *safety.BlockedError
		switch {
		case err == nil:
			deployed++
		case errors.As(err, &be):
			blocked++
		default:
			t.Errorf("Deploy: %v", err)
		}
	}
	close(stop)
	wg.Wait()
	ds, err := e.s.FindDeployments(e.ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		_, rules, err := e.s.FindDeployment(e.ctx, p.ID, d.Version)
		if err != nil {
			t.Fatal(err)
		}
		if errs, _ := safety.Count(safety.Lint(rules, safety.LintOptions{Hosts: []string{"www.example.com"}})); errs > 0 {
			t.Fatalf("version %d of %d (%d deployed, %d blocked) holds a loop: %s", d.Version, len(ds), deployed, blocked, fmt.Sprint(rules))
		}
	}
}
