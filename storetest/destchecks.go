package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"redirects"
	"redirects/service"
)

// checkTests are the destination checks' part of the suite
// (docs/contract.md#destination-checks).
var checkTests = []struct {
	name string
	fn   func(t *testing.T, e *env)
}{
	{"Checks/Record", testChecksRecord},
	{"Checks/KilledMidway", testChecksKilledMidway},
	{"Checks/Lease", testChecksLease},
	{"Checks/Jobs", testCheckJobs},
	{"Checks/JobAbandoned", testCheckJobAbandoned},
	{"Checks/Background", testChecksBackground},
	{"Checks/LeaseLost", testChecksLeaseLost},
	{"Checks/FinishRetried", testChecksFinishRetried},
	{"Checks/ScheduleFailures", testChecksScheduleFailures},
}

func (e *env) checkStore() redirects.CheckStore {
	e.t.Helper()
	c, ok := e.s.(redirects.CheckStore)
	if !ok {
		e.t.Fatalf("%T does not implement redirects.CheckStore", e.s)
	}
	return c
}

func showChecks(cs []redirects.DestinationCheck) string {
	var b strings.Builder
	for _, d := range cs {
		fmt.Fprintf(&b, "%s %s %d %s %d %s %s\n", d.Destination, d.Outcome, d.Status, d.FinalURL, d.Hops, d.CheckedAt.UTC().Format(time.RFC3339), d.Error)
	}
	return b.String()
}

// testChecksRecord: a check's results replace the last one's; a
// destination that worked and is broken now is returned, audited as
// destination.broken and delivered to a webhook that wants it; one that
// was broken already, or is new, is not.
func testChecksRecord(t *testing.T, e *env) {
	p := e.newProject()
	cs := e.checkStore()
	ep := e.webhook(p.OrgID, []string{redirects.AuditDestinationBroken}, nil)
	at := Start.Add(time.Minute)
	res := func(dest string, o redirects.CheckOutcome, status int) redirects.DestinationCheck {
		return redirects.DestinationCheck{Destination: dest, URL: "https://www.example.com" + dest, Outcome: o, Status: status,
			FinalURL: "https://www.example.com" + dest, Duration: 3 * time.Millisecond, CheckedAt: at}
	}
	first := []redirects.DestinationCheck{res("/a", redirects.CheckOK, 200), res("/b", redirects.CheckOK, 200), res("/c", redirects.CheckBroken, 404)}
	broke, err := cs.RecordDestinationChecks(e.ctx, p.ID, first, 2)
	if err != nil || len(broke) != 0 {
		t.Fatalf("RecordDestinationChecks (first) = %v, %v; want none broke", broke, err)
	}
	got, err := cs.FindDestinationChecks(e.ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if showChecks(got) != showChecks(first) || got[0].Duration != first[0].Duration {
		t.Fatalf("FindDestinationChecks =\n%swant\n%s", showChecks(got), showChecks(first))
	}
	second := []redirects.DestinationCheck{res("/a", redirects.CheckTimedOut, 0), res("/c", redirects.CheckBroken, 500), res("/d", redirects.CheckBroken, 404)}
	second[0].Error = "no answer within 5s"
	broke, err = cs.RecordDestinationChecks(e.ctx, p.ID, second, 0)
	if err != nil || len(broke) != 1 || broke[0] != "/a" {
		t.Fatalf("RecordDestinationChecks (second) = %v, %v; want [/a]", broke, err)
	}
	got, _ = cs.FindDestinationChecks(e.ctx, p.ID)
	if showChecks(got) != showChecks(second) {
		t.Fatalf("after the second check:\n%swant\n%s", showChecks(got), showChecks(second))
	}
	entries := e.audit(redirects.AuditFilter{ProjectID: p.ID, Action: "destination.*"})
	var actions []string
	for _, en := range entries {
		actions = append(actions, en.Action+" "+en.ObjectID)
	}
	if want := "destination.check " + p.ID + ",destination.broken /a,destination.check " + p.ID; strings.Join(actions, ",") != want {
		t.Errorf("audit = %q, want %q (newest first)", strings.Join(actions, ","), want)
	}
	if len(entries) == 3 {
		if b := string(entries[1].Before); !strings.Contains(b, `"outcome":"ok"`) {
			t.Errorf("destination.broken before = %s, want the ok result", b)
		}
		if a := string(entries[1].After); !strings.Contains(a, `"outcome":"timeout"`) || !strings.Contains(a, "no answer") {
			t.Errorf("destination.broken after = %s, want the timeout and its error", a)
		}
		if a := string(entries[2].After); !strings.Contains(a, `"checked":3`) || !strings.Contains(a, `"skipped":2`) {
			t.Errorf("first destination.check after = %s, want 3 checked and 2 skipped", a)
		}
	}
	ds := e.deliveries(ep.ID)
	if len(ds) != 1 || ds[0].Action != redirects.AuditDestinationBroken {
		t.Errorf("webhook deliveries = %d, want one destination.broken", len(ds))
	}
	if _, err := cs.RecordDestinationChecks(e.ctx, "prj_missing", nil, 0); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Errorf("RecordDestinationChecks of a missing project: %v, want ENOTFOUND", err)
	}
}

