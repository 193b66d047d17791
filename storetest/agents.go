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

// testAgentsBounded holds the bounds of the agents' reports: per project
// and format only the redirects.MaxAgentsPerFormat seen last are kept,
// whatever the batches; a report older than redirects.AgentRetention, by
// the store's clock, is neither shown nor kept.
func testAgentsBounded(t *testing.T, e *env) {
	a := e.org("A")
	p, q := e.project(a.ID, "p"), e.project(a.ID, "q")
	as := e.agents()
	max := redirects.MaxAgentsPerFormat
	at := func(s int) time.Time { return Start.Add(time.Duration(s) * time.Second) }
	// Three batches of max agents each in nginx, seen one second apart in
	// turn, and two agents in csv and one of q, which the cap of p's
	// nginx list leaves alone.
	for batch := range 3 {
		var rs []redirects.AgentReport
		for i := range max {
			n := batch*max + i
			rs = append(rs, redirects.AgentReport{ProjectID: p.ID, Agent: fmt.Sprintf("flood-%04d", n), Format: "nginx", AppliedVersion: 1, SeenAt: at(n)})
		}
		if batch == 0 {
			rs = append(rs,
				redirects.AgentReport{ProjectID: p.ID, Agent: "web-1", Format: "csv", AppliedVersion: 1, SeenAt: at(0)},
				redirects.AgentReport{ProjectID: p.ID, Agent: "web-2", Format: "csv", AppliedVersion: 1, SeenAt: at(1)},
				redirects.AgentReport{ProjectID: q.ID, Agent: "web-1", Format: "nginx", AppliedVersion: 1, SeenAt: at(0)})
		}
		if err := as.RecordAgents(e.ctx, rs); err != nil {
			t.Fatalf("RecordAgents(batch %d): %v", batch, err)
		}
	}
	count := func(projectID string) map[string]int {
		t.Helper()
		got, err := as.FindAgents(e.ctx, projectID)
		if err != nil {
			t.Fatalf("FindAgents: %v", err)
		}
		n := map[string]int{}
		for _, r := range got {
			n[r.Format]++
			if r.Format == "nginx" && projectID == p.ID && r.Agent < fmt.Sprintf("flood-%04d", 2*max) {
				t.Errorf("kept %s, seen before the %d agents seen last", r.Agent, max)
			}
		}
		return n
	}
	if got := count(p.ID); got["nginx"] != max || got["csv"] != 2 || len(got) != 2 {
		t.Errorf("after %d agents in nginx the project keeps %v, want %d in nginx and 2 in csv", 3*max, got, max)
	}
	if got := count(q.ID); got["nginx"] != 1 {
		t.Errorf("the cap of p took q's agent: %v", got)
	}

	// Past the retention: an old report is not shown, and the next flush
	// deletes it.
	e.clock.Set(at(2*max + 10).Add(redirects.AgentRetention))
	if got := count(p.ID); got["nginx"] != max-10 || got["csv"] != 0 {
		t.Errorf("%v after the retention, want the %d nginx reports of its last %v and no csv one", got, max-10, redirects.AgentRetention)
	}
	if err := as.RecordAgents(e.ctx, []redirects.AgentReport{
		{ProjectID: p.ID, Agent: "web-9", Format: "haproxy", AppliedVersion: 2, SeenAt: e.clock.Now()},
		{ProjectID: q.ID, Agent: "web-9", Format: "haproxy", AppliedVersion: 2, SeenAt: e.clock.Now()},
	}); err != nil {
		t.Fatalf("RecordAgents: %v", err)
	}
	e.clock.Set(Start)
	if got := count(p.ID); got["nginx"] != max-10 || got["csv"] != 0 || got["haproxy"] != 1 {
		t.Errorf("%v with the clock turned back after a flush, want the expired reports deleted and the new haproxy one kept", got)
	}
	if got := count(q.ID); got["nginx"] != 0 || got["haproxy"] != 1 {
		t.Errorf("q: %v, want its expired nginx report deleted and the new haproxy one kept", got)
	}
}

// testAgentsDelete holds DeleteAgents: by agent, by format, both, or all
// of a project's; another project's stay; a bad filter changes nothing.
func testAgentsDelete(t *testing.T, e *env) {
	a := e.org("A")
	p, q := e.project(a.ID, "p"), e.project(a.ID, "q")
	as := e.agents()
	var rs []redirects.AgentReport
	for _, name := range []string{"web-1", "web-2", "web-3"} {
		for _, f := range []string{"nginx", "csv"} {
			rs = append(rs, redirects.AgentReport{ProjectID: p.ID, Agent: name, Format: f, AppliedVersion: 1, SeenAt: Start})
		}
	}
	rs = append(rs, redirects.AgentReport{ProjectID: q.ID, Agent: "web-1", Format: "nginx", AppliedVersion: 1, SeenAt: Start})
	if err := as.RecordAgents(e.ctx, rs); err != nil {
		t.Fatalf("RecordAgents: %v", err)
	}
	left := func(projectID string) string {
		t.Helper()
		got, err := as.FindAgents(e.ctx, projectID)
		if err != nil {
			t.Fatalf("FindAgents: %v", err)
		}
		var names []string
		for _, r := range got {
			names = append(names, r.Agent+"/"+r.Format)
		}
		return strings.Join(names, " ")
	}
	for _, bad := range []struct {
		f    redirects.AgentFilter
		want string
	}{
		{redirects.AgentFilter{Format: "gif"}, "format"},
		{redirects.AgentFilter{Agent: strings.Repeat("x", redirects.MaxAgentName+1)}, "agent"},
		{redirects.AgentFilter{Agent: "web\x00"}, "agent"},
	} {
		n, err := as.DeleteAgents(e.ctx, p.ID, bad.f)
		if redirects.ErrorCode(err) != redirects.EINVALID || !strings.Contains(err.Error(), bad.want) || n != 0 {
			t.Errorf("DeleteAgents(%+v) = %d, %v; want EINVALID naming the %s", bad.f, n, err, bad.want)
		}
	}
	for _, step := range []struct {
		f    redirects.AgentFilter
		n    int
		left string
	}{
		{redirects.AgentFilter{Agent: "web-1", Format: "csv"}, 1, "web-1/nginx web-2/csv web-2/nginx web-3/csv web-3/nginx"},
		{redirects.AgentFilter{Agent: "web-2"}, 2, "web-1/nginx web-3/csv web-3/nginx"},
		{redirects.AgentFilter{Format: "nginx"}, 2, "web-3/csv"},
		{redirects.AgentFilter{Agent: "nobody"}, 0, "web-3/csv"},
		{redirects.AgentFilter{}, 1, ""},
	} {
		n, err := as.DeleteAgents(e.ctx, p.ID, step.f)
		if err != nil || n != step.n {
			t.Errorf("DeleteAgents(%+v) = %d, %v; want %d", step.f, n, err, step.n)
		}
		if got := left(p.ID); got != step.left {
			t.Errorf("after DeleteAgents(%+v) the project has %q, want %q", step.f, got, step.left)
		}
	}
	if got := left(q.ID); got != "web-1/nginx" {
		t.Errorf("another project's agents after the deletes: %q, want web-1/nginx", got)
	}
}
