// Package storetest is the behaviour suite of redirects.Store. Every store
// implementation runs it, so the SQLite and PostgreSQL stores cannot drift
// apart: a behaviour either holds for every store or is not promised.
//
// The suite uses only the redirects.Store interface, and the deploys of
// package safety (Deploy, DeployUnchecked) over it. It asserts what the
// interface documents (error codes, ordering, atomicity, the clock as the
// source of CreatedAt) and that error messages name the thing they are
// about, never a message's exact wording.
//
// RunDatabase runs the tests that need a database of their own: several
// stores on it at once, as several processes would, and the schema's
// migrations, which read and edit the database's record of them directly.
// BenchImport and BenchDeploy are the stores' benchmarks. Tests that hold
// for one store only (SQLite's file, PostgreSQL's notifications and lost
// connections) stay in its package.
package storetest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/engine"
	"redirects/service"
)

// Opener returns a new, empty store that takes its times from clock. The
// suite closes the store when the test ends.
type Opener func(t *testing.T, clock redirects.Clock) redirects.Store

// Run runs the behaviour suite against the stores that open returns, one
// fresh store per subtest.
func Run(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(t *testing.T, e *env)
	}{
		{"Org/CreateAndFind", testOrgCreateAndFind},
		{"Org/Invalid", testOrgInvalid},
		{"Org/Update", testOrgUpdate},
		{"Org/NotFound", testOrgNotFound},
		{"Project/CreateAndFind", testProjectCreateAndFind},
		{"Project/UnknownOrg", testProjectUnknownOrg},
		{"Project/Invalid", testProjectInvalid},
		{"Rule/Add", testRuleAdd},
		{"Rule/Invalid", testRuleInvalid},
		{"Rule/Conflict", testRuleConflict},
		{"Rule/Sorted", testRuleSorted},
		{"Rule/Delete", testRuleDelete},
		{"Import/Stores", testImportStores},
		{"Import/AllOrNothing", testImportAllOrNothing},
		{"Import/ConflictOnly", testImportConflictOnly},
		{"Import/Replace", testImportReplace},
		{"Import/UnknownProject", testImportUnknownProject},
		{"Import/Large", testImportLarge},
		{"Import/Modes", testImportModes},
		{"Import/AppendAgain", testImportAppendAgain},
		{"Import/DeployAudited", testImportDeployAudited},
		{"Import/Undo", testImportUndo},
		{"Import/UndoAfterEdit", testImportUndoAfterEdit},
		{"Import/UndoReplace", testImportUndoReplace},
		{"Import/UndoLarge", testImportUndoLarge},
		{"Import/UndoKeepsLatest", testImportUndoKeepsLatest},
		{"Import/UndoRandom", testImportUndoRandom},
		{"Import/RewriteDraft", testRewriteDraft},
		{"Import/RewriteDraftWaitsForDeletes", testRewriteDraftDeletes},
		{"Key/CreateAndFind", testKeyCreateAndFind},
		{"Key/Revoke", testKeyRevoke},
		{"Key/OtherProject", testKeyOtherProject},
		{"Deploy/Versions", testDeployVersions},
		{"Deploy/CountsKinds", testDeployCountsKinds},
		{"Deploy/SnapshotImmutable", testDeploySnapshotImmutable},
		{"Deploy/Rollback", testDeployRollback},
		{"Deploy/UnknownVersion", testDeployUnknownVersion},
		{"Deploy/BuilderError", testDeployBuilderError},
		{"Deploy/StreamedExports", testDeployStreamedExports},
		{"Deploy/BuilderSeesSortedRules", testDeployBuilderSeesSortedRules},
		{"Deploy/BuilderCannotChangeSnapshot", testDeployBuilderCannotChangeSnapshot},
		{"Deploy/Exports", testDeployExports},
		{"Deploy/ExportRetention", testDeployExportRetention},
		{"Deploy/ExportEncodings", testDeployExportEncodings},
		{"Deploy/NotFound", testDeployNotFound},
		{"Deploy/ChecksWhatItWrites", testDeployChecksWhatItWrites},
		{"Deploy/RacesEdits", testDeployRacesEdits},
		{"Stage/NotLive", testStageNotLive},
		{"Stage/OnlyStaged", testStageOnlyStaged},
		{"Stage/Promote", testStagePromote},
		{"Stage/Discard", testStageDiscard},
		{"Stage/Retention", testStageRetention},
		{"Stage/RequireStage", testStageRequireStage},
		{"Stage/Model", testStageModel},
		{"Event/Recorded", testEventRecorded},
		{"Event/Paging", testEventPaging},
		{"Usage/Add", testUsageAdd},
		{"Usage/Daily", testUsageDaily},
		{"Usage/Together", testUsageTogether},
		{"Insight/Hits", testHits},
		{"Insight/Misses", testMisses},
		{"Agents/LastReport", testAgents},
		{"Agents/Bounded", testAgentsBounded},
		{"Agents/Delete", testAgentsDelete},
		{"RulePage/Model", testRulePageModel},
		{"RulePage/Defaults", testRulePageDefaults},
		{"RulePage/Invalid", testRulePageInvalid},
		{"Rule/Update", testRuleUpdate},
		{"Rule/DeleteRevision", testRuleDeleteRevision},
		{"Rule/DeleteMatching", testDeleteRules},
		{"Rule/CountModel", testRuleCountModel},
		{"Project/Update", testProjectUpdate},
		{"Project/Hosts", testProjectHosts},
		{"Project/Delete", testProjectDelete},
		{"Project/ShrinkLimit", testProjectShrinkLimit},
		{"Project/Tests", testProjectTests},
		{"Org/Delete", testOrgDelete},
	}
	tests = append(tests, accountTests...)
	tests = append(tests, optionTests...)
	tests = append(tests, webhookTests...)
	tests = append(tests, patternTests...)
	tests = append(tests, suggestionTests...)
	tests = append(tests, checkTests...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := NewClock(Start)
			s := open(t, clock)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			tc.fn(t, &env{t: t, s: s, clock: clock, ctx: context.Background()})
		})
	}
}