// checkerFunc is a DestinationChecker made of a function.
type checkerFunc func(ctx context.Context, targets []redirects.CheckTarget, projectURL string) ([]redirects.DestinationCheck, error)

func (f checkerFunc) Check(ctx context.Context, targets []redirects.CheckTarget, projectURL string, _ func(*redirects.DestinationCheck)) ([]redirects.DestinationCheck, error) {
	return f(ctx, targets, projectURL)
}

// testChecksKilledMidway: through the service, a check whose context
// ends midway stores nothing, so the last check's results stay; a check
// that completes replaces them. Destinations with captures are skipped,
// relative ones resolved against the project's first host.
func testChecksKilledMidway(t *testing.T, e *env) {
	p := e.newProject()
	if _, err := e.s.SetProjectHosts(e.ctx, p.ID, []string{"www.example.com"}); err != nil {
		t.Fatalf("SetProjectHosts: %v", err)
	}
	e.rule(p.ID, "/a", "/new-a", redirects.Exact, 0)
	e.rule(p.ID, "/b", "https://other.example.net/b", redirects.Exact, 0)
	e.rule(p.ID, "/b2", "https://other.example.net/b", redirects.Exact, 0)
	e.rule(p.ID, "/blog/:slug", "/posts/:slug", redirects.Pattern, 0)
	e.deploy(p.ID, redirects.DeployOptions{})
	var seen []redirects.CheckTarget
	ok := checkerFunc(func(ctx context.Context, targets []redirects.CheckTarget, projectURL string) ([]redirects.DestinationCheck, error) {
		seen = targets
		out := make([]redirects.DestinationCheck, len(targets))
		for i, tg := range targets {
			out[i] = redirects.DestinationCheck{Destination: tg.Destination, URL: tg.URL, Outcome: redirects.CheckOK, Status: 200, FinalURL: tg.URL, CheckedAt: Start}
		}
		return out, nil
	})
	ctx := redirects.WithPrincipal(e.ctx, redirects.LocalPrincipal())
	svc := service.New(service.Deps{Store: e.s, Builder: build, Checker: ok}).Services().Checks
	rep, err := svc.CheckDestinations(ctx, p.ID, redirects.CheckOptions{})
	if err != nil {
		t.Fatalf("CheckDestinations: %v", err)
	}
	want := "/new-a https://www.example.com/new-a\nhttps://other.example.net/b https://other.example.net/b\n"
	var b strings.Builder
	for _, tg := range seen {
		fmt.Fprintf(&b, "%s %s\n", tg.Destination, tg.URL)
	}
	if b.String() != want || rep.Skipped != 1 || len(rep.Checks) != 2 {
		t.Fatalf("targets:\n%sskipped %d; want\n%sskipped 1", b.String(), rep.Skipped, want)
	}
	before, _ := svc.FindDestinationChecks(ctx, p.ID)

	killed := checkerFunc(func(ctx context.Context, targets []redirects.CheckTarget, projectURL string) ([]redirects.DestinationCheck, error) {
		return nil, context.Canceled // as destcheck.Checker answers a context cancelled midway
	})
	svc = service.New(service.Deps{Store: e.s, Builder: build, Checker: killed}).Services().Checks
	if _, err := svc.CheckDestinations(ctx, p.ID, redirects.CheckOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("CheckDestinations killed midway: %v, want context.Canceled", err)
	}
	after, _ := svc.FindDestinationChecks(ctx, p.ID)
	if showChecks(after) != showChecks(before) || len(after) != 2 {
		t.Errorf("after a killed check:\n%swant the results before it:\n%s", showChecks(after), showChecks(before))
	}
	if _, err := svc.CheckDestinations(ctx, p.ID, redirects.CheckOptions{BaseURL: "ftp://x"}); redirects.ErrorCode(err) != redirects.EINVALID {
		t.Errorf("base URL ftp://x: %v, want EINVALID", err)
	}
	q := e.project(p.OrgID, "no hosts")
	if _, err := svc.CheckDestinations(ctx, q.ID, redirects.CheckOptions{}); redirects.ErrorCode(err) != redirects.EINVALID || !strings.Contains(err.Error(), "--base-url") {
		t.Errorf("no host, no base URL: %v, want EINVALID naming --base-url", err)
	}
}

