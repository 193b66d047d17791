package edge

import (
	"bytes"
	"container/heap"
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
	"weak"

	"redirects"
	"redirects/engine"
	"redirects/engine/pattern"
)

// insight counts, on this node, what docs/contract.md "Hits and misses"
// describes: the live lookups each rule answered, in counters that every
// compiled snapshot carries (engine.HitCounters), and the paths no rule
// answered, per project, in a bounded top-K sketch. The flusher writes
// both to the store every flush interval and starts again from zero, so
// the store holds the sums over every node, and a node that dies loses at
// most one interval.
type insight struct {
	mu sync.Mutex
	// snaps are the snapshots whose counters may hold counts: every one
	// compiled, until it is gone and its counters were harvested one last
	// time.
	snaps []trackedSnap
	// misses holds each project's sketch, which outlives the views.
	misses map[string]*MissSketch
	// pending holds what a failed write gave back, for the next flush,
	// merged by rule and by path so that it stays bounded however long
	// the store is away: the rules of the snapshots, and missSketchSize
	// paths a project per flush interval at most.
	pendingHits   map[hitID]redirects.RuleHits
	pendingMisses map[missID]redirects.Miss
	// wroteHits and wroteMisses count the entries flushes wrote, one per
	// rule with hits and one per missed path, for the metrics.
	wroteHits, wroteMisses atomic.Int64
}

// hitID and missID name what pending merges by.
type hitID struct {
	project string
	redirects.HitKey
}

type missID struct{ project, host, path string }

// maxPendingMisses bounds the missed paths a node keeps for the store while
// it cannot write them: a store away for long loses the counts of paths
// first seen beyond this many, not the node its memory.
const maxPendingMisses = 1 << 16

// trackedSnap is a compiled snapshot as the flusher follows it: a weak
// pointer, so tracking does not keep it in memory, and its counters, which
// stay harvestable after it is gone.
type trackedSnap struct {
	project string
	snap    weak.Pointer[engine.Snapshot]
	hits    *engine.HitCounters
}

// track makes the flusher harvest s's counters, as hits of project.
func (in *insight) track(project string, s *engine.Snapshot) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.snaps = append(in.snaps, trackedSnap{project: project, snap: weak.Make(s), hits: s.Hits()})
}

// sketch returns the miss sketch of a project, making it if needed.
func (in *insight) sketch(project string) *MissSketch {
	in.mu.Lock()
	defer in.mu.Unlock()
	m := in.misses[project]
	if m == nil {
		if in.misses == nil {
			in.misses = map[string]*MissSketch{}
		}
		m = &MissSketch{}
		in.misses[project] = m
	}
	return m
}

// harvest takes every count made since the last harvest, as of now: each
// rule's hits (last hit: now) and each project's misses.
func (in *insight) harvest(now time.Time) ([]redirects.RuleHits, []redirects.Miss) {
	in.mu.Lock()
	defer in.mu.Unlock()
	var hits []redirects.RuleHits
	var misses []redirects.Miss
	for _, h := range in.pendingHits {
		hits = append(hits, h)
	}
	for _, m := range in.pendingMisses {
		misses = append(misses, m)
	}
	in.pendingHits, in.pendingMisses = nil, nil
	kept := in.snaps[:0]
	for _, t := range in.snaps {
		// Read the weak pointer first: once it is nil, no request can
		// count any more, so this harvest is the last one needed.
		gone := t.snap.Value() == nil
		t.hits.Harvest(func(k redirects.HitKey, n int64) {
			hits = append(hits, redirects.RuleHits{ProjectID: t.project, MatchType: k.MatchType, Host: k.Host, Source: strings.Clone(k.Source), Hits: n, LastHit: now})
		})
		if !gone {
			kept = append(kept, t)
		}
	}
	clear(in.snaps[len(kept):])
	in.snaps = kept
	for project, m := range in.misses {
		misses = m.take(project, misses)
	}
	return hits, misses
}