// env is what a test of the suite works with.
type env struct {
	t     *testing.T
	s     redirects.Store
	clock *Clock
	ctx   context.Context
}

func (e *env) org(name string) *redirects.Org {
	e.t.Helper()
	o := &redirects.Org{Name: name, Tier: redirects.TierFree}
	if err := e.s.CreateOrg(e.ctx, o); err != nil {
		e.t.Fatalf("CreateOrg(%q): %v", name, err)
	}
	return o
}

func (e *env) project(orgID, name string) *redirects.Project {
	e.t.Helper()
	p := &redirects.Project{OrgID: orgID, Name: name}
	if err := e.s.CreateProject(e.ctx, p); err != nil {
		e.t.Fatalf("CreateProject(%q): %v", name, err)
	}
	return p
}

// newProject makes an organization and a project in it.
func (e *env) newProject() *redirects.Project {
	e.t.Helper()
	return e.project(e.org("Acme").ID, "site")
}

func (e *env) rule(projectID, source, dest string, m redirects.MatchType, priority int) *redirects.Rule {
	e.t.Helper()
	r := &redirects.Rule{ProjectID: projectID, Source: source, Destination: dest, StatusCode: 301, MatchType: m, Priority: priority}
	if err := e.s.AddRule(e.ctx, r); err != nil {
		e.t.Fatalf("AddRule(%s %q): %v", m, source, err)
	}
	return r
}

func (e *env) rules(projectID string) []redirects.Rule {
	e.t.Helper()
	rules, err := e.s.FindRules(e.ctx, projectID)
	if err != nil {
		e.t.Fatalf("FindRules: %v", err)
	}
	return rules
}

func (e *env) deploy(projectID string, opts redirects.DeployOptions) *redirects.Deployment {
	e.t.Helper()
	d, err := service.DeployUnchecked(e.ctx, e.s, projectID, opts, build)
	if err != nil {
		e.t.Fatalf("Deploy(%+v): %v", opts, err)
	}
	return d
}

func (e *env) events() []redirects.Event {
	e.t.Helper()
	evs, err := e.s.FindEvents(e.ctx, 0, 1000)
	if err != nil {
		e.t.Fatalf("FindEvents: %v", err)
	}
	return evs
}

