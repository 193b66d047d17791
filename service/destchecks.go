package service

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"redirects"
)

// checkStore returns the store of destination checks.
func (s *Service) checkStore() (redirects.CheckStore, error) {
	if s.checks == nil {
		return nil, redirects.Errorf(redirects.EINTERNAL, "the store keeps no destination checks")
	}
	return s.checks, nil
}

// checkProject authorizes action on the project and returns it with the
// store of destination checks: the first steps of every method of the
// checks.
func (s *Service) checkProject(ctx context.Context, projectID string, action redirects.Action) (*redirects.Project, redirects.CheckStore, error) {
	p, err := s.project(ctx, projectID, action)
	if err != nil {
		return nil, nil, err
	}
	cs, err := s.checkStore()
	if err != nil {
		return nil, nil, err
	}
	return p, cs, nil
}

// Background runs the checks started for callers who do not wait for
// them (StartDestinationCheck), beyond the requests that started them,
// until Stop.
type Background struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewBackground returns a Background that runs until Stop.
func NewBackground() *Background {
	ctx, cancel := context.WithCancel(context.Background())
	return &Background{ctx: ctx, cancel: cancel}
}

// Go runs f in a goroutine with ctx's values (the caller, for the audit
// log) but not its end: f's context ends when b stops.
func (b *Background) Go(ctx context.Context, f func(ctx context.Context)) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(b.ctx, cancel)
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		defer stop()
		defer cancel()
		f(ctx)
	}()
}

// Stop ends what runs (a check is failed, the results before it kept)
// and waits for it.
func (b *Background) Stop() {
	b.cancel()
	b.wg.Wait()
}

// checkRun is what a check needs once started.
type checkRun struct {
	job        *redirects.CheckJob
	targets    []redirects.CheckTarget
	projectURL string
	// progressErr is the first failure to record the check's progress
	// (the check goes on without it), and retriedErr the first failure
	// to store its results when a later try stored them: set by runCheck
	// for the schedule to log.
	progressErr, retriedErr error
}

// startCheck authorizes and validates a check of the project and records
// it as running.
func (s *Service) startCheck(ctx context.Context, projectID string, opts redirects.CheckOptions) (*checkRun, redirects.CheckStore, error) {
	p, cs, err := s.checkProject(ctx, projectID, redirects.ActionEditRules)
	if err != nil {
		return nil, nil, err
	}
	if s.checker == nil {
		return nil, nil, redirects.Errorf(redirects.EINTERNAL, "this process does not check destinations")
	}
	base, err := redirects.CheckBaseURL(opts.BaseURL, p.Hosts)
	if err != nil {
		return nil, nil, err
	}
	if p.LiveVersion == 0 {
		return nil, nil, redirects.Errorf(redirects.EINVALID, "project %q has no live version to check: deploy first", p.ID)
	}
	_, rules, err := s.store.FindDeployment(ctx, p.ID, p.LiveVersion)
	if err != nil {
		return nil, nil, err
	}
	targets, skipped := redirects.CheckTargets(rules, base)
	projectURL := ""
	if len(p.Hosts) > 0 {
		projectURL = "https://" + p.Hosts[0]
	}
	now := s.clock.Now().UTC()
	job := &redirects.CheckJob{ID: redirects.NewCheckJobID(), ProjectID: p.ID, State: redirects.CheckRunning, Owner: s.node,
		LeaseUntil: now.Add(redirects.CheckJobLease), BaseURL: base.String(), Total: len(targets), Skipped: skipped, StartedAt: now}
	if err := cs.StartCheckJob(ctx, job); err != nil {
		return nil, nil, err
	}
	return &checkRun{job: job, targets: targets, projectURL: projectURL}, cs, nil
}

