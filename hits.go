package redirects

import (
	"strings"
	"sync/atomic"
	"time"
)

// HitCounters counts, per record of a Snapshot, the lookups it answered:
// one atomic counter per rule that can answer (exact rules and the
// starts_with rules that win for some path), so counting takes no lock and
// allocates nothing. A node harvests them every flush interval (Harvest)
// and adds them to the store (Store.AddHits). They stay valid, and
// harvestable, after their snapshot is gone.
//
// Memory: 4 bytes a counter, 4 a record offset and 4 more in the record's
// header, so 12 bytes a rule that can answer, plus, for a starts_with rule,
// its source, which its record then holds.
type HitCounters struct {
	arena []byte
	recs  []uint32
	n     []atomic.Uint32
}

// CountHit counts one lookup answered by m, which s's Lookup returned.
func (s *Snapshot) CountHit(m Match) { s.hits.n[m.rec].Add(1) }

// Hits returns the snapshot's hit counters; nil for a nil snapshot.
func (s *Snapshot) Hits() *HitCounters {
	if s == nil {
		return nil
	}
	return s.hits
}

// Harvest calls fn with every rule counted since the last harvest and its
// count, and sets the counters back to zero. A count taken between the read
// and the reset of a counter is kept for the next harvest: the counter is
// swapped, not cleared. source is a view of the snapshot's memory: callers
// that keep it past fn should clone it, or the snapshot stays in memory.
func (h *HitCounters) Harvest(fn func(mt MatchType, source string, n int64)) {
	if h == nil {
		return
	}
	for i := range h.n {
		c := &h.n[i]
		if c.Load() == 0 {
			continue
		}
		n := c.Swap(0)
		rec := h.recs[i]
		fn(MatchType(h.arena[rec+8]), arenaSource(h.arena, rec), int64(n))
	}
}

// RuleHits is what the store holds of one rule's hits: the lookups the
// edge answered with it, summed over every node, and the last time one
// was counted (to the flush interval: the time of the flush that wrote
// it). A rule is named by its project, match type and source, so its
// hits carry over from one deployment to the next and survive an edit of
// its destination, but not of its source.
type RuleHits struct {
	ProjectID string
	MatchType MatchType
	Source    string
	Hits      int64
	LastHit   time.Time
}

// Miss is a path of a project that live lookups asked for and no rule
// answered (204), with how often and when first and last: what a node
// counted (see docs/contract.md "Hits and misses"), or, in the store, the
// sum over every node.
type Miss struct {
	ProjectID string
	Path      string
	Count     int64
	FirstSeen time.Time
	LastSeen  time.Time
}

// MaxStoredMisses is how many missed paths the store keeps per project:
// after each AddMisses, the least frequent beyond this number go.
const MaxStoredMisses = 10000

// ValidateHits checks the arguments of Store.AddHits: a project, a source
// and a match type in each, and no negative count. Errors: EINVALID.
func ValidateHits(hits []RuleHits) error {
	for _, h := range hits {
		switch {
		case h.ProjectID == "":
			return Errorf(EINVALID, "hits of rule %q name no project", h.Source)
		case h.Source == "":
			return Errorf(EINVALID, "hits of project %s name no rule source", h.ProjectID)
		case h.MatchType != Exact && h.MatchType != StartsWith:
			return Errorf(EINVALID, "hits of rule %q have an unknown match type", h.Source)
		case h.Hits < 0:
			return Errorf(EINVALID, "hit count %d of rule %q is negative", h.Hits, h.Source)
		}
	}
	return nil
}

// ValidateMisses checks the arguments of Store.AddMisses: a project and a
// path in each, no negative count, and first seen no later than last seen.
// Errors: EINVALID.
func ValidateMisses(misses []Miss) error {
	for _, m := range misses {
		switch {
		case m.ProjectID == "":
			return Errorf(EINVALID, "miss %q names no project", m.Path)
		case !strings.HasPrefix(m.Path, "/"):
			return Errorf(EINVALID, "missed path %q does not start with /", m.Path)
		case m.Count < 0:
			return Errorf(EINVALID, "miss count %d of %q is negative", m.Count, m.Path)
		case m.LastSeen.Before(m.FirstSeen):
			return Errorf(EINVALID, "miss %q was last seen before it was first seen", m.Path)
		}
	}
	return nil
}

// StaleRules returns the rules that had no hit since t: never hit, or last
// hit before t, in rules' order. hits are the project's, as
// Store.FindHits returns them.
func StaleRules(rules []Rule, hits []RuleHits, since time.Time) []Rule {
	last := HitIndex(hits)
	var out []Rule
	for _, r := range rules {
		if h, ok := last[HitKey{r.MatchType, r.Source}]; ok && !h.LastHit.Before(since) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// HitKey names a rule within a project, as its hits are counted.
type HitKey struct {
	MatchType MatchType
	Source    string
}

// HitIndex indexes a project's hits by rule.
func HitIndex(hits []RuleHits) map[HitKey]RuleHits {
	m := make(map[HitKey]RuleHits, len(hits))
	for _, h := range hits {
		m[HitKey{h.MatchType, h.Source}] = h
	}
	return m
}
