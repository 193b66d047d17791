package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// .ci/run runs this package three times: on SQLite inside go test ./...,
// then with REDIRECTS_TEST_E2E_STORE=postgres and =api. The variable only
// changes the store of the CLIs that newCLI makes (e2e_test.go, package
// main_test). The tests of package main cannot call newCLI (an internal
// test cannot import the external test package): each names its own
// database (a SQLite file, or a PostgreSQL database it makes), so it runs
// exactly the same in the second and third pass as in the first. The slow
// ones (the browser suite, and those above a second or so) skip there.

// storeIndependent skips the test in the PostgreSQL and API passes, saying
// why. It is declared in package main so that only a test whose store does
// not follow REDIRECTS_TEST_E2E_STORE can call it.
func storeIndependent(t *testing.T, why string) {
	t.Helper()
	if store := os.Getenv("REDIRECTS_TEST_E2E_STORE"); store == "postgres" || store == "api" {
		t.Skipf("REDIRECTS_TEST_E2E_STORE=%s adds nothing here: %s, so go test ./... runs this test exactly as this pass would", store, why)
	}
}

// browserInAxeStep skips a browser test when REDIRECTS_TEST_BROWSER_LATER
// is set: .ci/run sets it for go test ./... because its next step runs the
// browser suite (go test -run '^TestDashboard' with REDIRECTS_TEST_AXE),
// the same tests with the same assertions and axe-core's on top, so the
// pages load in Chromium once per run instead of twice. Without the
// variable (a developer's go test ./...) the test runs. A browser test whose
// name that step's -run does not match fails here rather than go unrun.
func browserInAxeStep(t *testing.T) {
	t.Helper()
	if os.Getenv("REDIRECTS_TEST_BROWSER_LATER") == "" {
		return
	}
	if !axeStepRuns.MatchString(t.Name()) {
		t.Fatalf("REDIRECTS_TEST_BROWSER_LATER: %s would skip here, but .ci/run's axe-core step (-run %s) does not run it: name it TestDashboard...", t.Name(), axeStepRuns)
	}
	if os.Getenv("REDIRECTS_TEST_AXE") != "" {
		return // this is that step
	}
	t.Skip("REDIRECTS_TEST_BROWSER_LATER is set: .ci/run runs this browser test in its next step, with the same assertions and axe-core's (REDIRECTS_TEST_AXE)")
}

// axeStepRuns is the -run pattern of .ci/run's axe-core step.
var axeStepRuns = regexp.MustCompile(`^TestDashboard`)

// TestCIRunsTheBrowserSuiteOnce reads .ci/run: REDIRECTS_TEST_BROWSER_LATER
// is set for go test ./... only when the axe-core step after it runs the
// browser tests with the pattern browserInAxeStep checks (axeStepRuns), and
// it is unset before the store passes.
func TestCIRunsTheBrowserSuiteOnce(t *testing.T) {
	b, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	ci := string(b)
	at := func(s string) int {
		t.Helper()
		i := strings.Index(ci, s)
		if i < 0 {
			t.Fatalf(".ci/run has no %q", s)
		}
		return i
	}
	set := at("export REDIRECTS_TEST_BROWSER_LATER=1\n")
	tests := at("time go test ./...\n")
	axe := at(`REDIRECTS_TEST_AXE="$axe" go test -timeout 20m -run '` + axeStepRuns.String() + `' ./cmd/redirects` + "\n")
	unset := at("unset REDIRECTS_TEST_BROWSER_LATER\n")
	postgres := at("REDIRECTS_TEST_E2E_STORE=postgres go test")
	if !(set < tests && tests < axe && axe < unset && unset < postgres) {
		t.Errorf(".ci/run: want REDIRECTS_TEST_BROWSER_LATER set, go test ./..., the axe-core step, the variable unset, then the store passes, in that order; at %d, %d, %d, %d, %d", set, tests, axe, unset, postgres)
	}
	n := 0
	for _, line := range strings.Split(ci, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") && strings.Contains(line, "REDIRECTS_TEST_BROWSER_LATER") {
			n++
		}
	}
	if n != 2 {
		t.Errorf(".ci/run names REDIRECTS_TEST_BROWSER_LATER outside comments on %d lines, want 2 (set, unset)", n)
	}
}