// testChecksLease: the lease of scheduled checks goes to one owner of
// many that race; no other gets it while it is held or before the period
// since the last start is over, whoever released it.
func testChecksLease(t *testing.T, e *env) {
	p := e.newProject()
	cs := e.checkStore()
	const every, lease = 10 * time.Minute, time.Hour
	var won atomic.Int64
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := cs.ClaimDestinationCheck(e.ctx, p.ID, fmt.Sprintf("node-%d", i), every, lease)
			if err != nil {
				t.Errorf("ClaimDestinationCheck: %v", err)
			}
			if ok {
				won.Add(1)
			}
		}()
	}
	wg.Wait()
	if won.Load() != 1 {
		t.Fatalf("%d of 8 racing owners got the lease, want 1", won.Load())
	}
	claim := func(owner string) bool {
		t.Helper()
		ok, err := cs.ClaimDestinationCheck(e.ctx, p.ID, owner, every, lease)
		if err != nil {
			t.Fatalf("ClaimDestinationCheck(%s): %v", owner, err)
		}
		return ok
	}
	e.clock.Add(every + time.Minute)
	if claim("late") {
		t.Fatal("a held lease was taken by another owner")
	}
	for i := range 8 {
		if err := cs.ReleaseDestinationCheck(e.ctx, p.ID, fmt.Sprintf("node-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if !claim("late") {
		t.Fatal("a released lease whose period is over was not taken")
	}
	if err := cs.ReleaseDestinationCheck(e.ctx, p.ID, "late"); err != nil {
		t.Fatal(err)
	}
	if claim("early") {
		t.Fatal("a check was due again before its period was over")
	}
	e.clock.Add(every)
	if !claim("early") {
		t.Fatal("a check was not due after its period")
	}
	// A lease left by a node that stopped goes after it runs out.
	e.clock.Add(lease + time.Second)
	if !claim("next") {
		t.Fatal("a lease that ran out was not taken")
	}
	if ok, err := cs.ClaimDestinationCheck(e.ctx, "prj_missing", "x", every, lease); ok || err != nil {
		t.Errorf("a missing project's lease: %v, %v; want not taken, no error", ok, err)
	}
}

// checkJob returns a running check of project p as the service makes
// one, held until the clock's time plus lease.
func (e *env) checkJob(p *redirects.Project, total int, lease time.Duration) *redirects.CheckJob {
	now := e.clock.Now()
	return &redirects.CheckJob{ID: redirects.NewCheckJobID(), ProjectID: p.ID, State: redirects.CheckRunning, Owner: "node-a",
		LeaseUntil: now.Add(lease), BaseURL: "https://www.example.com", Total: total, Skipped: 1, StartedAt: now}
}

// testCheckJobs: a check started runs alone (a second start is a
// conflict naming the first), records its progress, and once finished
// holds its report in the order it was given, its results recorded as
// RecordDestinationChecks records them; the project keeps its
// CheckJobsKept latest checks.
func testCheckJobs(t *testing.T, e *env) {
	p := e.newProject()
	cs := e.checkStore()
	at := Start.Add(time.Minute)
	res := func(dest string, o redirects.CheckOutcome, status int) redirects.DestinationCheck {
		return redirects.DestinationCheck{Destination: dest, URL: "https://www.example.com" + dest, Outcome: o, Status: status,
			FinalURL: "https://www.example.com" + dest, Duration: 3 * time.Millisecond, CheckedAt: at}
	}
	if _, err := cs.RecordDestinationChecks(e.ctx, p.ID, []redirects.DestinationCheck{res("/b", redirects.CheckOK, 200)}, 0); err != nil {
		t.Fatal(err)
	}
	job := e.checkJob(p, 2, time.Minute)
	if err := cs.StartCheckJob(e.ctx, job); err != nil {
		t.Fatalf("StartCheckJob: %v", err)
	}
	second := e.checkJob(p, 2, time.Minute)
	if err := cs.StartCheckJob(e.ctx, second); redirects.ErrorCode(err) != redirects.ECONFLICT || !strings.Contains(err.Error(), job.ID) {
		t.Fatalf("a second check while one runs: %v, want ECONFLICT naming %s", err, job.ID)
	}
	if err := cs.StartCheckJob(e.ctx, &redirects.CheckJob{ID: redirects.NewCheckJobID(), ProjectID: "prj_missing", LeaseUntil: at}); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Errorf("a check of a missing project: %v, want ENOTFOUND", err)
	}
	if err := cs.ProgressCheckJob(e.ctx, job.ID, 1, 1, e.clock.Now().Add(time.Minute)); err != nil {
		t.Fatalf("ProgressCheckJob: %v", err)
	}
	got, err := cs.FindCheckJob(e.ctx, p.ID, job.ID)
	if err != nil || got.State != redirects.CheckRunning || got.Checked != 1 || got.Broken != 1 || got.Total != 2 || got.Skipped != 1 || got.Report != nil {
		t.Fatalf("FindCheckJob while it runs = %+v, %v; want running, 1 of 2 checked, 1 broken, 1 skipped", got, err)
	}
	if run, err := cs.FindRunningCheckJob(e.ctx, p.ID); err != nil || run == nil || run.ID != job.ID {
		t.Fatalf("FindRunningCheckJob = %+v, %v; want %s", run, err, job.ID)
	}
	if _, err := cs.FindCheckJob(e.ctx, p.ID, "chk_missing"); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Errorf("a missing check: %v, want ENOTFOUND", err)
	}
	checks := []redirects.DestinationCheck{res("/z", redirects.CheckOK, 200), res("/b", redirects.CheckBroken, 404)}
	broke, err := cs.FinishCheckJob(e.ctx, job.ID, checks, 1, "")
	if err != nil || len(broke) != 1 || broke[0] != "/b" {
		t.Fatalf("FinishCheckJob = %v, %v; want /b broken", broke, err)
	}
	got, err = cs.FindCheckJob(e.ctx, p.ID, job.ID)
	if err != nil || got.State != redirects.CheckDone || got.Checked != 2 || got.Broken != 1 || got.FinishedAt.IsZero() || got.Report == nil {
		t.Fatalf("FindCheckJob once done = %+v, %v; want done, 2 checked, 1 broken, a report", got, err)
	}
	if showChecks(got.Report.Checks) != showChecks(checks) || got.Report.Skipped != 1 || strings.Join(got.Report.NewlyBroken, " ") != "/b" {
		t.Errorf("report:\n%s skipped %d, newly broken %v; want\n%s skipped 1, newly broken [/b]", showChecks(got.Report.Checks), got.Report.Skipped, got.Report.NewlyBroken, showChecks(checks))
	}
	stored, _ := cs.FindDestinationChecks(e.ctx, p.ID)
	if len(stored) != 2 {
		t.Errorf("results recorded: %d, want 2", len(stored))
	}
	if _, err := cs.FinishCheckJob(e.ctx, job.ID, checks, 1, ""); redirects.ErrorCode(err) != redirects.ECONFLICT {
		t.Errorf("finishing a check twice: %v, want ECONFLICT", err)
	}
	if run, err := cs.FindRunningCheckJob(e.ctx, p.ID); err != nil || run != nil {
		t.Errorf("FindRunningCheckJob once done = %+v, %v; want none", run, err)
	}
	var ids []string
	for range redirects.CheckJobsKept + 2 {
		e.clock.Add(time.Second)
		j := e.checkJob(p, 0, time.Minute)
		if err := cs.StartCheckJob(e.ctx, j); err != nil {
			t.Fatalf("StartCheckJob after the last ended: %v", err)
		}
		if _, err := cs.FinishCheckJob(e.ctx, j.ID, nil, 0, "given up"); err != nil {
			t.Fatalf("FinishCheckJob failed: %v", err)
		}
		ids = append(ids, j.ID)
	}
	if _, err := cs.FindCheckJob(e.ctx, p.ID, ids[0]); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Errorf("a check beyond the %d latest: %v, want forgotten (ENOTFOUND)", redirects.CheckJobsKept, err)
	}
	last, err := cs.FindCheckJob(e.ctx, p.ID, ids[len(ids)-1])
	if err != nil || last.State != redirects.CheckFailed || last.Error != "given up" {
		t.Errorf("the latest check = %+v, %v; want failed, given up", last, err)
	}
}

