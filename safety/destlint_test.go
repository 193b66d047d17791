package safety_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"redirects"
	"redirects/safety"
)

// TestLintDestinations holds lint's destination warnings to a model on
// random projects and random checks: a rule is warned of once, as
// broken-destination when its destination's last check is broken, as
// offsite-destination when it led off-site, and not otherwise (ok,
// refused, not checked).
func TestLintDestinations(t *testing.T) {
	outcomes := []redirects.CheckOutcome{redirects.CheckOK, redirects.CheckOffsite, redirects.CheckBroken, redirects.CheckTimedOut,
		redirects.CheckLoop, redirects.CheckError, redirects.CheckRefused}
	for seed := range uint64(200) {
		rnd := rand.New(rand.NewPCG(seed, 38))
		var rules []redirects.Rule
		for i := range 1 + rnd.IntN(30) {
			rules = append(rules, redirects.Rule{ID: int64(i + 1), Source: fmt.Sprintf("/s%d", i), StatusCode: 301,
				Destination: fmt.Sprintf("https://dest.example/%d", rnd.IntN(8))})
		}
		checks := map[string]redirects.DestinationCheck{}
		for d := range 8 {
			if rnd.IntN(4) == 0 {
				continue // never checked
			}
			dest := fmt.Sprintf("https://dest.example/%d", d)
			checks[dest] = redirects.DestinationCheck{Destination: dest, URL: dest, Outcome: outcomes[rnd.IntN(len(outcomes))],
				Status: 200, FinalURL: "https://elsewhere.example/", Hops: 1, CheckedAt: time.Unix(1e9, 0)}
		}
		var want []string
		for _, r := range rules {
			d, ok := checks[r.Destination]
			switch {
			case !ok:
			case d.Outcome == redirects.CheckBroken || d.Outcome == redirects.CheckTimedOut || d.Outcome == redirects.CheckLoop || d.Outcome == redirects.CheckError:
				want = append(want, fmt.Sprintf("%d broken-destination", r.ID))
			case d.Outcome == redirects.CheckOffsite:
				want = append(want, fmt.Sprintf("%d offsite-destination", r.ID))
			}
		}
		var got []string
		for _, f := range safety.Lint(rules, safety.LintOptions{Destinations: checks}) {
			if f.Kind == safety.KindBrokenDestination || f.Kind == safety.KindOffsiteDestination {
				if f.Severity != safety.SeverityWarning {
					t.Errorf("seed %d: %s is an error, want a warning", seed, f.Message)
				}
				got = append(got, fmt.Sprintf("%d %s", f.Rules[0].ID, f.Kind))
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: findings %v, want %v", seed, got, want)
		}
		for _, f := range safety.Lint(rules, safety.LintOptions{}) {
			if f.Kind == safety.KindBrokenDestination || f.Kind == safety.KindOffsiteDestination {
				t.Fatalf("seed %d: without checks, %s", seed, f.Message)
			}
		}
	}
}
