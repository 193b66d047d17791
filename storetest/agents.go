package storetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"redirects"
)

func (e *env) agents() redirects.AgentStore {
	e.t.Helper()
	a, ok := e.s.(redirects.AgentStore)
	if !ok {
		e.t.Fatalf("%T does not implement redirects.AgentStore", e.s)
	}
	return a
}

// testAgents holds RecordAgents and FindAgents to a model: per (project,
// agent, format), the report with the latest SeenAt wins, whatever the
// order of the batches and of the reports in a batch.
func testAgents(t *testing.T, e *env) {
	a := e.org("A")
	p, q := e.project(a.ID, "p"), e.project(a.ID, "q")
	as := e.agents()
	at := func(m int) time.Time { return Start.Add(time.Duration(m) * time.Minute) }
	record := func(rs ...redirects.AgentReport) {
		t.Helper()
		if err := as.RecordAgents(e.ctx, rs); err != nil {
			t.Fatalf("RecordAgents: %v", err)
		}
	}
	show := func(rs []redirects.AgentReport) string {
		var b strings.Builder
		for _, r := range rs {
			fmt.Fprintf(&b, "%s %s %s v%d %s\n", r.ProjectID, r.Agent, r.Format, r.AppliedVersion, r.SeenAt.UTC().Format(time.RFC3339Nano))
		}
		return b.String()
	}
	find := func(projectID string) []redirects.AgentReport {
		t.Helper()
		got, err := as.FindAgents(e.ctx, projectID)
		if err != nil {
			t.Fatalf("FindAgents: %v", err)
		}
		return got
	}
	if got := find(p.ID); len(got) != 0 {
		t.Fatalf("FindAgents of a new project = %v, want none", got)
	}
	record(
		redirects.AgentReport{ProjectID: p.ID, Agent: "web-2 nginx", Format: "nginx", AppliedVersion: 3, SeenAt: at(1)},
		redirects.AgentReport{ProjectID: p.ID, Agent: "web-1 nginx", Format: "nginx", AppliedVersion: 2, SeenAt: at(1)},
		// The same row twice in a batch: the later report wins, whatever
		// its place.
		redirects.AgentReport{ProjectID: p.ID, Agent: "web-1 nginx", Format: "nginx", AppliedVersion: 4, SeenAt: at(3)},
		redirects.AgentReport{ProjectID: p.ID, Agent: "web-1 nginx", Format: "nginx", AppliedVersion: 3, SeenAt: at(2)},
		redirects.AgentReport{ProjectID: p.ID, Agent: "web-1 nginx", Format: "csv", AppliedVersion: 1, SeenAt: at(1)},
		redirects.AgentReport{ProjectID: q.ID, Agent: "web-1 nginx", Format: "nginx", AppliedVersion: 9, SeenAt: at(1)},
		// A project that is gone is dropped.
		redirects.AgentReport{ProjectID: "prj_nope", Agent: "x", Format: "nginx", AppliedVersion: 1, SeenAt: at(1)},
	)
	// Another node's flush with an older report keeps the newer row; a
	// newer one replaces it, even with a lower version (a rollback).
	record(
		redirects.AgentReport{ProjectID: p.ID, Agent: "web-1 nginx", Format: "nginx", AppliedVersion: 7, SeenAt: at(2)},
		redirects.AgentReport{ProjectID: p.ID, Agent: "web-2 nginx", Format: "nginx", AppliedVersion: 2, SeenAt: at(5)},
	)
	want := []redirects.AgentReport{
		{ProjectID: p.ID, Agent: "web-1 nginx", Format: "csv", AppliedVersion: 1, SeenAt: at(1)},
		{ProjectID: p.ID, Agent: "web-1 nginx", Format: "nginx", AppliedVersion: 4, SeenAt: at(3)},
		{ProjectID: p.ID, Agent: "web-2 nginx", Format: "nginx", AppliedVersion: 2, SeenAt: at(5)},
	}
	if got := find(p.ID); show(got) != show(want) {
		t.Errorf("FindAgents(p) =\n%swant\n%s", show(got), show(want))
	}
	if got := find(q.ID); len(got) != 1 || got[0].AppliedVersion != 9 {
		t.Errorf("FindAgents(q) = %v, want q's one agent at version 9", got)
	}
	// Bad input changes nothing, and the error names what is wrong.
	for _, bad := range []struct {
		r    redirects.AgentReport
		want string
	}{
		{redirects.AgentReport{ProjectID: p.ID, Agent: "web-1 nginx", Format: "nginx", AppliedVersion: 0, SeenAt: at(9)}, "version"},
		{redirects.AgentReport{ProjectID: p.ID, Agent: "web-1 nginx", Format: "gif", AppliedVersion: 8, SeenAt: at(9)}, "format"},
		{redirects.AgentReport{ProjectID: p.ID, Agent: "", Format: "nginx", AppliedVersion: 8, SeenAt: at(9)}, "name"},
		{redirects.AgentReport{Agent: "web-1 nginx", Format: "nginx", AppliedVersion: 8, SeenAt: at(9)}, "project"},
	} {
		good := redirects.AgentReport{ProjectID: p.ID, Agent: "web-1 nginx", Format: "nginx", AppliedVersion: 8, SeenAt: at(9)}
		err := as.RecordAgents(e.ctx, []redirects.AgentReport{good, bad.r})
		if redirects.ErrorCode(err) != redirects.EINVALID || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("RecordAgents(%+v) = %v, want EINVALID naming the %s", bad.r, err, bad.want)
		}
	}
	if got := find(p.ID); show(got) != show(want) {
		t.Errorf("after refused reports FindAgents(p) =\n%swant\n%s", show(got), show(want))
	}
	// Deleting the project deletes its agents.
	if err := e.s.DeleteProject(e.ctx, p.ID); err != nil {
		t.Fatalf("DeleteProject: %v", err)
	}
	if got := find(p.ID); len(got) != 0 {
		t.Errorf("FindAgents of a deleted project = %v, want none", got)
	}
}
