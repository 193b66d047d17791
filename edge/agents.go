package edge

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"redirects"
)

// agentTracker remembers, on this node, what the sync agents said on their
// export requests (docs/delivery.md#which-servers-have-which-version): the
// version each applied, per project, agent and format, as of the request.
// A request is one map lookup under a lock; a request without the
// Redirects-Applied-Version header costs nothing (the edge checks the
// header before calling Catalog.SeeAgent). The flusher writes the reports with the
// counts and forgets them; the store keeps the latest.
type agentTracker struct {
	mu sync.Mutex
	// seen holds pointers so that a known agent's report updates its
	// entry in place: assigning to an existing key would replace the map's
	// copy of the key with the request's view.
	seen map[agentID]*agentSeen
}

type agentID struct{ project, agent, format string }

type agentSeen struct {
	version int
	at      time.Time
}

// maxTrackedAgents bounds the reports a node holds between two flushes
// (or while the store is away): beyond it, new agents are dropped until
// the next flush, not the node's memory.
const maxTrackedAgents = 1 << 14

// AgentWriter is what the edge writes of the agents' reports
// (redirects.AgentStore).
type AgentWriter interface {
	RecordAgents(ctx context.Context, reports []redirects.AgentReport) error
}

// SeeAgent records a sync agent's report on an authenticated export
// request of project in format, at now: applied is its
// Redirects-Applied-Version header, agent its Redirects-Agent, userAgent
// and remoteAddr name it when agent is empty (redirects.AgentName). A
// request is one map lookup under a lock; the reports are written with the
// counts (Flush).
func (s *Catalog) SeeAgent(project, format, applied, agent, userAgent, remoteAddr string, now time.Time) {
	s.agents.see(project, format, applied, agent, userAgent, remoteAddr, now)
}

// see records a report of an authenticated export request of project in
// format. The header values may be views into a connection's buffer: what
// is kept is copied. A version that is not a positive integer is ignored.
func (t *agentTracker) see(project, format, applied, agent, userAgent, remoteAddr string, now time.Time) {
	v, ok := redirects.ParseAppliedVersion(applied)
	if !ok {
		return
	}
	id := agentID{project: project, agent: redirects.AgentName(agent, userAgent, remoteAddr), format: canonicalFormat(format)}
	if id.format == "" || id.agent == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if old := t.seen[id]; old != nil {
		if !now.Before(old.at) {
			old.version, old.at = v, now
		}
		return
	}
	if len(t.seen) >= maxTrackedAgents {
		return
	}
	if t.seen == nil {
		t.seen = map[agentID]*agentSeen{}
	}
	// The name may share memory with the request (AgentName returns its
	// argument when nothing needed dropping).
	id.agent = strings.Clone(id.agent)
	t.seen[id] = &agentSeen{version: v, at: now}
}

// canonicalFormat returns the format's name from redirects.Formats (not
// a view of the request), or "" for an unknown one.
func canonicalFormat(format string) string {
	for _, f := range redirects.Formats {
		if f == format {
			return f
		}
	}
	return ""
}

// flush writes the reports seen since the last flush to store and forgets
// them; on failure they are kept for the next flush (unless newer ones
// replaced them meanwhile).
func (t *agentTracker) flush(ctx context.Context, store AgentWriter) error {
	t.mu.Lock()
	seen := t.seen
	t.seen = nil
	t.mu.Unlock()
	if len(seen) == 0 {
		return nil
	}
	err := store.RecordAgents(ctx, latestAgents(seen))
	if err != nil {
		t.mu.Lock()
		for id, s := range seen {
			if cur := t.seen[id]; cur != nil && !cur.at.Before(s.at) {
				continue
			}
			if t.seen == nil {
				t.seen = map[agentID]*agentSeen{}
			}
			t.seen[id] = s
		}
		t.mu.Unlock()
	}
	return err
}

// latestAgents returns the reports of seen, at most
// redirects.MaxAgentsPerFormat per project and format: those seen last.
// The store keeps no more (docs/delivery.md#which-servers-have-which-version),
// so a flood of made-up agent names is not written only to be deleted.
func latestAgents(seen map[agentID]*agentSeen) []redirects.AgentReport {
	type list struct{ project, format string }
	lists := map[list][]redirects.AgentReport{}
	for id, s := range seen {
		l := list{id.project, id.format}
		lists[l] = append(lists[l], redirects.AgentReport{ProjectID: id.project, Agent: id.agent, Format: id.format, AppliedVersion: s.version, SeenAt: s.at})
	}
	reports := make([]redirects.AgentReport, 0, min(len(seen), len(lists)*redirects.MaxAgentsPerFormat))
	for _, rs := range lists {
		if len(rs) > redirects.MaxAgentsPerFormat {
			slices.SortFunc(rs, func(a, b redirects.AgentReport) int {
				return cmp.Or(b.SeenAt.Compare(a.SeenAt), cmp.Compare(a.Agent, b.Agent))
			})
			rs = rs[:redirects.MaxAgentsPerFormat]
		}
		reports = append(reports, rs...)
	}
	return reports
}