// giveBack keeps counts a failed write returned, for the next flush,
// merged with those already waiting.
func (in *insight) giveBack(hits []redirects.RuleHits, misses []redirects.Miss) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if len(hits) > 0 && in.pendingHits == nil {
		in.pendingHits = map[hitID]redirects.RuleHits{}
	}
	for _, h := range hits {
		id := hitID{h.ProjectID, redirects.HitKey{MatchType: h.MatchType, Host: h.Host, Source: h.Source}}
		if p, ok := in.pendingHits[id]; ok {
			h.Hits += p.Hits
			if p.LastHit.After(h.LastHit) {
				h.LastHit = p.LastHit
			}
		}
		in.pendingHits[id] = h
	}
	if len(misses) > 0 && in.pendingMisses == nil {
		in.pendingMisses = map[missID]redirects.Miss{}
	}
	for _, m := range misses {
		id := missID{m.ProjectID, m.Host, m.Path}
		p, ok := in.pendingMisses[id]
		if !ok && len(in.pendingMisses) >= maxPendingMisses {
			continue // the store is away long: new paths are not kept
		}
		if ok {
			m.Count += p.Count
			if p.FirstSeen.Before(m.FirstSeen) {
				m.FirstSeen = p.FirstSeen
			}
			if p.LastSeen.After(m.LastSeen) {
				m.LastSeen = p.LastSeen
			}
		}
		in.pendingMisses[id] = m
	}
}

// flush writes what was counted since the last flush to the store. What a
// failed write returns is kept for the next flush, so nothing is lost
// while the process lives.
func (in *insight) flush(ctx context.Context, store CountWriter, now time.Time) error {
	hits, misses := in.harvest(now)
	var herr, merr error
	if len(hits) > 0 {
		if herr = store.AddHits(ctx, hits); herr == nil {
			in.wroteHits.Add(int64(len(hits)))
			hits = nil
		}
	}
	if len(misses) > 0 {
		if merr = store.AddMisses(ctx, misses); merr == nil {
			in.wroteMisses.Add(int64(len(misses)))
			misses = nil
		}
	}
	if herr != nil || merr != nil {
		in.giveBack(hits, misses)
	}
	if herr != nil {
		return herr
	}
	return merr
}

// missSketchSize is how many distinct missed paths a node keeps per project
// between two flushes. Counts are exact while a project sees no more
// distinct missed paths than this in a flush interval; beyond, the sketch
// keeps the most frequent (space-saving: a new path takes the place of the
// least counted one and inherits its count, so a count may be too high by
// at most that one's).
const missSketchSize = 512

// MissSketch is one project's missed paths on this node since the last
// flush: a space-saving top-K sketch, a map by path and a min-heap by
// count, under a lock (a miss is the slow answer; hits take no lock).
// Memory: at most missSketchSize paths of up to redirects.MaxSourceLen
// bytes, and about 100 bytes of bookkeeping each.
type MissSketch struct {
	mu sync.Mutex
	// byPath is keyed by the path's key, or, for a lookup with a host, by
	// the host's key, a NUL and the path's key (neither holds a NUL).
	byPath map[string]*missEntry
	heap   missHeap
	// fold is where addKey folds a path's letters, under mu.
	fold []byte
}

type missEntry struct {
	path        string
	count       int64
	first, last int64 // Unix ns
	i           int   // index in the heap
}

// Count counts a miss of path, as the request sent it, in a deployment
// with settings: in the form rules are written in (what matching compared:
// under the settings, the path's key), so a rule made from it answers it.
// Paths no rule could hold (redirects.ValidateSource: bytes that are not
// UTF-8, control characters, whitespace, "//" and the like) are not
// counted: nobody could make a rule of them, and they would reach people's
// terminals and the store as sent.
func (m *MissSketch) Count(path string, settings redirects.Settings, now time.Time) {
	m.CountHost("", path, settings, now)
}

