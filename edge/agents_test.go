package edge

import (
	"strconv"
	"testing"
	"time"

	"redirects"
)

// TestAgentTrackerNoAlloc checks that a repeated report from a known agent
// is one map update, and that a bad report allocates nothing.
func TestAgentTrackerNoAlloc(t *testing.T) {
	var tr agentTracker
	now := time.Now()
	tr.see("prj", "nginx", "3", "web-1", "", "", now)
	if n := testing.AllocsPerRun(100, func() { tr.see("prj", "nginx", "4", "web-1", "", "", now) }); n != 0 {
		t.Errorf("a known agent's report allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { tr.see("prj", "nginx", "x", "web-1", "ua", "1.2.3.4:5", now) }); n != 0 {
		t.Errorf("a bad report allocates %v times", n)
	}
	if len(tr.seen) != 1 || tr.seen[agentID{"prj", "web-1", "nginx"}].version != 4 {
		t.Errorf("tracker holds %v, want web-1 at version 4", tr.seen)
	}
}

// TestLatestAgents: a flush writes at most redirects.MaxAgentsPerFormat
// reports per project and format, those seen last; other lists keep theirs.
func TestLatestAgents(t *testing.T) {
	seen := map[agentID]*agentSeen{}
	start := time.Unix(1_800_000_000, 0)
	for i := range 3 * redirects.MaxAgentsPerFormat {
		seen[agentID{project: "p", agent: "flood-" + strconv.Itoa(10000+i), format: "nginx"}] = &agentSeen{version: 1, at: start.Add(time.Duration(i) * time.Second)}
	}
	seen[agentID{project: "p", agent: "web-1", format: "csv"}] = &agentSeen{version: 1, at: start}
	seen[agentID{project: "q", agent: "web-1", format: "nginx"}] = &agentSeen{version: 1, at: start}
	got := latestAgents(seen)
	n := map[string]int{}
	oldest := "flood-" + strconv.Itoa(10000+2*redirects.MaxAgentsPerFormat)
	for _, r := range got {
		n[r.ProjectID+" "+r.Format]++
		if r.ProjectID == "p" && r.Format == "nginx" && r.Agent < oldest {
			t.Errorf("kept %s, seen before the %d seen last", r.Agent, redirects.MaxAgentsPerFormat)
		}
	}
	if n["p nginx"] != redirects.MaxAgentsPerFormat || n["p csv"] != 1 || n["q nginx"] != 1 || len(got) != redirects.MaxAgentsPerFormat+2 {
		t.Errorf("latestAgents kept %v (%d reports), want %d of p's nginx and one each of the others", n, len(got), redirects.MaxAgentsPerFormat)
	}
}
