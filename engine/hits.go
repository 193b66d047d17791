package engine

import (
	"redirects"

	"slices"
	"sync/atomic"
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
	// orig holds the sources of the records that hold a key instead
	// (settings other than the default, docs/contract.md#rule-options).
	orig sourceTable
	// ext names the counters past recs: the rules of the snapshot's
	// pattern set, in its order.
	ext []redirects.HitKey
}

// sourceTable maps record numbers, added in increasing order, to sources.
type sourceTable struct {
	recs  []uint32
	offs  []uint32
	arena []byte
}

func (t *sourceTable) add(rec uint32, source string) {
	t.recs = append(t.recs, rec)
	t.offs = append(t.offs, uint32(len(t.arena)))
	t.arena = append(t.arena, source...)
}

// get returns the source of record rec, if the table has it.
func (t *sourceTable) get(rec uint32) (string, bool) {
	i, ok := slices.BinarySearch(t.recs, rec)
	if !ok {
		return "", false
	}
	end := uint32(len(t.arena))
	if i+1 < len(t.offs) {
		end = t.offs[i+1]
	}
	return arenaString(t.arena, t.offs[i], end-t.offs[i]), true
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
// swapped, not cleared. A rule is named by its match type, host and source
// (docs/contract.md#keys); the source may be a view of the snapshot's
// memory: callers that keep it past fn should clone it, or the snapshot
// stays in memory.
func (h *HitCounters) Harvest(fn func(k redirects.HitKey, n int64)) {
	if h == nil {
		return
	}
	for i := range h.n {
		c := &h.n[i]
		if c.Load() == 0 {
			continue
		}
		n := c.Swap(0)
		if i >= len(h.recs) {
			fn(h.ext[i-len(h.recs)], int64(n))
			continue
		}
		rec := h.recs[i]
		source, ok := h.orig.get(uint32(i))
		if !ok {
			source = arenaSource(h.arena, rec)
		}
		fn(redirects.HitKey{MatchType: redirects.MatchType(h.arena[rec+8]), Source: source}, int64(n))
	}
}