// CountHost is Count for a lookup on host (docs/contract.md#keys: the miss
// log records the lookup's host, in its host key form); "" is a lookup
// without a host, and a host that is not one counts as none.
func (m *MissSketch) CountHost(host, path string, settings redirects.Settings, now time.Time) {
	p, err := redirects.DecodePath(path)
	if err != nil || redirects.ValidateSource(p) != nil {
		return
	}
	m.addKey(host, p, settings, now)
}

// add counts one miss of path at now.
func (m *MissSketch) add(path string, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.addLocked(path, now.UnixNano())
}

// addKey counts one miss of the decoded path p at now under its key with
// settings st (redirects.Settings.Key). The key is made in the sketch's
// own buffer, so a path missed again allocates nothing under any settings.
func (m *MissSketch) addKey(host, p string, st redirects.Settings, now time.Time) {
	key := st.TrimSlash(p)
	m.mu.Lock()
	defer m.mu.Unlock()
	hostKey := false
	if host != "" {
		b, ok := pattern.AppendHostKey(m.fold[:0], host)
		if ok && bytes.IndexByte(b, '*') < 0 {
			m.fold, hostKey = append(b, 0), true
		}
	}
	if hostKey || st.CaseInsensitive && strings.ContainsFunc(key, func(r rune) bool { return 'A' <= r && r <= 'Z' }) {
		if !hostKey {
			m.fold = m.fold[:0]
		}
		start := len(m.fold)
		m.fold = append(m.fold, key...)
		if st.CaseInsensitive {
			for i, c := range m.fold[start:] {
				if 'A' <= c && c <= 'Z' {
					m.fold[start+i] = c + 'a' - 'A'
				}
			}
		}
		// A view of the buffer: addLocked clones what it keeps.
		key = unsafe.String(&m.fold[0], len(m.fold))
	}
	m.addLocked(key, now.UnixNano())
}

// addLocked is add under m.mu, with t in Unix ns. path may be a view of a
// buffer: what is kept of it is cloned.
func (m *MissSketch) addLocked(path string, t int64) {
	if e := m.byPath[path]; e != nil {
		e.count++
		e.last = max(e.last, t)
		heap.Fix(&m.heap, e.i)
		return
	}
	if m.byPath == nil {
		m.byPath = make(map[string]*missEntry, missSketchSize)
	}
	if len(m.heap) < missSketchSize {
		e := &missEntry{path: strings.Clone(path), count: 1, first: t, last: t}
		m.byPath[e.path] = e
		heap.Push(&m.heap, e)
		return
	}
	// Space-saving: the least counted path makes room.
	e := m.heap[0]
	delete(m.byPath, e.path)
	e.path, e.count, e.first, e.last = strings.Clone(path), e.count+1, t, t
	m.byPath[e.path] = e
	heap.Fix(&m.heap, 0)
}

// take appends the sketch's misses to out, as misses of project, and
// empties it.
func (m *MissSketch) take(project string, out []redirects.Miss) []redirects.Miss {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.heap {
		host, path := "", e.path
		if i := strings.IndexByte(path, 0); i >= 0 {
			host, path = path[:i], path[i+1:]
		}
		out = append(out, redirects.Miss{ProjectID: project, Host: host, Path: path, Count: e.count,
			FirstSeen: time.Unix(0, e.first).UTC(), LastSeen: time.Unix(0, e.last).UTC()})
	}
	m.heap = m.heap[:0]
	clear(m.byPath)
	return out
}

// missHeap orders a sketch's entries by count, least first.
type missHeap []*missEntry

func (h missHeap) Len() int           { return len(h) }
func (h missHeap) Less(i, j int) bool { return h[i].count < h[j].count }
func (h missHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].i, h[j].i = i, j
}
func (h *missHeap) Push(x any) {
	e := x.(*missEntry)
	e.i = len(*h)
	*h = append(*h, e)
}
func (h *missHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}