// testCheckJobAbandoned: a check whose node stopped renewing its lease is
// seen failed once the lease runs out; its node can neither renew it nor
// record its results then, so the results before it stay; a new check
// may start, and the abandoned one is stored failed.
func testCheckJobAbandoned(t *testing.T, e *env) {
	p := e.newProject()
	cs := e.checkStore()
	before := []redirects.DestinationCheck{{Destination: "/a", URL: "https://www.example.com/a", Outcome: redirects.CheckOK, Status: 200,
		FinalURL: "https://www.example.com/a", CheckedAt: Start}}
	if _, err := cs.RecordDestinationChecks(e.ctx, p.ID, before, 0); err != nil {
		t.Fatal(err)
	}
	job := e.checkJob(p, 1, redirects.CheckJobLease)
	if err := cs.StartCheckJob(e.ctx, job); err != nil {
		t.Fatal(err)
	}
	e.clock.Add(redirects.CheckJobLease)
	got, err := cs.FindCheckJob(e.ctx, p.ID, job.ID)
	if err != nil || !got.Abandoned(e.clock.Now()) {
		t.Fatalf("FindCheckJob after its lease = %+v, %v; want abandoned", got, err)
	}
	if seen := got.AsSeen(e.clock.Now()); seen.State != redirects.CheckFailed || !strings.Contains(seen.Error, "abandoned") {
		t.Errorf("as seen: %s %q, want failed, abandoned", seen.State, seen.Error)
	}
	if err := cs.ProgressCheckJob(e.ctx, job.ID, 1, 0, e.clock.Now().Add(time.Minute)); redirects.ErrorCode(err) != redirects.ECONFLICT {
		t.Errorf("renewing a lease that ran out: %v, want ECONFLICT", err)
	}
	after := []redirects.DestinationCheck{{Destination: "/a", URL: "https://www.example.com/a", Outcome: redirects.CheckBroken, Status: 500,
		FinalURL: "https://www.example.com/a", CheckedAt: e.clock.Now()}}
	if _, err := cs.FinishCheckJob(e.ctx, job.ID, after, 0, ""); redirects.ErrorCode(err) != redirects.ECONFLICT {
		t.Errorf("finishing a check abandoned: %v, want ECONFLICT", err)
	}
	if got, _ := cs.FindDestinationChecks(e.ctx, p.ID); showChecks(got) != showChecks(before) {
		t.Errorf("results after an abandoned check:\n%swant those before it:\n%s", showChecks(got), showChecks(before))
	}
	next := e.checkJob(p, 1, redirects.CheckJobLease)
	if err := cs.StartCheckJob(e.ctx, next); err != nil {
		t.Fatalf("a check after one abandoned: %v", err)
	}
	old, err := cs.FindCheckJob(e.ctx, p.ID, job.ID)
	if err != nil || old.State != redirects.CheckFailed || !strings.Contains(old.Error, "abandoned") {
		t.Errorf("the abandoned check once another started = %+v, %v; want stored failed, abandoned", old, err)
	}
}

