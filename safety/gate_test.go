package safety

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"redirects"
)

func manyRules(n int) []redirects.Rule {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("exact /old/%d /new/%d", i, i)
	}
	return rs(lines...)
}

func TestGateClean(t *testing.T) {
	live := manyRules(10)
	g := Gate(live, live, nil, GateOptions{ShrinkLimit: 10, Live: true})
	if len(g.Blocked) != 0 || g.Forced || g.ShrinkAllowed {
		t.Fatalf("an unchanged rule set: blocked %q, forced %v, shrink allowed %v", g.Blocked, g.Forced, g.ShrinkAllowed)
	}
	if g.Shrink.Removed != 0 || g.Shrink.Live != 10 || g.Shrink.Deploy != 10 {
		t.Fatalf("shrink = %+v, want 10 live, 10 deployed, none removed", g.Shrink)
	}
}

func TestGateLoop(t *testing.T) {
	draft := rs("exact /a /b", "exact /b /a")
	g := Gate(nil, draft, nil, GateOptions{ShrinkLimit: 10})
	if len(g.Blocked) != 1 || !strings.Contains(g.Blocked[0], "1 lint error") || g.Errors != 1 {
		t.Fatalf("a loop: blocked %q with %d errors, want one reason naming 1 lint error", g.Blocked, g.Errors)
	}
	g = Gate(nil, draft, nil, GateOptions{ShrinkLimit: 10, Override: redirects.DeployOverride{Force: true, Reason: "known"}})
	if len(g.Blocked) != 0 || !g.Forced {
		t.Fatalf("a forced loop: blocked %q, forced %v; want it let through and marked forced", g.Blocked, g.Forced)
	}
}

func TestGateCases(t *testing.T) {
	draft := rs("exact /a /b")
	cases := []Case{{Line: 2, Path: "/a", StatusCode: 301, Destination: "/b"}, {Line: 3, Path: "/c", StatusCode: 301, Destination: "/d"}}
	g := Gate(nil, draft, cases, GateOptions{ShrinkLimit: 10})
	if g.Cases != 2 || len(g.FailingCases) != 1 || g.FailingCases[0].Case.Line != 3 {
		t.Fatalf("cases: %d run, failing %+v; want 2 run and line 3 failing", g.Cases, g.FailingCases)
	}
	if len(g.Blocked) != 1 || !strings.Contains(g.Blocked[0], "1 failing expected-outcome case") {
		t.Fatalf("blocked %q, want one reason naming the failing case", g.Blocked)
	}
	// Shrinking is not forcing: a forced deploy still needs its own
	// confirmation to shrink, and the other way round.
	g = Gate(nil, draft, cases, GateOptions{ShrinkLimit: 10, Override: redirects.DeployOverride{AllowShrink: true}})
	if len(g.Blocked) != 1 || g.ShrinkAllowed {
		t.Fatalf("allow-shrink on a failing case: blocked %q, shrink allowed %v; want still blocked", g.Blocked, g.ShrinkAllowed)
	}
}

func TestGateShrink(t *testing.T) {
	live := manyRules(1000)
	for _, tc := range []struct {
		keep, limit int
		block       bool
	}{
		{keep: 900, limit: 10, block: false}, // exactly 10 %: not more than the limit
		{keep: 899, limit: 10, block: true},
		{keep: 850, limit: 20, block: false},
		{keep: 990, limit: 0, block: true},
		{keep: 991, limit: 0, block: false}, // 9 removed: fewer than MinShrinkRemoved
		{keep: 0, limit: 100, block: true},  // none left
		{keep: 1, limit: 100, block: false},
	} {
		g := Gate(live, live[:tc.keep], nil, GateOptions{ShrinkLimit: tc.limit, Live: true})
		if got := len(g.Blocked) > 0; got != tc.block || g.Shrink.NeedsConfirmation != tc.block {
			t.Errorf("keep %d of 1000 with limit %d %%: blocked %q, want blocked %v", tc.keep, tc.limit, g.Blocked, tc.block)
		}
		if g.Shrink.Removed != 1000-tc.keep {
			t.Errorf("keep %d: removed %d, want %d", tc.keep, g.Shrink.Removed, 1000-tc.keep)
		}
	}
	g := Gate(live, live[:850], nil, GateOptions{ShrinkLimit: 10, Live: true})
	want := "this deploy removes 150 of 1,000 live rules (15 %); the project's limit is 10 %"
	if len(g.Blocked) != 1 || g.Blocked[0] != want {
		t.Fatalf("blocked %q, want [%q]", g.Blocked, want)
	}
	g = Gate(live, nil, nil, GateOptions{ShrinkLimit: 10, Live: true})
	if !g.Shrink.LeavesNone || !strings.Contains(g.Blocked[0], "leaves the project with none") {
		t.Fatalf("an empty deploy: %+v, blocked %q; want it to say none are left", g.Shrink, g.Blocked)
	}
	g = Gate(live, nil, nil, GateOptions{ShrinkLimit: 10, Live: true, Override: redirects.DeployOverride{AllowShrink: true}})
	if len(g.Blocked) != 0 || !g.ShrinkAllowed {
		t.Fatalf("allowed shrink: blocked %q, allowed %v", g.Blocked, g.ShrinkAllowed)
	}
	// A changed destination keeps the rule: only match type and source
	// count.
	changed := rs("exact /old/0 /elsewhere")
	g = Gate(live[:1], changed, nil, GateOptions{ShrinkLimit: 0, Live: true})
	if g.Shrink.Removed != 0 || len(g.Blocked) != 0 {
		t.Fatalf("a changed destination counted as removed: %+v", g.Shrink)
	}
	// A small project: 1 of 5 is 20 %, but too few rules to ask.
	g = Gate(live[:5], live[:4], nil, GateOptions{ShrinkLimit: 10, Live: true})
	if len(g.Blocked) != 0 || g.Shrink.Percent != 20 {
		t.Fatalf("1 of 5 removed: blocked %q, shrink %+v", g.Blocked, g.Shrink)
	}
	// A rollback may shrink: its rules were live before.
	g = Gate(live, live[:1], nil, GateOptions{ShrinkLimit: 10, Live: true, Rollback: true})
	if len(g.Blocked) != 0 || g.Shrink.NeedsConfirmation || g.Shrink.Removed != 999 || !g.Shrink.Rollback {
		t.Fatalf("a rollback: blocked %q, shrink %+v; want it let through with the numbers", g.Blocked, g.Shrink)
	}
	// Nothing live: nothing to remove, an empty first deploy included.
	g = Gate(nil, nil, nil, GateOptions{ShrinkLimit: 10})
	if len(g.Blocked) != 0 || g.Shrink.NeedsConfirmation {
		t.Fatalf("a first, empty deploy: blocked %q", g.Blocked)
	}
}

func TestBlockedErrorCode(t *testing.T) {
	err := error(&BlockedError{Result: &GateResult{Blocked: []string{"why"}}})
	if redirects.ErrorCode(err) != redirects.ECONFLICT || !strings.Contains(redirects.ErrorMessage(err), "why") {
		t.Fatalf("code %q message %q, want conflict naming the reason", redirects.ErrorCode(err), redirects.ErrorMessage(err))
	}
	var be *BlockedError
	if !errors.As(fmt.Errorf("wrapped: %w", err), &be) {
		t.Fatal("errors.As does not find the BlockedError")
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1000: "-1,000"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
