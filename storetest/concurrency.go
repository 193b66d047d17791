package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"redirects"
	"redirects/internal/rulegen"
	"redirects/service"
)

// testConcurrentOpen opens one new database from many stores at once: each
// must find the schema either absent (and apply it) or complete, whether an
// IMMEDIATE transaction or an advisory lock keeps them apart.
func testConcurrentOpen(t *testing.T, d *Database) {
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Go(func() {
			s, err := d.Open(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			if _, err := s.FindOrgs(ctx); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent Open: %v", err)
	}
}

// testConcurrentWriters has eight stores, as eight processes would, add
// rules to one project and deploy it at once: every write succeeds (writers
// wait for each other's locks instead of failing), and versions have no
// gaps or repeats.
func testConcurrentWriters(t *testing.T, d *Database) {
	ctx := context.Background()
	setup := d.open(t)
	p := newOrgProject(t, setup)

	const writers, rulesEach, deploysEach = 8, 50, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*(rulesEach+deploysEach))
	for w := 0; w < writers; w++ {
		wg.Go(func() {
			s, err := d.Open(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			for i := 0; i < rulesEach; i++ {
				r := &redirects.Rule{ProjectID: p.ID, Source: fmt.Sprintf("/w%d/r%d", w, i), Destination: "/x", StatusCode: 301, Priority: 100}
				if err := s.AddRule(ctx, r); err != nil {
					errs <- fmt.Errorf("writer %d: AddRule: %w", w, err)
				}
				if i%(rulesEach/deploysEach) == rulesEach/deploysEach-1 {
					if _, err := service.DeployUnchecked(ctx, s, p.ID, redirects.DeployOptions{}, countBuild); err != nil {
						errs <- fmt.Errorf("writer %d: Deploy: %w", w, err)
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	rules, err := setup.FindRules(ctx, p.ID)
	if err != nil {
		t.Fatalf("FindRules: %v", err)
	}
	if len(rules) != writers*rulesEach {
		t.Errorf("FindRules = %d rules, want %d", len(rules), writers*rulesEach)
	}
	ds, err := setup.FindDeployments(ctx, p.ID)
	if err != nil {
		t.Fatalf("FindDeployments: %v", err)
	}
	if len(ds) != writers*deploysEach {
		t.Errorf("FindDeployments = %d, want %d", len(ds), writers*deploysEach)
	}
	for i, d := range ds {
		if d.Version != i+1 {
			t.Fatalf("deployment %d has version %d: versions have a gap or repeat", i, d.Version)
		}
	}
	wantDeployEventsInOrder(t, setup, writers*deploysEach)
}

// wantDeployEventsInOrder fails unless the store holds n deploy events,
// naming versions 1..n in ID order: the order in which the deploys
// committed.
func wantDeployEventsInOrder(t *testing.T, s redirects.Store, n int) {
	t.Helper()
	evs, err := s.FindEvents(context.Background(), 0, 0)
	if err != nil {
		t.Fatalf("FindEvents: %v", err)
	}
	deploys := 0
	for _, ev := range evs {
		if ev.Kind == redirects.EventDeploy {
			deploys++
			if ev.Version != deploys {
				t.Errorf("deploy event %d names version %d: events are not in commit order", deploys, ev.Version)
			}
		}
	}
	if deploys != n {
		t.Errorf("%d deploy events, want %d", deploys, n)
	}
}

// testConcurrentDeploys has eight stores, as eight processes would, deploy
// one project five times each at once: the project's lock makes the
// versions exactly 1..40, each holding every rule, and the deploy events
// follow version (commit) order.
func testConcurrentDeploys(t *testing.T, d *Database) {
	ctx := context.Background()
	setup := d.open(t)
	p := newOrgProject(t, setup)
	if _, err := setup.ImportRules(ctx, p.ID, rulegen.Rules(1000, 0.5, 1), false); err != nil {
		t.Fatalf("ImportRules: %v", err)
	}

	const writers, deploysEach = 8, 5
	var wg sync.WaitGroup
	errs := make(chan error, writers*deploysEach)
	for w := 0; w < writers; w++ {
		wg.Go(func() {
			s, err := d.Open(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			for i := 0; i < deploysEach; i++ {
				if _, err := service.DeployUnchecked(ctx, s, p.ID, redirects.DeployOptions{Message: fmt.Sprintf("writer %d #%d", w, i)}, countBuild); err != nil {
					errs <- fmt.Errorf("writer %d: Deploy: %w", w, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	ds, err := setup.FindDeployments(ctx, p.ID)
	if err != nil {
		t.Fatalf("FindDeployments: %v", err)
	}
	if len(ds) != writers*deploysEach {
		t.Errorf("FindDeployments = %d, want %d", len(ds), writers*deploysEach)
	}
	for i, d := range ds {
		if d.Version != i+1 {
			t.Fatalf("deployment %d has version %d: versions have a gap or repeat", i, d.Version)
		}
		if d.ExactCount+d.PrefixCount != 1000 {
			t.Errorf("version %d holds %d rules, want 1000", d.Version, d.ExactCount+d.PrefixCount)
		}
	}
	wantDeployEventsInOrder(t, setup, writers*deploysEach)
}

// testConcurrentImports imports the same rules into one project from two
// stores at once: one gets in, and the other then finds every rule stored
// as it is and stores nothing, instead of failing on the unique index.
func testConcurrentImports(t *testing.T, d *Database) {
	ctx := context.Background()
	s, other := d.open(t), d.open(t)
	p := newOrgProject(t, s)
	const n = 2000
	rules := rulegen.Rules(n, 0.5, 5)
	errs := make([]error, 2)
	reps := make([]*redirects.ImportReport, 2)
	var wg sync.WaitGroup
	for i, s := range []Store{s, other} {
		wg.Go(func() { reps[i], errs[i] = s.Import(ctx, p.ID, rules, redirects.ImportOptions{}) })
	}
	wg.Wait()
	added, unchanged := 0, 0
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Import = %.200v, want success", err)
		}
		switch r := reps[i]; {
		case r.Added == n && r.Unchanged == 0:
			added++
		case r.Added == 0 && r.Unchanged == n:
			unchanged++
		default:
			t.Errorf("Import = %+v, want %d rules added, or %d unchanged", r, n, n)
		}
	}
	if added != 1 || unchanged != 1 {
		t.Errorf("%d imports added the rules and %d found them unchanged, want 1 and 1", added, unchanged)
	}
	if got, err := s.FindRules(ctx, p.ID); err != nil || len(got) != n {
		t.Errorf("FindRules = %d rules, %v; want %d", len(got), err, n)
	}
}

// testReadDuringWrite reads from one store while a deploy in another holds
// the project's lock (and, in SQLite, the write lock): readers go on, and
// see nothing of the deploy until it commits.
func testReadDuringWrite(t *testing.T, d *Database) {
	ctx := context.Background()
	w, r := d.open(t), d.open(t)
	p := newOrgProject(t, w)

	inBuild, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		_, err := service.DeployUnchecked(ctx, w, p.ID, redirects.DeployOptions{}, func(_ []redirects.Rule, _ redirects.Settings) (*redirects.DeployContent, error) {
			close(inBuild)
			<-release // hold the lock
			return &redirects.DeployContent{}, nil
		})
		done <- err
	}()
	<-inBuild
	if _, err := r.FindProjectByID(ctx, p.ID); err != nil {
		t.Errorf("FindProjectByID during a deploy: %v", err)
	}
	if _, _, err := r.FindDeployment(ctx, p.ID, 0); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Errorf("FindDeployment during the first deploy = %v, want ENOTFOUND (not yet committed)", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("Deploy: %v", err)
	}
	if d, _, err := r.FindDeployment(ctx, p.ID, 0); err != nil || d.Version != 1 {
		t.Errorf("FindDeployment after the deploy = %v, %v; want version 1", d, err)
	}
}

// testEventsInCommitOrder makes transactions that record events commit in
// any order, many at once, while a poller reads as an edge node does:
// every poller that has seen event N must find every later event above N,
// so the IDs must follow commit order.
func testEventsInCommitOrder(t *testing.T, d *Database) {
	ctx := context.Background()
	s := d.open(t)
	o := &redirects.Org{Name: "Acme", Tier: redirects.TierFree}
	if err := s.CreateOrg(ctx, o); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	stop := make(chan struct{})
	var polled []int64
	pollDone := make(chan error, 1)
	go func() {
		// Poll as an edge node does, remembering every ID seen. The last
		// read starts after stop is closed, so after every commit.
		var after int64
		for {
			stopped := false
			select {
			case <-stop:
				stopped = true
			default:
			}
			evs, err := s.FindEvents(ctx, after, 0)
			if err != nil {
				pollDone <- err
				return
			}
			for _, ev := range evs {
				polled = append(polled, ev.ID)
				after = ev.ID
			}
			if stopped {
				pollDone <- nil
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Go(func() {
			w, err := d.Open(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			defer w.Close()
			// Projects of one organization: nothing else orders these
			// transactions (UpdateOrg would, through the org's row lock).
			for i := 0; i < 25; i++ {
				if err := w.CreateProject(ctx, &redirects.Project{OrgID: o.ID, Name: fmt.Sprint(i)}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	if err := <-pollDone; err != nil {
		t.Fatalf("FindEvents: %v", err)
	}
	all, err := s.FindEvents(ctx, 0, 0)
	if err != nil {
		t.Fatalf("FindEvents: %v", err)
	}
	// The poller's last read started after every commit, so it must have
	// seen every event.
	var ids []int64
	for _, ev := range all {
		ids = append(ids, ev.ID)
	}
	if !slices.Equal(polled, ids) {
		t.Errorf("the poller saw %d events, the table holds %d: a poller missed events committed below an ID it had seen", len(polled), len(ids))
	}
}