// build is the suite's Builder: each export is the format's name, the rule
// count and the sources, enough to tell versions apart. The real renderer
// is tested elsewhere.
func build(rules []redirects.Rule, _ redirects.Settings) (*redirects.DeployContent, error) {
	c := &redirects.DeployContent{Report: fmt.Sprintf("%d rules rendered", len(rules))}
	for _, f := range redirects.Formats {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %d\n", f, len(rules))
		for _, r := range rules {
			fmt.Fprintf(&b, "%s %s\n", r.Source, r.Destination)
		}
		c.Exports = append(c.Exports, redirects.Export{Format: f, Body: []byte(b.String()), ETag: etag([]byte(b.String()))})
	}
	return c, nil
}

// countBuild is a Builder that renders only the number of rules: the tests
// that use it measure the store, not the renderers.
func countBuild(rules []redirects.Rule, _ redirects.Settings) (*redirects.DeployContent, error) {
	return &redirects.DeployContent{Exports: []redirects.Export{{Format: "csv", Body: []byte(fmt.Sprint(len(rules))), ETag: `"x"`}}}, nil
}

func etag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// wantCode fails unless err is a domain error with the code, and its message
// holds every one of names.
func wantCode(t *testing.T, what string, err error, code string, names ...string) {
	t.Helper()
	if got := redirects.ErrorCode(err); got != code {
		t.Fatalf("%s: error code %q (%v), want %q", what, got, err, code)
	}
	msg := redirects.ErrorMessage(err)
	for _, n := range names {
		if !strings.Contains(msg, n) {
			t.Errorf("%s: message %q does not name %q", what, msg, n)
		}
	}
}

// wantTime fails unless got is want's instant, in UTC.
func wantTime(t *testing.T, what string, got, want time.Time) {
	t.Helper()
	if !got.Equal(want) {
		t.Errorf("%s = %v, want %v (the clock's time)", what, got, want)
	}
	if got.Location() != time.UTC {
		t.Errorf("%s = %v is not in UTC", what, got)
	}
}

// sameRule reports how got differs from want, or "".
func sameRule(got, want *redirects.Rule) string {
	switch {
	case got.ID != want.ID:
		return fmt.Sprintf("ID %d, want %d", got.ID, want.ID)
	case got.ProjectID != want.ProjectID:
		return fmt.Sprintf("ProjectID %q, want %q", got.ProjectID, want.ProjectID)
	case got.Source != want.Source || got.Destination != want.Destination:
		return fmt.Sprintf("%q -> %q, want %q -> %q", got.Source, got.Destination, want.Source, want.Destination)
	case got.StatusCode != want.StatusCode:
		return fmt.Sprintf("StatusCode %d, want %d", got.StatusCode, want.StatusCode)
	case got.MatchType != want.MatchType:
		return fmt.Sprintf("MatchType %s, want %s", got.MatchType, want.MatchType)
	case got.Priority != want.Priority:
		return fmt.Sprintf("Priority %d, want %d", got.Priority, want.Priority)
	case !got.CreatedAt.Equal(want.CreatedAt):
		return fmt.Sprintf("CreatedAt %v, want %v", got.CreatedAt, want.CreatedAt)
	}
	return ""
}

// wantRules fails unless got holds want's rules, in want's order.
func wantRules(t *testing.T, what string, got, want []redirects.Rule) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rules %v, want %d %v", what, len(got), sources(got), len(want), sources(want))
	}
	for i := range got {
		if d := sameRule(&got[i], &want[i]); d != "" {
			t.Errorf("%s: rule %d (%q): %s", what, i, got[i].Source, d)
		}
	}
}

func sources(rules []redirects.Rule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.MatchType.String() + " " + r.Source
	}
	return out
}

// sorted returns a sorted copy of rules.
func sorted(rules ...redirects.Rule) []redirects.Rule {
	out := slices.Clone(rules)
	engine.SortRules(out)
	return out
}

func limit(n int64) *redirects.Limit {
	l := redirects.Limit(n)
	return &l
}

func limitString(l *redirects.Limit) string {
	if l == nil {
		return "<nil>"
	}
	return l.String()
}
