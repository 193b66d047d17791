package storetest

import (
	"context"
	"errors"
	"fmt"
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

func (f checkerFunc) Check(ctx context.Context, targets []redirects.CheckTarget, projectURL string) ([]redirects.DestinationCheck, error) {
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