// runCheck requests the check's destinations, recording how far it has
// got and renewing its lease every CheckJobBeat, and ends it: done with
// its results stored at once, or failed with the results before it
// kept. A check whose lease was lost meanwhile (its node too slow to
// renew it, and the check abandoned) stops and stores nothing.
func (s *Service) runCheck(ctx context.Context, cs redirects.CheckStore, run *checkRun) (*redirects.CheckReport, error) {
	job := run.job
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var checked, broken atomic.Int64
	// lost is the store's answer when the lease was lost, set before
	// beatDone closes.
	var lost error
	beatDone := make(chan struct{})
	beatStop := make(chan struct{})
	go func() {
		defer close(beatDone)
		t := time.NewTicker(redirects.CheckJobBeat)
		defer t.Stop()
		for {
			select {
			case <-beatStop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			err := cs.ProgressCheckJob(ctx, job.ID, int(checked.Load()), int(broken.Load()), s.clock.Now().Add(redirects.CheckJobLease))
			switch {
			case redirects.ErrorCode(err) == redirects.ECONFLICT:
				lost = err
				cancel()
				return
			case err != nil && run.progressErr == nil && ctx.Err() == nil:
				run.progressErr = err
			}
		}
	}()
	checks, err := s.checker.Check(ctx, run.targets, run.projectURL, func(d *redirects.DestinationCheck) {
		checked.Add(1)
		if d.Broken() {
			broken.Add(1)
		}
	})
	close(beatStop)
	<-beatDone
	if lost != nil {
		return nil, lost
	}
	store := context.WithoutCancel(ctx)
	if err != nil {
		why := err.Error()
		if errors.Is(err, context.Canceled) {
			why = "stopped before every destination was done (the node shut down or the caller went away); the results before it stay"
		}
		if _, ferr := cs.FinishCheckJob(store, job.ID, nil, 0, why); ferr != nil && redirects.ErrorCode(ferr) != redirects.ECONFLICT {
			return nil, errors.Join(err, ferr)
		}
		return nil, err
	}
	// The results are worth a few tries: a database that blinks as the
	// check ends must not throw away minutes of requests.
	var broke []string
	for try := 1; ; try++ {
		broke, err = cs.FinishCheckJob(store, job.ID, checks, job.Skipped, "")
		if err == nil || redirects.ErrorCode(err) == redirects.ECONFLICT || try == finishTries {
			break
		}
		if run.retriedErr == nil {
			run.retriedErr = err
		}
		time.Sleep(time.Duration(try) * 500 * time.Millisecond)
	}
	if err != nil {
		run.retriedErr = nil // the error returned says it
		return nil, err
	}
	return &redirects.CheckReport{Checks: checks, Skipped: job.Skipped, NewlyBroken: broke}, nil
}

// finishTries is how many times a check's results are offered to the
// store before the check is given up (and, its lease running out,
// abandoned).
const finishTries = 4

// CheckDestinations implements redirects.CheckService: ActionEditRules,
// the check recorded as running, the live version's distinct
// destinations requested through the checker within ctx, the results
// stored at once when every one is done.
func (s *Service) CheckDestinations(ctx context.Context, projectID string, opts redirects.CheckOptions) (*redirects.CheckReport, error) {
	run, cs, err := s.startCheck(ctx, projectID, opts)
	if err != nil {
		return nil, err
	}
	return s.runCheck(ctx, cs, run)
}

// StartDestinationCheck implements redirects.CheckService: the check of
// CheckDestinations, run by the Service's Background.
func (s *Service) StartDestinationCheck(ctx context.Context, projectID string, opts redirects.CheckOptions) (*redirects.CheckJob, error) {
	run, cs, err := s.startCheck(ctx, projectID, opts)
	if err != nil {
		return nil, err
	}
	job := *run.job
	s.background.Go(ctx, func(ctx context.Context) { s.runCheck(ctx, cs, run) })
	return &job, nil
}

// FindDestinationCheck implements redirects.CheckService: ActionRead, a
// check whose lease ran out shown failed.
func (s *Service) FindDestinationCheck(ctx context.Context, projectID, id string) (*redirects.CheckJob, error) {
	p, cs, err := s.checkProject(ctx, projectID, redirects.ActionRead)
	if err != nil {
		return nil, err
	}
	j, err := cs.FindCheckJob(ctx, p.ID, id)
	if err != nil {
		return nil, err
	}
	return j.AsSeen(s.clock.Now()), nil
}

// RunningDestinationCheck implements redirects.CheckService: ActionRead;
// a check whose lease ran out no longer runs.
func (s *Service) RunningDestinationCheck(ctx context.Context, projectID string) (*redirects.CheckJob, error) {
	p, cs, err := s.checkProject(ctx, projectID, redirects.ActionRead)
	if err != nil {
		return nil, err
	}
	j, err := cs.FindRunningCheckJob(ctx, p.ID)
	if err != nil || j == nil || j.Abandoned(s.clock.Now()) {
		return nil, err
	}
	return j, nil
}

// FindDestinationChecks implements redirects.CheckService: ActionRead,
// broken destinations first.
func (s *Service) FindDestinationChecks(ctx context.Context, projectID string) ([]redirects.DestinationCheck, error) {
	p, cs, err := s.checkProject(ctx, projectID, redirects.ActionRead)
	if err != nil {
		return nil, err
	}
	out, err := cs.FindDestinationChecks(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	SortChecks(out)
	return out, nil
}

// SortChecks orders results as they are listed: broken destinations
// first, then those that lead off-site or were refused, then the rest,
// each group by destination.
func SortChecks(cs []redirects.DestinationCheck) {
	rank := func(d *redirects.DestinationCheck) int {
		switch {
		case d.Broken():
			return 0
		case d.Outcome == redirects.CheckOffsite, d.Outcome == redirects.CheckRefused:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(cs, func(a, b redirects.DestinationCheck) int {
		return cmp.Or(cmp.Compare(rank(&a), rank(&b)), cmp.Compare(a.Destination, b.Destination))
	})
}

// CheckLease bounds a scheduled check's hold on a project: a node that
// stops mid-check leaves the project to another node after it.
const CheckLease = time.Hour

// ScheduleFailure is what failed in one pass of the schedule beside the
// checks themselves, one per cause however many projects it struck: the
// store of checks missing, listing the projects, claiming or releasing a
// project's lease, recording a check's progress, or storing its results
// (at the first try; a later one stored them).
type ScheduleFailure struct {
	// Cause says what failed, as "could not " + Cause reads.
	Cause string
	// Projects lists the projects it struck, in the order of the pass;
	// none for the store of checks and the list of projects.
	Projects []string
	// Err is its first error.
	Err error
}

// The causes of ScheduleFailure.
const (
	CauseCheckStore = "find the store of destination checks"
	CauseList       = "list the projects"
	CauseClaim      = "claim a project's lease"
	CauseProgress   = "record a check's progress"
	CauseRetried    = "store a check's results at the first try"
	CauseRelease    = "release a project's lease"
)

// RunScheduledChecks checks every project with a live version whose
// scheduled check is due (its last one started at least every ago) and
// whose lease owner gets (serve --check-destinations-every): of the nodes
// of a cluster, one checks a project at a time. It runs as the service
// itself (the system actor in the audit log) and calls done after each
// project's check, failed or not (a lease lost midway is a failure); a
// project whose check another caller runs is left to it, quietly. It
// returns the other failures of the pass, one per cause, in the order
// they came; those after ctx ends are left out, as the pass stops then.
func (s *Service) RunScheduledChecks(ctx context.Context, owner string, every time.Duration, done func(projectID string, rep *redirects.CheckReport, err error)) []ScheduleFailure {
	var fails []ScheduleFailure
	fail := func(cause, projectID string, err error) {
		if ctx.Err() != nil {
			return
		}
		i := slices.IndexFunc(fails, func(f ScheduleFailure) bool { return f.Cause == cause })
		if i < 0 {
			fails = append(fails, ScheduleFailure{Cause: cause, Err: err})
			i = len(fails) - 1
		}
		if projectID != "" {
			fails[i].Projects = append(fails[i].Projects, projectID)
		}
	}
	cs, err := s.checkStore()
	if err != nil {
		fail(CauseCheckStore, "", err)
		return fails
	}
	ps, err := s.store.FindProjects(ctx, "")
	if err != nil {
		fail(CauseList, "", err)
		return fails
	}
	ctx = redirects.WithActor(redirects.WithPrincipal(ctx, redirects.LocalPrincipal()), redirects.Actor{Kind: redirects.ActorSystem, Label: "scheduled destination check"})
	for _, p := range ps {
		if ctx.Err() != nil {
			return fails
		}
		if p.LiveVersion == 0 || len(p.Hosts) == 0 {
			continue // nothing to check, or no base URL to check against
		}
		ok, err := cs.ClaimDestinationCheck(ctx, p.ID, owner, every, CheckLease)
		if err != nil {
			fail(CauseClaim, p.ID, err)
			continue
		}
		if !ok {
			continue
		}
		s.scheduledCheck(ctx, p.ID, done, fail)
		if err := cs.ReleaseDestinationCheck(context.WithoutCancel(ctx), p.ID, owner); err != nil {
			fail(CauseRelease, p.ID, err)
		}
	}
	return fails
}

// scheduledCheck runs the project's check for RunScheduledChecks. A
// conflict as it starts is a check another caller runs, which serves this
// period; a conflict later is this check's lease lost, a failure.
func (s *Service) scheduledCheck(ctx context.Context, projectID string, done func(string, *redirects.CheckReport, error), fail func(cause, projectID string, err error)) {
	run, cs, err := s.startCheck(ctx, projectID, redirects.CheckOptions{})
	if redirects.ErrorCode(err) == redirects.ECONFLICT {
		return
	}
	if err != nil {
		done(projectID, nil, err)
		return
	}
	rep, err := s.runCheck(ctx, cs, run)
	done(projectID, rep, err)
	if run.progressErr != nil {
		fail(CauseProgress, projectID, run.progressErr)
	}
	if run.retriedErr != nil {
		fail(CauseRetried, projectID, run.retriedErr)
	}
}