// testChecksBackground: through the service, a check started runs in the
// background while the caller goes on: it is running (a second start is
// a conflict, the project's running check is it), then done with the
// same report a check waited for gives; stopping the Background midway
// fails a check and keeps the results before it.
func testChecksBackground(t *testing.T, e *env) {
	p := e.newProject()
	if _, err := e.s.SetProjectHosts(e.ctx, p.ID, []string{"www.example.com"}); err != nil {
		t.Fatal(err)
	}
	e.rule(p.ID, "/a", "/new-a", redirects.Exact, 0)
	e.rule(p.ID, "/b", "https://other.example.net/b", redirects.Exact, 0)
	e.deploy(p.ID, redirects.DeployOptions{})
	release := make(chan struct{})
	gated := checkerFunc(func(ctx context.Context, targets []redirects.CheckTarget, projectURL string) ([]redirects.DestinationCheck, error) {
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		out := make([]redirects.DestinationCheck, len(targets))
		for i, tg := range targets {
			out[i] = redirects.DestinationCheck{Destination: tg.Destination, URL: tg.URL, Outcome: redirects.CheckBroken, Status: 404, FinalURL: tg.URL, CheckedAt: Start}
		}
		return out, nil
	})
	ctx := redirects.WithPrincipal(e.ctx, redirects.LocalPrincipal())
	bg := service.NewBackground()
	full := service.New(service.Deps{Store: e.s, Builder: build, Checker: gated, Clock: e.clock, Background: bg})
	svc := full.Services().Checks
	job, err := svc.StartDestinationCheck(ctx, p.ID, redirects.CheckOptions{})
	if err != nil || job.State != redirects.CheckRunning || job.Total != 2 {
		t.Fatalf("StartDestinationCheck = %+v, %v; want running, 2 destinations", job, err)
	}
	if _, err := svc.StartDestinationCheck(ctx, p.ID, redirects.CheckOptions{}); redirects.ErrorCode(err) != redirects.ECONFLICT {
		t.Errorf("a second check while one runs: %v, want ECONFLICT", err)
	}
	if _, err := svc.CheckDestinations(ctx, p.ID, redirects.CheckOptions{}); redirects.ErrorCode(err) != redirects.ECONFLICT {
		t.Errorf("a check waited for while one runs: %v, want ECONFLICT", err)
	}
	if run, err := svc.RunningDestinationCheck(ctx, p.ID); err != nil || run == nil || run.ID != job.ID {
		t.Errorf("RunningDestinationCheck = %+v, %v; want %s", run, err, job.ID)
	}
	// A scheduled check due while one asked for runs leaves the project
	// to it, quietly.
	fails := full.RunScheduledChecks(e.ctx, "node-b", time.Hour, func(projectID string, rep *redirects.CheckReport, err error) {
		if projectID == p.ID {
			t.Errorf("the schedule checked the project while a check ran: %v, %v", rep, err)
		}
	})
	if len(fails) != 0 {
		t.Errorf("RunScheduledChecks: %+v, want no failures", fails)
	}
	close(release)
	var got *redirects.CheckJob
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if got, err = svc.FindDestinationCheck(ctx, p.ID, job.ID); err != nil {
			t.Fatal(err)
		}
		if got.State != redirects.CheckRunning || time.Now().After(deadline) {
			break
		}
	}
	if got.State != redirects.CheckDone || got.Report == nil || len(got.Report.Checks) != 2 || got.Report.Checks[0].Destination != "/new-a" {
		t.Fatalf("the check once released = %+v; want done, its 2 results in the rules' order", got)
	}
	results, _ := svc.FindDestinationChecks(ctx, p.ID)

	never := checkerFunc(func(ctx context.Context, targets []redirects.CheckTarget, projectURL string) ([]redirects.DestinationCheck, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	bg2 := service.NewBackground()
	svc = service.New(service.Deps{Store: e.s, Builder: build, Checker: never, Clock: e.clock, Background: bg2}).Services().Checks
	job, err = svc.StartDestinationCheck(ctx, p.ID, redirects.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bg2.Stop()
	got, err = svc.FindDestinationCheck(ctx, p.ID, job.ID)
	if err != nil || got.State != redirects.CheckFailed || !strings.Contains(got.Error, "stopped") {
		t.Errorf("a check whose node stopped = %+v, %v; want failed, saying it stopped", got, err)
	}
	if after, _ := svc.FindDestinationChecks(ctx, p.ID); showChecks(after) != showChecks(results) {
		t.Errorf("results after a check stopped midway:\n%swant those before it:\n%s", showChecks(after), showChecks(results))
	}
	bg.Stop()
}

// testChecksLeaseLost: a node whose check's lease ran out meanwhile (too
// slow to renew it: here its clock is moved past the lease) learns it at
// its next renewal, stops requesting and stores nothing; the results
// before it stay and the check reads failed, abandoned.
func testChecksLeaseLost(t *testing.T, e *env) {
	p := e.newProject()
	if _, err := e.s.SetProjectHosts(e.ctx, p.ID, []string{"www.example.com"}); err != nil {
		t.Fatal(err)
	}
	e.rule(p.ID, "/a", "/new-a", redirects.Exact, 0)
	e.deploy(p.ID, redirects.DeployOptions{})
	stopped := make(chan error, 1)
	stuck := checkerFunc(func(ctx context.Context, targets []redirects.CheckTarget, projectURL string) ([]redirects.DestinationCheck, error) {
		<-ctx.Done()
		stopped <- ctx.Err()
		return nil, ctx.Err()
	})
	ctx := redirects.WithPrincipal(e.ctx, redirects.LocalPrincipal())
	bg := service.NewBackground()
	defer bg.Stop()
	svc := service.New(service.Deps{Store: e.s, Builder: build, Checker: stuck, Clock: e.clock, Background: bg}).Services().Checks
	before, _ := svc.FindDestinationChecks(ctx, p.ID)
	job, err := svc.StartDestinationCheck(ctx, p.ID, redirects.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Add(redirects.CheckJobLease + time.Second)
	select {
	case <-stopped:
	case <-time.After(10 * redirects.CheckJobBeat):
		t.Fatal("the check went on after its lease ran out")
	}
	got, err := svc.FindDestinationCheck(ctx, p.ID, job.ID)
	if err != nil || got.State != redirects.CheckFailed || !strings.Contains(got.Error, "abandoned") {
		t.Errorf("a check whose lease ran out = %+v, %v; want failed, abandoned", got, err)
	}
	if after, _ := svc.FindDestinationChecks(ctx, p.ID); showChecks(after) != showChecks(before) {
		t.Errorf("results after a lost lease:\n%swant those before:\n%s", showChecks(after), showChecks(before))
	}
	if _, err := svc.StartDestinationCheck(ctx, p.ID, redirects.CheckOptions{}); err != nil {
		t.Errorf("a check after one abandoned: %v", err)
	}
}

// blinkingChecks is a CheckStore whose FinishCheckJob fails its first
// fails calls as a database that cannot be reached does.
type blinkingChecks struct {
	redirects.CheckStore
	fails int
}

func (b *blinkingChecks) FinishCheckJob(ctx context.Context, id string, checks []redirects.DestinationCheck, skipped int, failure string) ([]string, error) {
	if b.fails > 0 {
		b.fails--
		return nil, redirects.Errorf(redirects.EUNAVAILABLE, "the database cannot be reached")
	}
	return b.CheckStore.FinishCheckJob(ctx, id, checks, skipped, failure)
}

// testChecksFinishRetried: a check whose store blinks as it ends offers
// its results again, and they are stored.
func testChecksFinishRetried(t *testing.T, e *env) {
	p := e.newProject()
	if _, err := e.s.SetProjectHosts(e.ctx, p.ID, []string{"www.example.com"}); err != nil {
		t.Fatal(err)
	}
	e.rule(p.ID, "/a", "/new-a", redirects.Exact, 0)
	e.deploy(p.ID, redirects.DeployOptions{})
	ok := checkerFunc(func(ctx context.Context, targets []redirects.CheckTarget, projectURL string) ([]redirects.DestinationCheck, error) {
		out := make([]redirects.DestinationCheck, len(targets))
		for i, tg := range targets {
			out[i] = redirects.DestinationCheck{Destination: tg.Destination, URL: tg.URL, Outcome: redirects.CheckOK, Status: 200, FinalURL: tg.URL, CheckedAt: Start}
		}
		return out, nil
	})
	ctx := redirects.WithPrincipal(e.ctx, redirects.LocalPrincipal())
	blink := &blinkingChecks{CheckStore: e.checkStore(), fails: 2}
	svc := service.New(service.Deps{Store: e.s, Builder: build, Checker: ok, Clock: e.clock, Checks: blink}).Services().Checks
	rep, err := svc.CheckDestinations(ctx, p.ID, redirects.CheckOptions{})
	if err != nil || len(rep.Checks) != 1 {
		t.Fatalf("CheckDestinations with a store that blinks twice = %+v, %v; want its result stored", rep, err)
	}
	if got, _ := svc.FindDestinationChecks(ctx, p.ID); len(got) != 1 || got[0].Destination != "/new-a" {
		t.Errorf("results stored: %s, want /new-a", showChecks(got))
	}
}

// faultyChecks is a CheckStore whose lease and progress fail while told
// to, and whose FinishCheckJob fails the first call of each check, as a
// database that blinks does.
type faultyChecks struct {
	redirects.CheckStore
	claimFails, progressFails atomic.Bool
	progressFailed            chan struct{} // closed at the first progress failure
	once                      sync.Once
	mu                        sync.Mutex
	finished                  map[string]bool
}

func (f *faultyChecks) ClaimDestinationCheck(ctx context.Context, projectID, owner string, every, lease time.Duration) (bool, error) {
	if f.claimFails.Load() {
		return false, redirects.Errorf(redirects.EUNAVAILABLE, "claim: the database cannot be reached")
	}
	return f.CheckStore.ClaimDestinationCheck(ctx, projectID, owner, every, lease)
}

func (f *faultyChecks) ReleaseDestinationCheck(ctx context.Context, projectID, owner string) error {
	return redirects.Errorf(redirects.EUNAVAILABLE, "release: the database cannot be reached")
}

func (f *faultyChecks) ProgressCheckJob(ctx context.Context, id string, checked, broken int, leaseUntil time.Time) error {
	if f.progressFails.Load() {
		f.once.Do(func() { close(f.progressFailed) })
		return redirects.Errorf(redirects.EUNAVAILABLE, "progress: the database cannot be reached")
	}
	return f.CheckStore.ProgressCheckJob(ctx, id, checked, broken, leaseUntil)
}

func (f *faultyChecks) FinishCheckJob(ctx context.Context, id string, checks []redirects.DestinationCheck, skipped int, failure string) ([]string, error) {
	f.mu.Lock()
	first := !f.finished[id]
	f.finished[id] = true
	f.mu.Unlock()
	if first && failure == "" {
		return nil, redirects.Errorf(redirects.EUNAVAILABLE, "finish: the database cannot be reached")
	}
	return f.CheckStore.FinishCheckJob(ctx, id, checks, skipped, failure)
}

// testChecksScheduleFailures: a pass of the schedule reports each
// failure beside the checks once per cause, naming every project it
// struck (the store failing to record progress, to store results at the
// first try, to release a lease; then to claim one), reports a check
// whose lease was lost to its project's done, and still stores the
// results of the checks that ran.
func testChecksScheduleFailures(t *testing.T, e *env) {
	ids := map[string]string{} // host: project
	for _, host := range []string{"slow.example.com", "quick.example.com", "lost.example.com"} {
		p := e.project(e.org("Acme").ID, strings.Split(host, ".")[0])
		if _, err := e.s.SetProjectHosts(e.ctx, p.ID, []string{host}); err != nil {
			t.Fatal(err)
		}
		e.rule(p.ID, "/a", "/new-a", redirects.Exact, 0)
		e.deploy(p.ID, redirects.DeployOptions{})
		ids[host] = p.ID
	}
	faulty := &faultyChecks{CheckStore: e.checkStore(), progressFailed: make(chan struct{}), finished: map[string]bool{}}
	checker := checkerFunc(func(ctx context.Context, targets []redirects.CheckTarget, projectURL string) ([]redirects.DestinationCheck, error) {
		switch projectURL {
		case "https://slow.example.com": // runs while its progress cannot be recorded
			faulty.progressFails.Store(true)
			defer faulty.progressFails.Store(false)
			select {
			case <-faulty.progressFailed:
			case <-time.After(10 * redirects.CheckJobBeat):
				t.Error("no progress recorded within 10 beats")
			}
		case "https://lost.example.com": // outlives its lease
			e.clock.Add(redirects.CheckJobLease + time.Second)
			<-ctx.Done()
			return nil, ctx.Err()
		}
		out := make([]redirects.DestinationCheck, len(targets))
		for i, tg := range targets {
			out[i] = redirects.DestinationCheck{Destination: tg.Destination, URL: tg.URL, Outcome: redirects.CheckOK, Status: 200, FinalURL: tg.URL, CheckedAt: Start}
		}
		return out, nil
	})
	full := service.New(service.Deps{Store: e.s, Builder: build, Checker: checker, Clock: e.clock, Checks: faulty})
	done := map[string]string{}
	pass := func() map[string][]string {
		t.Helper()
		clear(done)
		fails := full.RunScheduledChecks(e.ctx, "node-a", time.Hour, func(projectID string, rep *redirects.CheckReport, err error) {
			switch {
			case err != nil:
				done[projectID] = "error: " + err.Error()
			case rep != nil:
				done[projectID] = fmt.Sprintf("%d checked", len(rep.Checks))
			}
		})
		got := map[string][]string{}
		for _, f := range fails {
			if _, twice := got[f.Cause]; twice {
				t.Errorf("cause %q reported twice in one pass", f.Cause)
			}
			if f.Err == nil {
				t.Errorf("cause %q without its error", f.Cause)
			}
			slices.Sort(f.Projects)
			got[f.Cause] = f.Projects
		}
		return got
	}
	sorted := func(hosts ...string) []string {
		out := make([]string, len(hosts))
		for i, h := range hosts {
			out[i] = ids[h]
		}
		slices.Sort(out)
		return out
	}
	want := map[string][]string{
		service.CauseProgress: sorted("slow.example.com"),
		service.CauseRetried:  sorted("slow.example.com", "quick.example.com"),
		service.CauseRelease:  sorted("slow.example.com", "quick.example.com", "lost.example.com"),
	}
	if got := pass(); !reflect.DeepEqual(got, want) {
		t.Errorf("failures of the pass: %v\nwant %v", got, want)
	}
	lost := done[ids["lost.example.com"]]
	if done[ids["slow.example.com"]] != "1 checked" || done[ids["quick.example.com"]] != "1 checked" || !strings.Contains(lost, "no longer runs") {
		t.Errorf("done: %v; want the slow and quick projects checked, the lost one's lease lost", done)
	}
	ctx := redirects.WithPrincipal(e.ctx, redirects.LocalPrincipal())
	for _, host := range []string{"slow.example.com", "quick.example.com"} {
		if got, _ := full.Services().Checks.FindDestinationChecks(ctx, ids[host]); len(got) != 1 {
			t.Errorf("%s's results: %s; want its one result stored", host, showChecks(got))
		}
	}
	faulty.claimFails.Store(true)
	e.clock.Add(2 * time.Hour)
	want = map[string][]string{service.CauseClaim: sorted("slow.example.com", "quick.example.com", "lost.example.com")}
	if got := pass(); !reflect.DeepEqual(got, want) || len(done) != 0 {
		t.Errorf("a pass whose claims fail: failures %v, done %v\nwant %v, nothing checked", got, done, want)
	}
}
