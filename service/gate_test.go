package service

import (
	"context"
	"testing"

	"redirects"
)

// gateTx is the redirects.DeployReader of a deploy check in tests: the live
// rules and the stored test file.
type gateTx struct {
	live  []redirects.Rule
	tests string
}

func (g gateTx) FindLiveRules(context.Context, string) ([]redirects.Rule, error) {
	if g.live == nil {
		return nil, redirects.Errorf(redirects.ENOTFOUND, "no deployment")
	}
	return g.live, nil
}

func (g gateTx) FindProjectTests(context.Context, string) (string, error) { return g.tests, nil }

// TestGateSettings wants the gate to lint and run the cases under the
// project's settings: a loop and a case that exist only without case.
func TestGateSettings(t *testing.T) {
	draft := []redirects.Rule{
		{ID: 1, Source: "/a", Destination: "/B", StatusCode: 301, Priority: 100},
		{ID: 2, Source: "/b", Destination: "/A", StatusCode: 301, Priority: 100},
	}
	tx := gateTx{tests: "path,status,destination\n/A,301,/B\n"}
	for _, tc := range []struct {
		s              redirects.Settings
		errors, failed int
	}{
		{redirects.Settings{}, 0, 1},
		{redirects.Settings{CaseInsensitive: true}, 1, 0},
	} {
		p := &redirects.Project{ID: "prj_1", ShrinkLimit: 10, Settings: tc.s}
		g, err := runGate(context.Background(), &DeployCheck{Project: p, Rules: draft, Reader: tx})
		if err != nil {
			t.Fatal(err)
		}
		if g.Errors != tc.errors || len(g.FailingCases) != tc.failed {
			t.Fatalf("settings %s: %d errors, %d failing cases; want %d, %d", tc.s, g.Errors, len(g.FailingCases), tc.errors, tc.failed)
		}
	}
}
